package dev.cipolicy.queue.memory;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * The queued job rows of one claim queue in id order. New jobs arrive in increasing id order and go to a
 * deque (O(1)); requeued jobs, which may be older than the newest, go to a heap (O(log n)); the head is
 * the lesser of the two heads.
 */
final class ClaimQueue {
  private final ArrayDeque<JobRow> appended = new ArrayDeque<>();
  private final PriorityQueue<JobRow> requeued = new PriorityQueue<>(Pool.BY_ID);

  void add(JobRow row) {
    JobRow last = appended.peekLast();
    if (last == null || row.id > last.id) {
      appended.addLast(row);
    } else {
      requeued.add(row);
    }
  }

  boolean isEmpty() {
    return appended.isEmpty() && requeued.isEmpty();
  }

  /** The row with the least id, or null. */
  @Nullable JobRow peek() {
    JobRow a = appended.peekFirst();
    JobRow r = requeued.peek();
    if (a == null) {
      return r;
    }
    return r == null || a.id < r.id ? a : r;
  }

  /** Removes the row with the least id. */
  void poll() {
    JobRow a = appended.peekFirst();
    JobRow r = requeued.peek();
    if (a != null && (r == null || a.id < r.id)) {
      appended.pollFirst();
    } else {
      requeued.poll();
    }
  }
}
