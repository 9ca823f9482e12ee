package dev.cipolicy.queue.memory;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * The claimable jobs and the leases of one collector tag. A queued job sits in exactly one queue: the free
 * queue when it has no affinity, otherwise the queue of its affinity collector. Cancelled jobs stay in
 * their queue until a claim reaches and skips them.
 */
final class Pool {
  static final Comparator<JobRow> BY_ID = (a, b) -> Long.compare(a.id, b.id);

  final ClaimQueue free = new ClaimQueue();
  final Map<String, ClaimQueue> affine = new HashMap<>();
  final LeaseHeap leases = new LeaseHeap();
}
