package dev.cipolicy.fleet.server;

import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.placement.PoolView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * When each waiting job of a pool is expected to start, by a forward simulation of the pool's live hosts read
 * from the store's own {@link PoolView}: every device is free from now, or from its holder's estimated end as
 * the store records it (an overdue holder ends now). The job holding the pool's reservation starts at the
 * reservation's own instant (never recomputed, so the GPU panel and the waiting jobs show the same instant) and
 * is placed first, after the jobs the store says a claim takes now (they start now, on the host it names);
 * then the other jobs, in queue order (by job id), each on the host where enough devices free up first (ties by
 * host name), holding them for its expected run time. No backfill is simulated, so a start is
 * an upper bound when estimates hold. A job without GPUs that a live collector may claim starts now.
 *
 * <p>A job gets no start, but a reason, when its pool has no live collector (or no live host with devices),
 * when no live host is large enough, when its fleet share is full (when the cadence's other jobs end is not
 * simulated), or when every host it could run on waits for a job ahead of it that has no estimate.
 */
final class WaitingStarts {
  private WaitingStarts() {}

  /**
   * A waiting job's expected start: an instant, or why there is none.
   *
   * @param at the instant, or null when unknown
   * @param unknownBecause why it is unknown (a plain sentence), or null when {@code at} is known
   */
  record Start(@Nullable Instant at, @Nullable String unknownBecause) {

    /** Checks that exactly one of the two is present. */
    public Start {
      if ((at == null) == (unknownBecause == null)) {
        throw new IllegalArgumentException("a start has either an instant or a reason it is unknown");
      }
    }

    static Start at(Instant at) {
      return new Start(at, null);
    }

    static Start unknown(String because) {
      return new Start(null, because);
    }
  }

  /** A host's devices in the simulation: when each is free, and the job with no estimate that holds it, if any. */
  private static final class SimHost {
    final String name;
    final Instant[] freeAt;
    final JobId[] blocker;

    SimHost(DevicePlacement.Host h, Instant now) {
      this.name = h.name();
      List<Integer> indices = new ArrayList<>(h.devices().indices());
      this.freeAt = new Instant[indices.size()];
      this.blocker = new JobId[indices.size()];
      Arrays.fill(freeAt, now);
      for (DevicePlacement.Holding x : h.holdings()) {
        Instant end = x.estimatedEnd().isBefore(now) ? now : x.estimatedEnd();
        for (int d : x.devices()) {
          int i = indices.indexOf(d);
          if (i >= 0) {
            freeAt[i] = end;
          }
        }
      }
    }

    /** The instant {@code n} devices are free, or null when it is not larger than n. */
    @Nullable Instant freeFor(int n) {
      if (n > freeAt.length) {
        return null;
      }
      Instant[] sorted = freeAt.clone();
      Arrays.sort(sorted);
      return sorted[n - 1];
    }

    /** The job without an estimate that keeps {@code n} devices from freeing up, or null. */
    @Nullable JobId blockerFor(int n) {
      Integer[] order = order();
      return blocker[order[n - 1]];
    }

    /** Holds the {@code n} earliest-free devices until {@code end} (null: no estimate). */
    void hold(int n, @Nullable Instant end, JobId job) {
      Integer[] order = order();
      for (int k = 0; k < n; k++) {
        int i = order[k];
        freeAt[i] = end == null ? Instant.MAX : end;
        blocker[i] = end == null ? job : null;
      }
    }

    private Integer[] order() {
      Integer[] order = new Integer[freeAt.length];
      for (int i = 0; i < order.length; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> freeAt[a].compareTo(freeAt[b]));
      return order;
    }
  }

  /**
   * The expected start of every waiting job of a pool.
   *
   * @param view the store's view of the pool
   * @param expectedSeconds how long a job is expected to run, in seconds; 0 or less when it has no estimate
   * @return the start of each job of {@code view.waits()}, by job id, in the order of the waits
   */
  static Map<JobId, Start> of(PoolView view, ToDoubleFunction<JobSpec> expectedSeconds) {
    Instant now = view.at();
    List<SimHost> hosts = new ArrayList<>();
    int largest = 0;
    for (DevicePlacement.Host h : view.hosts()) {
      hosts.add(new SimHost(h, now));
      largest = Math.max(largest, h.devices().size());
    }
    hosts.sort((a, b) -> a.name.compareTo(b.name));
    Optional<DevicePlacement.Reservation> reservation = view.reservation();
    List<JobWait> order = new ArrayList<>(view.waits());
    order.sort(Comparator.comparingInt((JobWait w) -> rank(w, reservation)).thenComparing(w -> w.job().id()));
    Map<JobId, Start> starts = new java.util.HashMap<>();
    for (JobWait w : order) {
      starts.put(w.job().id(), start(w, view, hosts, largest, now, reservation, expectedSeconds));
    }
    Map<JobId, Start> out = new LinkedHashMap<>();
    for (JobWait w : view.waits()) {
      out.put(w.job().id(), starts.get(w.job().id()));
    }
    return out;
  }

