package dev.cipolicy.queue.memory;

import java.util.Arrays;

/**
 * An indexed binary min-heap of leased job rows by lease expiry, then job id: the next lease to expire is
 * at the top, and a row can be removed or re-keyed in logarithmic time because it knows its index.
 */
final class LeaseHeap {
  private JobRow[] rows = new JobRow[64];
  private int size;

  boolean isEmpty() {
    return size == 0;
  }

  JobRow peek() {
    return rows[0];
  }

  void add(JobRow row) {
    if (size == rows.length) {
      rows = Arrays.copyOf(rows, size * 2);
    }
    row.heapIndex = size;
    rows[size++] = row;
    siftUp(row.heapIndex);
  }

  JobRow poll() {
    JobRow top = rows[0];
    removeAt(0);
    return top;
  }

  void remove(JobRow row) {
    if (row.heapIndex >= 0) {
      removeAt(row.heapIndex);
    }
  }

  /** Whether a lease of the heap that is live at {@code now} is held by the collector. */
  boolean anyLiveHeldBy(String collector, java.time.Instant now) {
    for (int i = 0; i < size; i++) {
      JobRow row = rows[i];
      if (row.leaseExpiry.isAfter(now) && row.job.lease().orElseThrow().collector().equals(collector)) {
        return true;
      }
    }
    return false;
  }

  /** Restores the heap order after the row's expiry changed. */
  void update(JobRow row) {
    int i = row.heapIndex;
    siftUp(i);
    siftDown(row.heapIndex);
  }

  private void removeAt(int i) {
    JobRow removed = rows[i];
    size--;
    if (i != size) {
      JobRow last = rows[size];
      rows[i] = last;
      last.heapIndex = i;
      rows[size] = null;
      siftUp(i);
      siftDown(last.heapIndex);
    } else {
      rows[size] = null;
    }
    removed.heapIndex = -1;
  }

  private void siftUp(int i) {
    JobRow row = rows[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      JobRow p = rows[parent];
      if (less(p, row)) {
        break;
      }
      rows[i] = p;
      p.heapIndex = i;
      i = parent;
    }
    rows[i] = row;
    row.heapIndex = i;
  }

  private void siftDown(int i) {
    JobRow row = rows[i];
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      JobRow c = rows[child];
      int right = child + 1;
      if (right < size && less(rows[right], c)) {
        child = right;
        c = rows[child];
      }
      if (less(row, c)) {
        break;
      }
      rows[i] = c;
      c.heapIndex = i;
      i = child;
    }
    rows[i] = row;
    row.heapIndex = i;
  }

  private static boolean less(JobRow a, JobRow b) {
    int c = a.leaseExpiry.compareTo(b.leaseExpiry);
    return c < 0 || (c == 0 && a.id < b.id);
  }
}
