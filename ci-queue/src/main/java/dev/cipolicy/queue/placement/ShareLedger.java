package dev.cipolicy.queue.placement;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.WaitReason;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the jobs of one pool hold and wait for, per cadence, and the one rule every store applies to it to
 * decide whether a {@link FleetShares fleet share} admits a job: the live leases of each cadence (runners and
 * GPUs held) and the queued jobs of each cadence (the empty cadence counting the jobs without one). A store
 * builds it from the same snapshot its claim places from, or keeps it up to date as leases start and end; a
 * claim records each job it leases ({@link #claimed}) before it decides on the next. Not thread-safe: a store
 * uses it under its own lock or inside its claim transaction.
 *
 * <p><b>The rule.</b> A job of cadence {@code c} whose cadence has a share {@code s} of the pool is admitted
 * when either
 * <ul>
 *   <li>{@code held(c) + cost <= s.amount()}, where {@code held(c)} counts the cadence's live leases in the
 *       pool in the share's unit (one per lease for runners, the job's GPU budget for GPUs) and {@code cost}
 *       is the job's ({@link FleetShares.Share#cost}); or
 *   <li>the share borrows and no other cadence waits for the pool: no queued job of the pool has another
 *       cadence (or none) whose holding is under its own amount. A cadence without a share of the pool, and
 *       the jobs without a cadence, always count as under. So borrowed capacity is given back: while another
 *       cadence waits, the borrowing cadence is claimed no job beyond its amount, and once its leases end it
 *       is back within it. Leases are never taken away.
 * </ul>
 * Any other job (no cadence, or no share of the pool) is always admitted.
 *
 * <p><b>Borrowing devices.</b> For a job that needs GPUs, a queued job of another cadence counts as waiting
 * only when it could use idle devices now: it needs no GPU, or no more than the free devices of the pool's
 * roomiest live host ({@code mostFree}, which the store passes from the hosts its placement reads). A job
 * that fits on no host's free devices waits for a host to drain, not for idle devices; the pool's reservation
 * ({@link DevicePlacement}) is what keeps a host draining for it, and borrowing jobs backfill around that
 * reservation like any other. For a job that needs no GPU every waiting job of another cadence counts.
 */
public final class ShareLedger {

  private final String pool;
  /** Per cadence: live leases (runners) and GPUs they hold. */
  private final Map<String, int[]> held = new HashMap<>();
  /** Per cadence, the empty one for none: queued jobs. */
  private final Map<String, Integer> queued = new HashMap<>();
  /** Per cadence, the empty one for none: queued jobs by the GPUs they need (index 0 to MAX_GPUS). */
  private final Map<String, int[]> queuedByGpus = new HashMap<>();

  /**
   * An empty ledger.
   *
   * @param pool the pool it counts
   */
  public ShareLedger(String pool) {
    this.pool = Checks.token(pool, "ledger pool");
  }

  /**
   * A ledger of a snapshot of a pool.
   *
   * @param pool the pool
   * @param live the specs of the pool's jobs with a live lease
   * @param waiting the specs of the pool's queued jobs
   * @return the ledger
   */
  public static ShareLedger of(String pool, Collection<JobSpec> live, Collection<JobSpec> waiting) {
    ShareLedger ledger = new ShareLedger(pool);
    for (JobSpec s : live) {
      ledger.leased(s);
    }
    for (JobSpec s : waiting) {
      ledger.queued(s);
    }
    return ledger;
  }

  /**
   * The pool it counts.
   *
   * @return the pool
   */
  public String pool() {
    return pool;
  }

  /**
   * Counts a lease that started.
   *
   * @param spec its job
   */
  public void leased(JobSpec spec) {
    if (spec.hasCadence()) {
      int[] h = held.computeIfAbsent(spec.cadence(), c -> new int[2]);
      h[0]++;
      h[1] += spec.gpus();
    }
  }

  /**
   * Uncounts a lease that ended.
   *
   * @param spec its job
   */
  public void unleased(JobSpec spec) {
    if (spec.hasCadence()) {
      int[] h = held.get(spec.cadence());
      if (h != null) {
        h[0]--;
        h[1] -= spec.gpus();
        if (h[0] <= 0) {
          held.remove(spec.cadence());
        }
      }
    }
  }

  /**
   * Counts a job that became queued.
   *
   * @param spec the job
   */
  public void queued(JobSpec spec) {
    queued.merge(spec.cadence(), 1, Integer::sum);
    queuedByGpus.computeIfAbsent(spec.cadence(), c -> new int[JobSpec.MAX_GPUS + 1])[spec.gpus()]++;
  }

  /**
   * Uncounts a job that is no longer queued.
   *
   * @param spec the job
   */
  public void unqueued(JobSpec spec) {
    if (queued.computeIfPresent(spec.cadence(), (c, n) -> n <= 1 ? null : n - 1) == null) {
      queuedByGpus.remove(spec.cadence());
    } else {
      int[] byGpus = queuedByGpus.get(spec.cadence());
      if (byGpus != null && byGpus[spec.gpus()] > 0) {
        byGpus[spec.gpus()]--;
      }
    }
  }

  /**
   * Records a claim: the job is no longer queued and holds a lease.
   *
   * @param spec the claimed job
   */
  public void claimed(JobSpec spec) {
    unqueued(spec);
    leased(spec);
  }

  /**
   * What a cadence's live leases in the pool hold.
   *
   * @param cadence the cadence
   * @param unit the unit
   * @return leases (runners) or GPUs
   */
  public int held(String cadence, FleetShares.Unit unit) {
    int[] h = held.get(cadence);
    return h == null ? 0 : h[unit == FleetShares.Unit.RUNNERS ? 0 : 1];
  }

  /**
   * Whether the shares admit a lease on the job now (the rule of this class).
   *
   * @param shares the store's shares
   * @param spec a queued job of the pool
   * @return true when it may be claimed
   */
  public boolean admits(FleetShares shares, JobSpec spec) {
    return refusal(shares, spec).isEmpty();
  }

  /**
   * Whether the shares admit a lease on the job now, a job that needs GPUs borrowing only devices no other
   * cadence's waiting job could use (see the class comment).
   *
   * @param shares the store's shares
   * @param spec a queued job of the pool
   * @param mostFree the free devices of the pool's roomiest live host now (0 when it has none)
   * @return true when it may be claimed
   */
  public boolean admits(FleetShares shares, JobSpec spec, int mostFree) {
    return refusal(shares, spec, mostFree).isEmpty();
  }

  /**
   * Why the shares refuse the job, if they do: {@link WaitReason.Kind#SHARE_FULL} with a sentence such as
   * "cadence weekly holds 1 of 1 runner of pool h200".
   *
   * @param shares the store's shares
   * @param spec a queued job of the pool
   * @return the reason, or empty when it is admitted
   */
  public Optional<WaitReason> refusal(FleetShares shares, JobSpec spec) {
    return refusal(shares, spec, Integer.MAX_VALUE);
  }

  /**
   * Why the shares refuse the job, if they do, a job that needs GPUs borrowing only devices no other
   * cadence's waiting job could use: the waiting jobs of other cadences that need more than {@code mostFree}
   * GPUs do not stop it from borrowing (see the class comment).
   *
   * @param shares the store's shares
   * @param spec a queued job of the pool
   * @param mostFree the free devices of the pool's roomiest live host now (0 when it has none); ignored for a
   *     job that needs no GPU
   * @return the reason, or empty when it is admitted
   */
  public Optional<WaitReason> refusal(FleetShares shares, JobSpec spec, int mostFree) {
    return refusal(shares, spec.cadence(), spec.gpus(), mostFree);
  }

  /**
   * Why the shares refuse a job of the pool with this cadence and GPU budget, if they do (the rule of this
   * class; the forms that take a {@link JobSpec} read these two fields of it).
   *
   * @param shares the store's shares
   * @param cadence the job's cadence, empty for none
   * @param gpus the GPUs the job needs
   * @param mostFree the free devices of the pool's roomiest live host now (0 when it has none); ignored for a
   *     job that needs no GPU
   * @return the reason, or empty when it is admitted
   */
  public Optional<WaitReason> refusal(FleetShares shares, String cadence, int gpus, int mostFree) {
    if (cadence.isEmpty()) {
      return Optional.empty();
    }
    Optional<FleetShares.Share> found = shares.share(cadence, pool);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    FleetShares.Share s = found.get();
    int have = held(s.cadence(), s.unit());
    int cost = s.cost(gpus);
    if ((long) have + cost <= s.amount()) {
      return Optional.empty();
    }
    if (s.borrow() && !othersWaiting(shares, s.cadence(), gpus == 0 ? Integer.MAX_VALUE : mostFree)) {
      return Optional.empty();
    }
    return Optional.of(WaitReason.of(WaitReason.Kind.SHARE_FULL, pool, gpus).share(s).held(have).build());
  }

  /**
   * Whether another cadence waits for the pool: some queued job of the pool has another cadence (or none)
   * that holds less than its own amount, or has no share of the pool.
   *
   * @param shares the store's shares
   * @param cadence the cadence that would borrow
   * @return true when borrowing is refused
   */
  public boolean othersWaiting(FleetShares shares, String cadence) {
    return othersWaiting(shares, cadence, Integer.MAX_VALUE);
  }

  /**
   * Whether another cadence waits for idle devices of the pool: some queued job of the pool that needs no GPU,
   * or no more than {@code mostFree}, has another cadence (or none) that holds less than its own amount, or
   * has no share of the pool.
   *
   * @param shares the store's shares
   * @param cadence the cadence that would borrow
   * @param mostFree the free devices of the pool's roomiest live host now; {@link Integer#MAX_VALUE} to count
   *     every waiting job
   * @return true when borrowing is refused
   */
  public boolean othersWaiting(FleetShares shares, String cadence, int mostFree) {
    for (Map.Entry<String, Integer> e : queued.entrySet()) {
      String other = e.getKey();
      if (other.equals(cadence) || e.getValue() <= 0 || !anyFits(other, mostFree)) {
        continue;
      }
      if (other.isEmpty()) {
        return true;
      }
      Optional<FleetShares.Share> theirs = shares.share(other, pool);
      if (theirs.isEmpty() || held(other, theirs.get().unit()) < theirs.get().amount()) {
        return true;
      }
    }
    return false;
  }

  /** Whether a queued job of the cadence needs no more than {@code mostFree} GPUs. */
  private boolean anyFits(String cadence, int mostFree) {
    int[] byGpus = queuedByGpus.get(cadence);
    if (byGpus == null) {
      return false;
    }
    for (int g = 0, top = Math.min(JobSpec.MAX_GPUS, Math.max(0, mostFree)); g <= top; g++) {
      if (byGpus[g] > 0) {
        return true;
      }
    }
    return false;
  }
}