  /** Claimable jobs are placed first (they start at the next claim), then the reserved job, then the others. */
  private static int rank(JobWait w, Optional<DevicePlacement.Reservation> reservation) {
    return w.reason().kind() == WaitReason.Kind.CLAIMABLE ? 0 : reserved(w, reservation) ? 1 : 2;
  }

  private static boolean reserved(JobWait w, Optional<DevicePlacement.Reservation> r) {
    return r.isPresent() && r.get().job().equals(w.job().id())
        && w.reason().kind() == WaitReason.Kind.RESERVED_FOR_IT;
  }

  private static Start start(JobWait w, PoolView view, List<SimHost> hosts, int largest, Instant now,
      Optional<DevicePlacement.Reservation> reservation, ToDoubleFunction<JobSpec> expectedSeconds) {
    WaitReason reason = w.reason();
    int n = w.job().spec().gpus();
    String pool = view.pool();
    switch (reason.kind()) {
      case SHARE_FULL:
        return Start.unknown("its cadence's fleet share of pool " + pool + " is full; it starts when enough of"
            + " the cadence's running jobs end");
      case NO_LIVE_COLLECTOR:
        return Start.unknown("pool " + pool + " has no live collector" + (n == 0 ? "" : " that advertises devices"));
      case NO_HOST_LARGE_ENOUGH:
        return Start.unknown("no live host of pool " + pool + " has " + n + " GPUs (the largest has "
            + reason.largestHost().orElse(largest) + ")");
      default:
        break;
    }
    if (n == 0) {
      return view.liveCollectors().isEmpty() ? Start.unknown("pool " + pool + " has no live collector")
          : Start.at(now);
    }
    if (hosts.isEmpty()) {
      return Start.unknown("pool " + pool + " has no live collector that advertises devices");
    }
    if (n > largest) {
      return Start.unknown("no live host of pool " + pool + " has " + n + " GPUs (the largest has " + largest + ")");
    }
    Duration run = duration(expectedSeconds.applyAsDouble(w.job().spec()));
    if (reserved(w, reservation)) {
      DevicePlacement.Reservation r = reservation.get();
      Instant at = r.until();
      for (SimHost h : hosts) {
        if (h.name.equals(r.host())) {
          h.hold(n, run == null ? null : at.plus(run), w.job().id());
        }
      }
      return Start.at(at);
    }
    SimHost best = null;
    Instant bestAt = Instant.MAX;
    if (reason.kind() == WaitReason.Kind.CLAIMABLE && reason.host().isPresent()) {
      // The store says a host has enough free devices for it now: the next claim of that host takes it.
      for (SimHost h : hosts) {
        if (h.name.equals(reason.host().get())) {
          best = h;
          bestAt = now;
        }
      }
    }
    if (best == null) {
      for (SimHost h : hosts) {
        Instant at = h.freeFor(n);
        if (at != null && at.isBefore(bestAt)) {
          best = h;
          bestAt = at;
        }
      }
    }
    if (best == null) {
      JobId blocker = null;
      for (SimHost h : hosts) {
        if (h.freeFor(n) != null && blocker == null) {
          blocker = h.blockerFor(n);
        }
      }
      return Start.unknown("estimate missing: job " + (blocker == null ? "?" : blocker.value())
          + ", ahead of it, has no estimate, so when enough devices free up is unknown");
    }
    Instant start = bestAt.isBefore(now) ? now : bestAt;
    best.hold(n, run == null ? null : start.plus(run), w.job().id());
    return Start.at(start);
  }

  private static @Nullable Duration duration(double seconds) {
    return seconds > 0 && Double.isFinite(seconds) ? Duration.ofMillis(Math.round(seconds * 1000)) : null;
  }
}
