package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.placement.PoolTransaction;
import dev.cipolicy.queue.placement.ShareLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One claim's access to a pool of {@link InMemoryQueueStore}, under the store's lock. Reading past the head
 * of a claim queue takes rows out of it ({@code aside}); they go back in place before the next read and when
 * the claim ends ({@link #putBack}), so a row the claim leases is the head of its queue when it is taken.
 */
final class MemoryPoolTransaction implements PoolTransaction {

  private final InMemoryQueueStore store;
  private final Pool pool;
  private final CollectorRow claimer;
  private final Instant now;
  private final Duration collectorTimeout;
  private final FleetShares shares;
  /** The rows this claim read, by job. */
  private final Map<JobId, JobRow> read = new HashMap<>();
  /** Rows taken out of their claim queue by this claim's reads, to be put back. */
  private final List<JobRow> aside = new ArrayList<>();

  MemoryPoolTransaction(InMemoryQueueStore store, Pool pool, CollectorRow claimer, Instant now,
      Duration collectorTimeout, FleetShares shares) {
    this.store = store;
    this.pool = pool;
    this.claimer = claimer;
    this.now = now;
    this.collectorTimeout = collectorTimeout;
    this.shares = shares;
  }

  @Override
  public String pool() {
    return claimer.tag;
  }

  @Override
  public Instant now() {
    return now;
  }

  @Override
  public List<DevicePlacement.Host> hosts() {
    return pool.hosts(claimer, now, collectorTimeout);
  }

  @Override
  public FleetShares shares() {
    return shares;
  }

  @Override
  public ShareLedger ledger() {
    return pool.ledger;
  }

  @Override
  public List<QueuedGpuJob> oldestQueued(int maxGpus, Predicate<QueuedGpuJob> offered) {
    putBack();
    List<QueuedGpuJob> out = new ArrayList<>(pool.gpuQueues.size());
    var it = pool.gpuQueues.headMap(maxGpus, true).values().iterator();
    while (it.hasNext()) {
      ClaimQueue queue = it.next();
      JobRow row = Pool.peekQueued(queue);
      if (row == null) {
        it.remove();
        continue;
      }
      QueuedGpuJob job = queued(row);
      while (!offered.test(job)) {
        queue.poll();
        aside.add(row);
        row = Pool.peekQueued(queue);
        if (row == null) {
          break;
        }
        job = queued(row);
      }
      if (row != null) {
        out.add(job);
        read.put(job.job(), row);
      }
    }
    return out;
  }

  @Override
  public Optional<QueuedGpuJob> queued(JobId job) {
    JobRow row = store.row(job);
    if (row == null || row.job.state() != JobState.QUEUED || row.job.spec().gpus() == 0
        || !row.job.spec().collectorTag().equals(claimer.tag)) {
      return Optional.empty();
    }
    read.put(job, row);
    return Optional.of(queued(row));
  }

  @Override
  public DevicePlacement.@Nullable KeptReservation keptReservation() {
    return pool.kept;
  }

  @Override
  public void keepReservation(DevicePlacement.@Nullable KeptReservation kept) {
    pool.kept = kept;
  }

  @Override
  public Claim lease(JobId job, List<Integer> devices, Instant expiry, Instant estimatedEnd) {
    JobRow row = Objects.requireNonNull(read.get(job), "a leased job was read by the claim");
    ClaimQueue queue = pool.gpuQueues.get(row.job.spec().gpus());
    if (queue != null && queue.peek() == row) {
      queue.poll();
    } // else the kept reservation's job, behind older ones: its entry is dropped once reached, as it is leased
    Claim claim = pool.lease(row, store.nextToken(), claimer.name, now, expiry, devices);
    row.host = claimer;
    row.estimatedEnd = estimatedEnd;
    claimer.holdings.put(row.id, row);
    return claim;
  }

  @Override
  public Iterator<QueuedJob> claimOrder() {
    putBack();
    return new Iterator<>() {
      /** The row read ahead by {@link #hasNext}, not yet returned. */
      private @Nullable JobRow pending;
      private boolean done;

      @Override
      public boolean hasNext() {
        if (pending == null && !done) {
          pending = store.next(pool, claimer.name, now, collectorTimeout);
          if (pending == null) {
            done = true;
          } else {
            aside.add(pending);
            read.put(pending.job.id(), pending);
          }
        }
        return pending != null;
      }

      @Override
      public QueuedJob next() {
        JobRow row = hasNext() ? pending : null;
        if (row == null) {
          throw new NoSuchElementException();
        }
        pending = null;
        return new QueuedJob(row.job.id(), row.job.spec().cadence());
      }
    };
  }

  @Override
  public Optional<Claim> lease(JobId job, Instant expiry) {
    JobRow row = Objects.requireNonNull(read.get(job), "a leased job was read by the claim");
    if (!aside.remove(row) || row.job.state() != JobState.QUEUED) {
      return Optional.empty();
    }
    return Optional.of(pool.lease(row, store.nextToken(), claimer.name, now, expiry, List.of()));
  }

  /** Puts the rows this claim took out of their queues back in place (they stay queued and counted). */
  void putBack() {
    for (JobRow row : aside) {
      Pool.place(row);
    }
    aside.clear();
  }

  private static QueuedGpuJob queued(JobRow row) {
    JobSpec spec = row.job.spec();
    return QueuedGpuJob.of(row.job.id(), spec.gpus(), spec.estimate(), spec.cadence());
  }
}
