package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.placement.ShareLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The claimable jobs and the leases of one collector tag, and the storage operations on them that the
 * in-memory store runs under its lock. A queued job sits in exactly one queue: the free queue when it has no
 * affinity, otherwise the queue of its affinity collector. Cancelled jobs stay in their queue until a claim
 * reaches and skips them. A queued job that needs GPUs sits in the queue of its GPU count instead, whatever its
 * affinity.
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

  /** The live hosts of the pool (the claimer always among them) with their usable devices and live holdings. */
  List<DevicePlacement.Host> hosts(@Nullable CollectorRow claimer, Instant now, Duration timeout) {
    List<DevicePlacement.Host> out = new ArrayList<>(hosts.size());
    for (CollectorRow host : hosts.values()) {
      if (host == claimer || host.isLiveAt(now, timeout)) {
        List<DevicePlacement.Holding> holdings = new ArrayList<>(host.holdings.size());
        for (JobRow held : host.holdings.values()) {
          if (held.leaseExpiry.isAfter(now)) {
            holdings.add(new DevicePlacement.Holding(held.job.id(), held.job.lease().orElseThrow().devices(),
                held.estimatedEnd));
          }
        }
        out.add(new DevicePlacement.Host(host.name, host.usable, holdings));
      }
    }
    return out;
  }

  /** Leases a row that was taken out of its queue, on the given devices (none for a job without GPUs). */
  Claim lease(JobRow row, long token, String collector, Instant now, Instant expiry, List<Integer> devices) {
    Lease lease = devices.isEmpty() ? row.job.nextLease(token, expiry, collector)
        : row.job.nextLease(token, expiry, collector, devices);
    row.job = row.job.claimed(lease);
    row.attemptStarted(lease, now);
    ledger.claimed(row.job.spec());
    row.leaseExpiry = expiry;
    leases.add(row);
    return new Claim(row.job, lease);
  }

  /**
   * Removes and returns the next job without GPUs the collector may claim, or null: its own requeued jobs
   * first, then the oldest of the free queue and of the queues of collectors that are no longer live.
   */
  @Nullable JobRow next(String collector, Instant now, Duration timeout, Map<String, CollectorRow> collectors) {
    ClaimQueue own = affine.get(collector);
    if (own != null) {
      JobRow row = peekQueued(own);
      if (row != null) {
        own.poll();
        return row;
      }
      affine.remove(collector);
    }
    ClaimQueue best = null;
    JobRow bestRow = peekQueued(free);
    if (bestRow != null) {
      best = free;
    }
    for (Map.Entry<String, ClaimQueue> entry : affine.entrySet()) {
      ClaimQueue queue = entry.getValue();
      if (queue.isEmpty()) {
        continue;
      }
      CollectorRow other = collectors.get(entry.getKey());
      if (other != null && other.isLiveAt(now, timeout)) {
        continue;
      }
      JobRow row = peekQueued(queue);
      if (row != null && (bestRow == null || row.id < bestRow.id)) {
        best = queue;
        bestRow = row;
      }
    }
    if (best == null) {
      return null;
    }
    best.poll();
    return bestRow;
  }

  /** The first still-queued row of a claim queue, dropping the cancelled rows before it. */
  static @Nullable JobRow peekQueued(ClaimQueue queue) {
    JobRow row = queue.peek();
    while (row != null && row.job.state() != JobState.QUEUED) {
      queue.poll();
      row = queue.peek();
    }
    return row;
  }

  /** Counts a row that became queued and puts it in its claim queue. */
  static void enqueue(JobRow row) {
    row.pool.ledger.queued(row.job.spec());
    place(row);
  }

  /** Puts a queued row in the claim queue its GPU count or affinity gives. */
  static void place(JobRow row) {
    Optional<String> affinity = row.job.affinity();
    int gpus = row.job.spec().gpus();
    if (gpus > 0) {
      row.pool.gpuQueues.computeIfAbsent(gpus, n -> new ClaimQueue()).add(row);
    } else if (affinity.isPresent()) {
      row.pool.affine.computeIfAbsent(affinity.get(), c -> new ClaimQueue()).add(row);
    } else {
      row.pool.free.add(row);
    }
  }

  /** Frees the devices a row's lease holds, if any. */
  static void freeDevices(JobRow row) {
    CollectorRow host = row.host;
    if (host != null) {
      host.holdings.remove(row.id);
      row.host = null;
    }
  }

  /** Takes a row out of the lease heap, frees its devices and uncounts its lease. */
  void endLease(JobRow row) {
    leases.remove(row);
    freeDevices(row);
    ledger.unleased(row.job.spec());
  }

  /**
   * Processes the expired leases of the pool: a job flagged for cancellation is cancelled, one within its crash
   * budget is queued again, any other fails. Collects the changed jobs (rescued, failed, cancelled) when
   * {@code changes} is given.
   */
  void expire(Instant now, int maxCrashRescues, @Nullable List<List<Job>> changes) {
    while (!leases.isEmpty() && !leases.peek().leaseExpiry.isAfter(now)) {
      JobRow row = leases.poll();
      freeDevices(row);
      ledger.unleased(row.job.spec());
      Job job = row.job;
      Lease lease = job.lease().orElseThrow();
      int list;
      if (job.cancelRequested()) {
        row.finish(job.cancelled(now));
        list = 2;
      } else if (job.crashRescues() < maxCrashRescues) {
        row.job = job.rescued();
        enqueue(row);
        list = 0;
      } else {
        row.finish(job.failed(JobFailure.crashBudgetExhausted(lease.collector(), job.crashRescues(),
            lease.expiresAt(), now)));
        list = 1;
      }
      row.attemptEnded(job, now);
      if (changes != null) {
        changes.get(list).add(row.job);
      }
    }
  }

  /**
   * The view of a tag's pool from all the store's job rows: its queued jobs, the live leases its shares count,
   * its live hosts and its kept reservation ({@code pool} is null for a tag no collector with devices or job
   * has used yet).
   */
  static PoolView view(String tag, @Nullable Pool pool, List<JobRow> rows, Instant now, List<String> liveCollectors,
      Duration collectorTimeout, FleetShares shares) {
    List<Job> queued = new ArrayList<>();
    List<JobSpec> queuedSpecs = new ArrayList<>();
    List<JobSpec> live = new ArrayList<>();
    for (JobRow row : rows) {
      if (row.purged || !row.job.spec().collectorTag().equals(tag)) {
        continue;
      }
      if (row.job.state() == JobState.QUEUED) {
        queued.add(row.job);
        queuedSpecs.add(row.job.spec());
      } else if (row.job.state() == JobState.LEASED && row.job.lease().orElseThrow().isLiveAt(now)) {
        live.add(row.job.spec());
      }
    }
    List<DevicePlacement.Host> hosts = pool == null ? List.of() : pool.hosts(null, now, collectorTimeout);
    return DevicePlacement.view(tag, now, queued, hosts, liveCollectors, shares,
        ShareLedger.of(tag, live, queuedSpecs), pool == null ? null : pool.kept);
  }
}
