package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.spi.DevicePlacement;
import dev.cipolicy.queue.spi.ShareLedger;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The claimable jobs and the leases of one collector tag. A queued job sits in exactly one queue: the free
 * queue when it has no affinity, otherwise the queue of its affinity collector. Cancelled jobs stay in
 * their queue until a claim reaches and skips them. A queued job that needs GPUs sits in the queue of its GPU
 * count instead, whatever its affinity.
 */
final class Pool {
  static final Comparator<JobRow> BY_ID = (a, b) -> Long.compare(a.id, b.id);

  final ClaimQueue free = new ClaimQueue();
  final Map<String, ClaimQueue> affine = new HashMap<>();
  final LeaseHeap leases = new LeaseHeap();
  /** The queued jobs that need GPUs, one queue per GPU count. */
  final TreeMap<Integer, ClaimQueue> gpuQueues = new TreeMap<>();
  /** The collectors of the tag that advertise devices, by name. */
  final TreeMap<String, CollectorRow> hosts = new TreeMap<>();
  /** The live leases and queued jobs per cadence, kept up to date for the fleet shares. */
  final ShareLedger ledger;
  /** The reservation the pool kept from its last claim of a host (its job may have left the queue since). */
  DevicePlacement.@Nullable KeptReservation kept;

  Pool(String tag) {
    ledger = new ShareLedger(tag);
  }
}
