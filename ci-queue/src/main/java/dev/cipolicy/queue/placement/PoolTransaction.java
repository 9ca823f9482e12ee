package dev.cipolicy.queue.placement;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.JobId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One claim's access to the storage of one pool (collector tag), inside the store's own transaction or under
 * its lock: the storage primitives a store supplies so that {@link PoolClaimer} can apply the placement,
 * reservation and fleet-share rules once for every store. A store opens one for a claim of a host of the
 * pool, hands it to the claimer, and commits (or, when {@link #lease} reports a stale snapshot, runs the claim
 * again). It holds no rule: which job is placed where, and which host is reserved for whom, is the claimer's.
 */
public interface PoolTransaction {

  /**
   * A queued job of the pool that needs GPUs, as a claim reads it.
   *
   * @param candidate the job, its GPU count and estimate
   * @param cadence its cadence, empty for none
   */
  record QueuedGpuJob(DevicePlacement.Candidate candidate, String cadence) {

    /** Checks the components. */
    public QueuedGpuJob {
      Checks.present(candidate, "queued GPU job");
      Checks.present(cadence, "queued GPU job cadence");
    }

    /**
     * A queued GPU job.
     *
     * @param job the job
     * @param gpus the GPUs it needs, at least 1
     * @param estimate its estimate, zero when unknown
     * @param cadence its cadence, empty for none
     * @return the job
     */
    public static QueuedGpuJob of(JobId job, int gpus, Duration estimate, String cadence) {
      return new QueuedGpuJob(new DevicePlacement.Candidate(job, gpus, estimate), cadence);
    }

    /**
     * The job's id.
     *
     * @return the id
     */
    public JobId job() {
      return candidate.job();
    }

    /**
     * How many GPUs the job needs.
     *
     * @return at least 1
     */
    public int gpus() {
      return candidate.gpus();
    }
  }

  /**
   * The pool.
   *
   * @return the collector tag
   */
  String pool();

  /**
   * The store's now, read once for the claim.
   *
   * @return the instant
   */
  Instant now();

  /**
   * The live hosts of the pool that advertise devices, the claiming collector always among them, each with
   * the live leases on its devices.
   *
   * @return the hosts, in any order
   */
  List<DevicePlacement.Host> hosts();

  /**
   * The fleet shares that cover the pool.
   *
   * @return the shares; {@link FleetShares#none()} when none covers it
   */
  FleetShares shares();

  /**
   * The pool's live leases and queued jobs per cadence, kept current by {@link #lease}. Read only when
   * {@link #shares()} covers the pool.
   *
   * @return the ledger
   */
  ShareLedger ledger();

  /**
   * For each GPU count from 1 to {@code maxGpus}, the oldest queued job of the pool that needs that many GPUs
   * and that {@code offered} accepts (a job it refuses is passed over for the next of its GPU count).
   *
   * @param maxGpus the largest GPU count to read
   * @param offered which jobs may be offered
   * @return at most one job per GPU count, in any order
   */
  List<QueuedGpuJob> oldestQueued(int maxGpus, Predicate<QueuedGpuJob> offered);

  /**
   * For each GPU count from 1 to {@code maxGpus}, the oldest queued job of the pool that needs that many.
   *
   * @param maxGpus the largest GPU count to read
   * @return at most one job per GPU count, in any order
   */
  default List<QueuedGpuJob> oldestQueued(int maxGpus) {
    return oldestQueued(maxGpus, j -> true);
  }

  /**
   * A job of the pool, if it is still queued and needs GPUs.
   *
   * @param job the job
   * @return the queued job, or empty
   */
  Optional<QueuedGpuJob> queued(JobId job);

  /**
   * The reservation the pool kept from its last claim of a host.
   *
   * @return the kept reservation, or null
   */
  DevicePlacement.@Nullable KeptReservation keptReservation();

  /**
   * Records the reservation the pool keeps for its next claim (called only when it changed).
   *
   * @param kept the reservation, or null to keep none
   */
  void keepReservation(DevicePlacement.@Nullable KeptReservation kept);

  /**
   * Leases a queued job of the pool to the claiming collector on the given devices, records the holding, and
   * counts the lease in the {@link #ledger()}. A store whose snapshot turns out stale (the job was cancelled
   * meanwhile) throws its own retry signal and runs the claim again.
   *
   * @param job the job to lease
   * @param devices the devices its lease carries
   * @param expiry the lease's expiry
   * @param estimatedEnd when it is expected to end ({@link DevicePlacement#estimatedEnd})
   * @return the claim
   */
  Claim lease(JobId job, List<Integer> devices, Instant expiry, Instant estimatedEnd);

  /**
   * A queued job of the pool that needs no GPU, as a claim of a pool with fleet shares reads it.
   *
   * @param job the job
   * @param cadence its cadence, empty for none
   */
  record QueuedJob(JobId job, String cadence) {

    /** Checks the components. */
    public QueuedJob {
      Checks.present(job, "queued job");
      Checks.present(cadence, "queued job cadence");
    }
  }

  /**
   * The queued jobs of the pool that need no GPU and that the claiming collector may take, in claim order
   * (its own requeued jobs first, then by id; a job requeued for another live collector is left to that
   * one). Each call starts again from the first; the jobs read by an earlier call that were not leased stay
   * queued where they were.
   *
   * @return the jobs in claim order, read as the caller advances
   */
  java.util.Iterator<QueuedJob> claimOrder();

  /**
   * Leases a queued job that needs no GPU, read from {@link #claimOrder()}, to the claiming collector and
   * counts the lease in the {@link #ledger()}.
   *
   * @param job the job
   * @param expiry the lease's expiry
   * @return the claim, or empty when the job is no longer queued (cancelled meanwhile)
   */
  Optional<Claim> lease(JobId job, Instant expiry);
}
