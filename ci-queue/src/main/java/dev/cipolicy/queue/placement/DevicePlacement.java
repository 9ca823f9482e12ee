package dev.cipolicy.queue.placement;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.Precision;
import dev.cipolicy.queue.model.WaitReason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The placement rules of GPU jobs, one pure function that every store applies to the same snapshot of a pool,
 * so that every store leases the same devices to the same job: which queued GPU job a collector (a host)
 * claims, which of its devices the lease carries, and which host is reserved for the job at the head of the
 * pool when it fits nowhere.
 *
 * <p><b>Candidates.</b> A store offers, per GPU count, the oldest queued job of the pool (its tag) that needs
 * that many GPUs; the head of the pool is the oldest candidate some host of the pool is large enough for.
 * A job larger than every host of the pool is never placed (and never blocks the others).
 *
 * <p><b>Reservation.</b> When the head fits on no host's free devices now, the store reserves the host that
 * frees enough devices soonest, reading the holders' estimated ends (an overdue holder counts as ending now;
 * ties go to the host whose name sorts first). On the reserved host, another job may start only if its
 * estimate is known and it ends by the time the reservation is expected to be satisfied (backfill); other
 * hosts are not restricted. So, with estimates that hold, the head starts within the longest remaining
 * estimate of the reserved host's holders plus one claim interval, whatever stream of smaller jobs arrives.
 *
 * <p><b>Kept reservations.</b> A reservation, once given, stays with its job and its host until the job
 * starts: every claim of a host of the pool records the pool's reservation as it stands after the claim
 * ({@link Reservation#kept()}, or none), and the next placement is given that {@link KeptReservation} back.
 * While its job is still offered (queued, admitted by its fleet share, no larger than the largest live host)
 * it remains the head and its host remains reserved for it (if that host is no longer live, the host that
 * frees enough devices soonest is reserved instead), even when it fits somewhere now and even when an older
 * job becomes eligible meanwhile (released, rescued, or admitted again by its share): that older job may run
 * on any other host, or backfill, and waits for the next reservation otherwise. A job that its own share
 * refuses is not offered, but keeps its reservation dormant ({@link #keep}): meanwhile the head among the
 * offered jobs is reserved for claim by claim, and when the share admits the job again it takes its
 * reservation back.
 *
 * <p><b>Choice.</b> The claimer takes the oldest candidate (by job id) that fits its free devices and the
 * reservation; {@link #choose} picks the devices.
 */
public final class DevicePlacement {

  private DevicePlacement() {}

  /**
   * One live lease on a host's devices.
   *
   * @param job the leased job
   * @param devices the devices it holds
   * @param estimatedEnd when it is expected to end ({@link #estimatedEnd})
   */
  public record Holding(JobId job, List<Integer> devices, Instant estimatedEnd) {

    /** Checks and copies the components. */
    public Holding {
      Checks.present(job, "holding job");
      devices = List.copyOf(Checks.present(devices, "held devices"));
      Checks.present(estimatedEnd, "holding estimated end");
    }
  }

  /**
   * A live collector of a pool with devices, and the live leases on them.
   *
   * @param name the collector
   * @param devices the devices a claim may place on ({@link dev.cipolicy.queue.model.Collector#usableDevices()})
   * @param holdings its live leases on those devices; a lease's devices outside them (held on a device that a
   *     pending inventory removes) are left out, and a lease left with none is not listed
   */
  public record Host(String name, Devices devices, List<Holding> holdings) {

    /** Checks and copies the components, keeping of each holding only the devices among {@code devices}. */
    public Host {
      Checks.token(name, "host name");
      Checks.present(devices, "host devices");
      Checks.present(holdings, "host holdings");
      List<Holding> kept = new ArrayList<>(holdings.size());
      for (Holding h : holdings) {
        Checks.present(h, "host holding");
        if (devices.indices().containsAll(h.devices())) {
          kept.add(h);
        } else {
          List<Integer> on = new ArrayList<>(h.devices());
          on.retainAll(devices.indices());
          if (!on.isEmpty()) {
            kept.add(new Holding(h.job(), on, h.estimatedEnd()));
          }
        }
      }
      holdings = List.copyOf(kept);
    }

    /**
     * The devices held by its leases.
     *
     * @return the held indices
     */
    public Set<Integer> held() {
      Set<Integer> held = new HashSet<>();
      for (Holding h : holdings) {
        held.addAll(h.devices());
      }
      return held;
    }

    /**
     * How many of its devices no lease holds.
     *
     * @return the free count
     */
    public int free() {
      int used = 0;
      for (Holding h : holdings) {
        used += h.devices().size();
      }
      return devices.size() - used;
    }
  }

  /**
   * A queued job that needs GPUs: the oldest of its pool with this GPU count.
   *
   * @param job the job
   * @param gpus how many GPUs it needs, at least 1
   * @param estimate its estimated duration, zero when unknown
   */
  public record Candidate(JobId job, int gpus, Duration estimate) {

    /** Checks the components. */
    public Candidate {
      Checks.present(job, "candidate job");
      Checks.atLeast(gpus, 1, "candidate GPU count");
      Checks.present(estimate, "candidate estimate");
    }
  }

  /**
   * What a claimer takes: a job and the devices its lease carries.
   *
   * @param job the job
   * @param devices the claimer's devices, ascending
   */
  public record Placement(JobId job, List<Integer> devices) {

    /** Checks and copies the components. */
    public Placement {
      Checks.present(job, "placed job");
      devices = List.copyOf(Checks.present(devices, "placed devices"));
    }
  }

  /**
   * The host kept for the head of a pool that fits nowhere now.
   *
   * @param job the head job
   * @param gpus how many GPUs it needs
   * @param host the reserved host
   * @param until when enough of the host's devices are expected to be free
   * @param free how many of the host's devices are free now
   * @param size how many devices the host has
   */
  public record Reservation(JobId job, int gpus, String host, Instant until, int free, int size) {

    /** Checks the components. */
    public Reservation {
      Checks.present(job, "reserved job");
      Checks.token(host, "reserved host");
      Checks.present(until, "reservation instant");
    }

    /**
     * What a store records of this reservation for the pool's next placement.
     *
     * @return its job and host
     */
    public KeptReservation kept() {
      return new KeptReservation(job, host);
    }
  }

  /**
   * The reservation a pool keeps from one claim to the next: the job it was given to and the host reserved
   * for it. A store records the one {@link #reservation(List, List, Instant, KeptReservation)} gives after the
   * last placement of every claim of a host of the pool (or records none), and offers its job as a candidate
   * while that job is queued (and admitted by its share).
   *
   * @param job the job that holds the reservation
   * @param host the host reserved for it
   */
  public record KeptReservation(JobId job, String host) {

    /** Checks the components. */
    public KeptReservation {
      Checks.present(job, "kept reservation job");
      Checks.token(host, "kept reservation host");
    }
  }

  /**
   * What a pool keeps after a placement: the reservation as it then stands ({@code reservation}, or none),
   * except that a kept reservation whose job is still queued but refused by its own fleet share stays kept,
   * dormant. A dormant reservation restricts nothing: its job is no candidate, so the placements and the
   * reservation of the head among the offered jobs ignore it (that head's reservation is recomputed on every
   * claim, not kept). When the job's share admits it again it is offered again and takes its reservation back,
   * ahead of the head that was reserved for meanwhile. So a job that held the reservation of its pool does not
   * lose its turn to a younger job because its cadence was at its share for a while.
   *
   * @param before the reservation the pool kept from its last claim, or null
   * @param heldBack whether {@code before}'s job is still queued and its share refuses it now
   * @param reservation the pool's reservation as it stands now ({@link #reservation(List, List, Instant,
   *     KeptReservation)} given {@code before})
   * @return what the pool keeps, or null
   */
  public static @Nullable KeptReservation keep(@Nullable KeptReservation before, boolean heldBack,
      Optional<Reservation> reservation) {
    if (before != null && heldBack) {
      return before;
    }
    return reservation.map(Reservation::kept).orElse(null);
  }

  /**
   * When a lease is expected to end: its claim plus the job's estimate, or, for a job without an estimate,
   * the expiry the claim gave it.
   *
   * @param claimedAt the claim instant
   * @param estimate the job's estimate, zero when unknown
   * @param leaseExpiry the expiry of the lease as claimed
   * @return the estimated end
   */
  public static Instant estimatedEnd(Instant claimedAt, Duration estimate, Instant leaseExpiry) {
    return estimate.isZero() ? leaseExpiry : Precision.truncate(claimedAt.plus(estimate));
  }

  /**
   * The largest host of the pool.
   *
   * @param hosts the live hosts of the pool
   * @return the most devices one host has, 0 when none
   */
  public static int largestHost(List<Host> hosts) {
    int max = 0;
    for (Host h : hosts) {
      max = Math.max(max, h.devices().size());
    }
    return max;
  }

  /**
   * The free devices of the roomiest of the hosts now: what a waiting job can use at most without waiting
   * for a host to drain ({@link ShareLedger#admits(FleetShares, JobSpec, int)} reads it to decide borrowing).
   *
   * @param hosts the live hosts of the pool
   * @return the most free devices one host has, 0 when none
   */
  public static int mostFree(List<Host> hosts) {
    int max = 0;
    for (Host h : hosts) {
      max = Math.max(max, h.free());
    }
    return max;
  }

  /**
   * The reservation of a pool without a kept one: present when its head (the oldest candidate some host is
   * large enough for) fits on no host's free devices now.
   *
   * @param hosts the live hosts of the pool, in any order
   * @param candidates the candidates of the pool, in any order
   * @param now the store's now
   * @return the reservation, if the head needs one
   */
  public static Optional<Reservation> reservation(List<Host> hosts, List<Candidate> candidates, Instant now) {
    return reservation(hosts, candidates, now, null);
  }

  /**
   * The reservation of a pool. When the kept reservation's job is among the candidates and some live host is
   * large enough for it, it keeps the reservation: on the kept host while that host is live, otherwise on the
   * host that frees enough devices soonest (a reservation that may already be satisfied, {@code until} being
   * now). Otherwise the reservation is present when the head (the oldest candidate some host is large enough
   * for) fits on no host's free devices now, on the host that frees enough devices soonest.
   *
   * @param hosts the live hosts of the pool, in any order
   * @param candidates the candidates of the pool, in any order, with the kept reservation's job when it is
   *     still offered
   * @param now the store's now
   * @param kept the reservation the pool kept from its last claim, or null
   * @return the reservation, if any
   */
  public static Optional<Reservation> reservation(List<Host> hosts, List<Candidate> candidates, Instant now,
      @Nullable KeptReservation kept) {
    int largest = largestHost(hosts);
    if (kept != null) {
      for (Candidate c : candidates) {
        if (c.job().equals(kept.job()) && c.gpus() <= largest) {
          for (Host h : hosts) {
            if (h.name().equals(kept.host()) && h.devices().size() >= c.gpus()) {
              return Optional.of(reserve(h, c, freeAt(h, c.gpus(), now)));
            }
          }
          return soonest(hosts, c, now);
        }
      }
    }
    Candidate head = null;
    for (Candidate c : candidates) {
      if (c.gpus() <= largest && (head == null || c.job().compareTo(head.job()) < 0)) {
        head = c;
      }
    }
    if (head == null) {
      return Optional.empty();
    }
    for (Host h : hosts) {
      if (h.free() >= head.gpus()) {
        return Optional.empty();
      }
    }
    return soonest(hosts, head, now);
  }

  /** The reservation for a job on the host that frees enough devices soonest (ties by name), if any. */
  private static Optional<Reservation> soonest(List<Host> hosts, Candidate head, Instant now) {
    Host best = null;
    Instant bestAt = Instant.MAX;
    List<Host> byName = new ArrayList<>(hosts);
    byName.sort(Comparator.comparing(Host::name));
    for (Host h : byName) {
      if (h.devices().size() < head.gpus()) {
        continue;
      }
      Instant at = freeAt(h, head.gpus(), now);
      if (at.isBefore(bestAt)) {
        best = h;
        bestAt = at;
      }
    }
    return best == null ? Optional.empty() : Optional.of(reserve(best, head, bestAt));
  }

  private static Reservation reserve(Host h, Candidate job, Instant until) {
    return new Reservation(job.job(), job.gpus(), h.name(), until, h.free(), h.devices().size());
  }

  /** When a host is expected to have {@code gpus} free devices, from its holders' estimated ends. */
  private static Instant freeAt(Host h, int gpus, Instant now) {
    List<Holding> ends = new ArrayList<>(h.holdings());
    ends.sort(Comparator.comparing((Holding x) -> latest(x.estimatedEnd(), now)).thenComparing(Holding::job));
    int free = h.free();
    Instant at = now;
    for (Holding x : ends) {
      if (free >= gpus) {
        break;
      }
      free += x.devices().size();
      at = latest(x.estimatedEnd(), now);
    }
    return at;
  }

  /**
   * What the claimer takes without a kept reservation: {@link #place(List, String, List, Instant,
   * KeptReservation)} with none.
   *
   * @param hosts the live hosts of the pool, the claimer among them
   * @param claimer the claiming collector
   * @param candidates the candidates of the pool
   * @param now the store's now
   * @return the placement, or empty when nothing fits
   */
  public static Optional<Placement> place(List<Host> hosts, String claimer, List<Candidate> candidates,
      Instant now) {
    return place(hosts, claimer, candidates, now, null);
  }

  /**
   * What the claimer takes: the oldest candidate that fits its free devices, except that on the host reserved
   * for the pool's head ({@link #reservation(List, List, Instant, KeptReservation)}) a job other than the head
   * must have a known estimate ending by the reservation's instant.
   *
   * @param hosts the live hosts of the pool, the claimer among them
   * @param claimer the claiming collector
   * @param candidates the candidates of the pool, with the kept reservation's job when it is still offered
   * @param now the store's now
   * @param kept the reservation the pool kept from its last claim, or null
   * @return the placement, or empty when nothing fits
   */
  public static Optional<Placement> place(List<Host> hosts, String claimer, List<Candidate> candidates,
      Instant now, @Nullable KeptReservation kept) {
    Host me = null;
    for (Host h : hosts) {
      if (h.name().equals(claimer)) {
        me = h;
      }
    }
    if (me == null || me.devices().isEmpty() || candidates.isEmpty()) {
      return Optional.empty();
    }
    Reservation reserved = reservation(hosts, candidates, now, kept).orElse(null);
    List<Candidate> byId = new ArrayList<>(candidates);
    byId.sort(Comparator.comparing(Candidate::job));
    int free = me.free();
    Set<Integer> held = me.held();
    for (Candidate c : byId) {
      if (c.gpus() > free) {
        continue;
      }
      if (reserved != null && reserved.host().equals(claimer) && !c.job().equals(reserved.job())
          && (c.estimate().isZero() || now.plus(c.estimate()).isAfter(reserved.until()))) {
        continue;
      }
      List<Integer> devices = choose(me.devices(), held, c.gpus());
      if (devices != null) {
        return Optional.of(new Placement(c.job(), devices));
      }
    }
    return Optional.empty();
  }

  /**
   * The view of a pool from one snapshot: its hosts, the reservation a claim would honour now, a dormant
   * reservation, and why each queued job waits — from the same rules a claim places by (the candidates being
   * the oldest queued job of each GPU count that the shares admit, and the kept reservation's job while it is
   * queued and admitted).
   *
   * <p>A job its share refuses waits with {@link WaitReason.Kind#SHARE_FULL} (the job of the kept reservation
   * keeping that reservation dormant, {@link #keep}); the others are placed among themselves, since a claim
   * never offers a refused job. A job that needs no GPU is claimable when some collector of the pool is live;
   * one requeued with an affinity to a collector that is still live is held for that collector, whose claims
   * take it first (no other collector's claim takes it while that one is live).
   * A GPU job, in order: no live host advertises devices; it needs more GPUs than the largest live host has; it
   * holds the pool's reservation ({@link WaitReason.Kind#RESERVED_FOR_IT}); an older job with the same GPU count
   * is placed first; a host has enough free devices for it (claimable, naming the first such host by name,
   * skipping a reserved host it may not backfill); the only such host is reserved for the head; no host has
   * enough free devices (naming the reservation too when the job is older than the job that holds it).
   *
   * @param pool the pool (collector tag)
   * @param now the store's now
   * @param queued the queued jobs of the pool, in any order
   * @param hosts the live hosts of the pool with devices
   * @param liveCollectors the names of the pool's live collectors (with devices or not)
   * @param shares the store's shares
   * @param ledger the pool's live leases and queued jobs (read only when the shares cover the pool)
   * @param kept the reservation the pool kept from its last claim, or null
   * @return the view
   */
  public static PoolView view(String pool, Instant now, List<Job> queued, List<Host> hosts,
      java.util.Collection<String> liveCollectors, FleetShares shares, ShareLedger ledger,
      @Nullable KeptReservation kept) {
    java.util.SortedSet<String> live = new java.util.TreeSet<>(liveCollectors);
    List<Job> admitted = new ArrayList<>(queued.size());
    java.util.Map<JobId, JobWait> out = new java.util.TreeMap<>();
    KeptReservation dormant = null;
    if (shares.covers(pool)) {
      int mostFree = mostFree(hosts);
      for (Job j : queued) {
        Optional<WaitReason> refused = ledger.refusal(shares, j.spec(), mostFree);
        if (refused.isPresent() && kept != null && j.id().equals(kept.job())) {
          dormant = kept;
          out.put(j.id(), new JobWait(j, WaitReason.builder().from(refused.get()).host(kept.host()).dormant(true)
              .build()));
        } else if (refused.isPresent()) {
          out.put(j.id(), new JobWait(j, refused.get()));
        } else {
          admitted.add(j);
        }
      }
    } else {
      admitted.addAll(queued);
    }
    List<Job> byId = new ArrayList<>(admitted);
    byId.sort(Comparator.comparing(Job::id));
    java.util.TreeMap<Integer, Candidate> oldest = new java.util.TreeMap<>();
    Candidate keptJob = null;
    for (Job j : byId) {
      if (j.spec().gpus() > 0) {
        Candidate c = new Candidate(j.id(), j.spec().gpus(), j.spec().estimate());
        oldest.putIfAbsent(j.spec().gpus(), c);
        if (kept != null && j.id().equals(kept.job())) {
          keptJob = c;
        }
      }
    }
    List<Candidate> candidates = new ArrayList<>(oldest.values());
    if (keptJob != null && !candidates.contains(keptJob)) {
      candidates.add(keptJob);
    }
    Reservation reserved = reservation(hosts, candidates, now, kept).orElse(null);
    List<Host> byName = new ArrayList<>(hosts);
    byName.sort(Comparator.comparing(Host::name));
    for (Job j : byId) {
      out.put(j.id(), new JobWait(j, reason(pool, j, byName, oldest, reserved, live, now)));
    }
    return PoolView.builder().pool(pool).at(now).hosts(byName).liveCollectors(live)
        .reservation(Optional.ofNullable(reserved)).dormant(Optional.ofNullable(dormant)).waits(out.values())
        .build();
  }

  private static WaitReason reason(String pool, Job job, List<Host> hosts, java.util.Map<Integer, Candidate> oldest,
      @Nullable Reservation reserved, java.util.Set<String> live, Instant now) {
    int n = job.spec().gpus();
    if (n == 0) {
      if (live.isEmpty()) {
        return WaitReason.of(WaitReason.Kind.NO_LIVE_COLLECTOR, pool, 0).build();
      }
      WaitReason.Builder claimable = WaitReason.of(WaitReason.Kind.CLAIMABLE, pool, 0).liveCollectors(live.size());
      job.affinity().filter(live::contains).ifPresent(claimable::host);
      return claimable.build();
    }
    if (hosts.isEmpty()) {
      return WaitReason.of(WaitReason.Kind.NO_LIVE_COLLECTOR, pool, n).build();
    }
    int largest = largestHost(hosts);
    if (n > largest) {
      return WaitReason.of(WaitReason.Kind.NO_HOST_LARGE_ENOUGH, pool, n).largestHost(largest).build();
    }
    if (reserved != null && reserved.job().equals(job.id())) {
      return WaitReason.of(WaitReason.Kind.RESERVED_FOR_IT, pool, n).host(reserved.host()).free(reserved.free())
          .size(reserved.size()).expectedFree(reserved.until()).build();
    }
    Candidate first = oldest.get(n);
    if (first != null && !first.job().equals(job.id())) {
      return WaitReason.of(WaitReason.Kind.BEHIND_OLDER_JOB, pool, n).otherJob(first.job()).build();
    }
    boolean blockedByReservation = false;
    int mostFree = 0;
    for (Host h : hosts) {
      int free = h.free();
      mostFree = Math.max(mostFree, free);
      if (free < n) {
        continue;
      }
      if (reserved != null && reserved.host().equals(h.name()) && (job.spec().estimate().isZero()
          || now.plus(job.spec().estimate()).isAfter(reserved.until()))) {
        blockedByReservation = true;
        continue;
      }
      return WaitReason.of(WaitReason.Kind.CLAIMABLE, pool, n).host(h.name()).free(free).size(h.devices().size())
          .build();
    }
    if (blockedByReservation && reserved != null) {
      return WaitReason.of(WaitReason.Kind.HOST_RESERVED, pool, n).host(reserved.host()).otherJob(reserved.job())
          .expectedFree(reserved.until()).noEstimate(job.spec().estimate().isZero()).build();
    }
    WaitReason.Builder none = WaitReason.of(WaitReason.Kind.NO_FREE_DEVICES, pool, n).mostFree(mostFree);
    if (reserved != null && job.id().compareTo(reserved.job()) < 0) {
      none.host(reserved.host()).otherJob(reserved.job());
    }
    return none.build();
  }

  /**
   * The devices a job that needs {@code n} GPUs gets on a host, or null when fewer than {@code n} are free.
   * The rule, in order:
   * <ol>
   *   <li>If some group has at least {@code n} free devices, the set lies in one group: the group with the
   *       fewest free devices that still fit (best fit, so larger free groups stay whole), the earliest group
   *       on a tie. Within it, the shortest run of consecutive free members (in the group's index order) at
   *       least {@code n} long, the earliest on a tie, gives its first {@code n} devices; when no run is long
   *       enough, the group's {@code n} lowest free indices.
   *   <li>Otherwise the set spans groups: the groups are taken by most free devices first (the earliest on a
   *       tie), each whole, and the last one only for its lowest free indices, so the job touches as few
   *       groups as possible.
   * </ol>
   * A host without declared groups is one group of all its devices.
   *
   * @param devices the host's devices
   * @param held the indices that live leases hold
   * @param n how many devices the job needs
   * @return the chosen indices, ascending; empty for {@code n == 0}; null when they do not fit
   */
  public static @Nullable List<Integer> choose(Devices devices, Set<Integer> held, int n) {
    if (n == 0) {
      return List.of();
    }
    List<List<Integer>> groups = devices.effectiveGroups();
    List<List<Integer>> freeOf = new ArrayList<>(groups.size());
    int total = 0;
    for (List<Integer> g : groups) {
      List<Integer> f = new ArrayList<>();
      for (Integer d : g) {
        if (!held.contains(d)) {
          f.add(d);
        }
      }
      freeOf.add(f);
      total += f.size();
    }
    if (total < n) {
      return null;
    }
    int bestGroup = -1;
    for (int i = 0; i < groups.size(); i++) {
      int f = freeOf.get(i).size();
      if (f >= n && (bestGroup < 0 || f < freeOf.get(bestGroup).size())) {
        bestGroup = i;
      }
    }
    if (bestGroup >= 0) {
      return withinGroup(groups.get(bestGroup), held, freeOf.get(bestGroup), n);
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      order.add(i);
    }
    order.sort((a, b) -> freeOf.get(a).size() != freeOf.get(b).size()
        ? Integer.compare(freeOf.get(b).size(), freeOf.get(a).size()) : Integer.compare(a, b));
    List<Integer> out = new ArrayList<>(n);
    for (int i : order) {
      for (Integer d : freeOf.get(i)) {
        if (out.size() < n) {
          out.add(d);
        }
      }
    }
    out.sort(null);
    return List.copyOf(out);
  }

  private static List<Integer> withinGroup(List<Integer> group, Set<Integer> held, List<Integer> free, int n) {
    int bestStart = -1;
    int bestLength = Integer.MAX_VALUE;
    int i = 0;
    while (i < group.size()) {
      if (held.contains(group.get(i))) {
        i++;
        continue;
      }
      int start = i;
      while (i < group.size() && !held.contains(group.get(i))) {
        i++;
      }
      int length = i - start;
      if (length >= n && length < bestLength) {
        bestStart = start;
        bestLength = length;
      }
    }
    if (bestStart >= 0) {
      return List.copyOf(group.subList(bestStart, bestStart + n));
    }
    return List.copyOf(free.subList(0, n));
  }

  private static Instant latest(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
