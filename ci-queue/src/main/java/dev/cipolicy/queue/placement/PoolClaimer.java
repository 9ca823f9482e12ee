package dev.cipolicy.queue.placement;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.JobId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The one claim loop of the queue: what a host (a collector with devices) claims of its pool, job by job, with
 * the placement and reservation rules of {@link DevicePlacement} and the fleet-share rule of
 * {@link ShareLedger}, applied to the storage primitives a store supplies through a {@link PoolTransaction}.
 * Every store claims through it, so a placement, reservation or share rule is written once.
 *
 * <p><b>GPU jobs</b> ({@link #claimGpu}): before each placement the claimer reads the oldest queued job of
 * each GPU count (under fleet shares, the oldest each share admits, borrowing judged against the free devices
 * of the roomiest host), adds the job of the pool's kept reservation while it is still queued and admitted,
 * and recomputes the pool's reservation; then it places the oldest candidate that fits the claimer's free
 * devices and the reservation, and leases it. It stops at the limit or when nothing fits, and records the
 * reservation as it stands after the last placement (a reservation whose job its own share refuses stays kept,
 * dormant).
 *
 * <p><b>Jobs without GPUs in a pool with fleet shares</b> ({@link #claimAdmitted}): one at a time, each the
 * first job in claim order that the shares admit given the leases taken so far.
 */
public final class PoolClaimer {

  private PoolClaimer() {}

  /**
   * Claims GPU jobs for the claiming host, up to the limit.
   *
   * @param pool the pool's storage for this claim
   * @param claimer the claiming collector (a host of the pool)
   * @param limit the most jobs to claim, at least 1
   * @param expiry the expiry of the leases it gives
   * @return the claims, in the order they were made
   */
  public static List<Claim> claimGpu(PoolTransaction pool, String claimer, int limit, Instant expiry) {
    Instant now = pool.now();
    List<DevicePlacement.Host> hosts = new ArrayList<>(pool.hosts());
    int largest = DevicePlacement.largestHost(hosts);
    FleetShares shares = pool.shares();
    @Nullable ShareLedger ledger = shares.covers(pool.pool()) ? pool.ledger() : null;
    DevicePlacement.@Nullable KeptReservation stored = pool.keptReservation();
    DevicePlacement.@Nullable KeptReservation kept = stored;
    List<Claim> claims = new ArrayList<>();
    while (true) {
      int mostFree = DevicePlacement.mostFree(hosts);
      List<PoolTransaction.QueuedGpuJob> offered;
      if (ledger == null) {
        offered = pool.oldestQueued(largest);
      } else {
        ShareLedger counted = ledger;
        offered = pool.oldestQueued(largest, j -> admits(counted, shares, j, mostFree));
      }
      List<DevicePlacement.Candidate> candidates = new ArrayList<>(offered.size() + 1);
      for (PoolTransaction.QueuedGpuJob j : offered) {
        candidates.add(j.candidate());
      }
      PoolTransaction.@Nullable QueuedGpuJob holder = kept == null ? null : pool.queued(kept.job()).orElse(null);
      boolean heldBack = holder != null && ledger != null && !admits(ledger, shares, holder, mostFree);
      if (holder != null && !heldBack && !candidates.contains(holder.candidate())) {
        candidates.add(holder.candidate());
      }
      // The reservation as it stands before each placement, and after the last one: what the pool keeps (a
      // reservation whose job its share now refuses stays kept, dormant).
      kept = DevicePlacement.keep(kept, heldBack, DevicePlacement.reservation(hosts, candidates, now, kept));
      if (claims.size() >= limit) {
        break;
      }
      Optional<DevicePlacement.Placement> placement = DevicePlacement.place(hosts, claimer, candidates, now, kept);
      if (placement.isEmpty()) {
        break;
      }
      DevicePlacement.Candidate chosen = candidate(candidates, placement.get().job());
      Instant end = DevicePlacement.estimatedEnd(now, chosen.estimate(), expiry);
      claims.add(pool.lease(chosen.job(), placement.get().devices(), expiry, end));
      hosts = withHolding(hosts, claimer, new DevicePlacement.Holding(chosen.job(), placement.get().devices(), end));
    }
    if (!Objects.equals(kept, stored)) {
      pool.keepReservation(kept);
    }
    return claims;
  }

  /**
   * Claims jobs that need no GPU in a pool that fleet shares cover, up to the limit: one at a time, each the
   * first job in claim order that the shares admit given the leases taken so far.
   *
   * @param pool the pool's storage for this claim
   * @param limit the most jobs to claim in all, counting {@code claims}
   * @param expiry the expiry of the leases it gives
   * @param claims the claims this claim made already (its GPU jobs); the new ones are added to it
   * @return {@code claims}
   */
  public static List<Claim> claimAdmitted(PoolTransaction pool, int limit, Instant expiry, List<Claim> claims) {
    FleetShares shares = pool.shares();
    ShareLedger ledger = pool.ledger();
    while (claims.size() < limit) {
      @Nullable Claim got = null;
      for (Iterator<PoolTransaction.QueuedJob> it = pool.claimOrder(); got == null && it.hasNext(); ) {
        PoolTransaction.QueuedJob j = it.next();
        if (ledger.refusal(shares, j.cadence(), 0, Integer.MAX_VALUE).isEmpty()) {
          got = pool.lease(j.job(), expiry).orElse(null);
        }
      }
      if (got == null) {
        break;
      }
      claims.add(got);
    }
    return claims;
  }

  private static boolean admits(ShareLedger ledger, FleetShares shares, PoolTransaction.QueuedGpuJob job,
      int mostFree) {
    return ledger.refusal(shares, job.cadence(), job.gpus(), mostFree).isEmpty();
  }

  private static DevicePlacement.Candidate candidate(List<DevicePlacement.Candidate> candidates, JobId job) {
    for (DevicePlacement.Candidate c : candidates) {
      if (c.job().equals(job)) {
        return c;
      }
    }
    throw new IllegalStateException("placed job " + job.value() + " is not a candidate");
  }

  /** The hosts with one more holding on the claimer. */
  private static List<DevicePlacement.Host> withHolding(List<DevicePlacement.Host> hosts, String claimer,
      DevicePlacement.Holding holding) {
    List<DevicePlacement.Host> out = new ArrayList<>(hosts.size());
    for (DevicePlacement.Host h : hosts) {
      if (h.name().equals(claimer)) {
        List<DevicePlacement.Holding> held = new ArrayList<>(h.holdings());
        held.add(holding);
        out.add(new DevicePlacement.Host(h.name(), h.devices(), held));
      } else {
        out.add(h);
      }
    }
    return out;
  }
}
