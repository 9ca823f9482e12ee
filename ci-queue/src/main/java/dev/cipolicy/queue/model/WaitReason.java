package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.immutables.value.Value;

/**
 * Why a queued job (or a request that has not started) is not running: a {@link Kind} to act on and the facts
 * it depends on as fields — the pool, the host, the other job, the device counts, the share, the instant the
 * devices are expected free — from which {@link #sentence()} renders one plain sentence such as "needs 8 GPUs;
 * host b200-0 reserved for it, 3 of 8 free, expected free at 2026-12-06T05:02:30Z". Read the fields, never the
 * sentence: its wording may change, the fields and their meaning per kind are the contract.
 *
 * <p>Which fields each kind carries (the builder refuses a reason that lacks one):
 * <ul>
 *   <li>every job reason: {@link #pool()} and {@link #gpus()} (0 for a job that needs no GPU);
 *   <li>{@link Kind#CLAIMABLE}: for a job without GPUs {@link #liveCollectors()}, and the {@link #host()} it
 *       is held for when it was requeued with an affinity to a collector that is still live (only that
 *       collector's claims take it); for a GPU job the {@link #host()} with enough free devices, its
 *       {@link #free()} and {@link #size()};
 *   <li>{@link Kind#NO_HOST_LARGE_ENOUGH}: {@link #largestHost()};
 *   <li>{@link Kind#RESERVED_FOR_IT}: the reserved {@link #host()}, its {@link #free()} and {@link #size()},
 *       {@link #expectedFree()};
 *   <li>{@link Kind#BEHIND_OLDER_JOB}: {@link #otherJob()}, the older job placed first;
 *   <li>{@link Kind#HOST_RESERVED}: the reserved {@link #host()}, the {@link #otherJob()} it is reserved for,
 *       {@link #expectedFree()}, and {@link #noEstimate()};
 *   <li>{@link Kind#NO_FREE_DEVICES}: {@link #mostFree()}; when the pool's reservation stays with a younger
 *       job, that reservation's {@link #host()} and {@link #otherJob()};
 *   <li>{@link Kind#POOL_PAUSED}: nothing more;
 *   <li>{@link Kind#SHARE_FULL}: the {@link #share()} and what its cadence {@link #held()}; when the job keeps
 *       its pool's reservation while the share refuses it, the kept {@link #host()} and {@link #dormant()};
 *   <li>request reasons: {@link #cap()} and {@link #inProgress()} ({@link Kind#CAP_REACHED}),
 *       {@link #parentSha()}, {@link #level()} and {@link #ahead()} ({@link Kind#WAITING_FOR_PARENT}),
 *       {@link #ahead()} and {@link #nextToStart()} ({@link Kind#BEHIND_OLDER_REQUEST}), {@link #label()}
 *       ({@link Kind#WAITING_FOR_ARTIFACTS}).
 * </ul>
 *
 * <p>Instants in sentences are UTC in ISO-8601 to the second ({@code 2026-12-06T05:02:30Z}); the fields keep
 * the store's precision.
 */
@Value.Immutable
@ValueStyle
public abstract class WaitReason {

  /** How instants appear in sentences: ISO-8601, UTC, to the second. */
  private static final DateTimeFormatter INSTANT = DateTimeFormatter.ISO_INSTANT;

  /** The kinds of reasons a queued job waits. */
  public enum Kind {
    /** It could be claimed now: it waits for a collector's next claim. */
    CLAIMABLE,
    /** No live collector of its pool could run it (for a GPU job: none advertises devices). */
    NO_LIVE_COLLECTOR,
    /** It needs more GPUs than any live host of its pool has. */
    NO_HOST_LARGE_ENOUGH,
    /** An older job of its pool needs as many GPUs and is placed first. */
    BEHIND_OLDER_JOB,
    /** No host of its pool has as many free devices as it needs. */
    NO_FREE_DEVICES,
    /**
     * Its cadence's fleet share of the pool is full: its live leases hold too much of the pool to take this
     * job (or it borrows and another cadence waits). It is claimed once enough of them end. A job that held its
     * pool's reservation when its share refused it keeps that reservation, dormant ({@link #dormant()}).
     */
    SHARE_FULL,
    /**
     * It holds its pool's reservation: a host is reserved for it until enough devices free up, and stays
     * reserved for it until it starts.
     */
    RESERVED_FOR_IT,
    /** Devices are free on a host reserved for another job, and this job would end after the reservation. */
    HOST_RESERVED,
    /**
     * Its pool is paused by an operator: the pool's collectors claim nothing until it is resumed (their
     * running jobs go on). No field beyond the pool and the GPU count.
     */
    POOL_PAUSED,
    /** A request: the next to start, at the site's next tick. */
    NEXT_TO_START,
    /** A request: the next to start, but the cap of requests in progress is reached. */
    CAP_REACHED,
    /** A request: its parent is a ready request placed before it. */
    WAITING_FOR_PARENT,
    /** A request: other ready requests are placed before it. */
    BEHIND_OLDER_REQUEST,
    /** A try request: its artifacts are not attached yet. */
    WAITING_FOR_ARTIFACTS;

    /**
     * Whether this kind is a request's reason rather than a job's.
     *
     * @return true for the request kinds
     */
    public boolean ofRequest() {
      return compareTo(NEXT_TO_START) >= 0;
    }
  }

  /**
   * The kind of reason.
   *
   * @return the kind
   */
  public abstract Kind kind();

  /**
   * The pool (collector tag) the job waits in.
   *
   * @return the pool; empty for a request's reason
   */
  public abstract Optional<String> pool();

  /**
   * How many GPUs the job needs.
   *
   * @return the GPU count, 0 for a job that needs none and for a request's reason
   */
  @Value.Default
  public int gpus() {
    return 0;
  }

  /**
   * How many collectors of the pool are live ({@link Kind#CLAIMABLE} for a job without GPUs).
   *
   * @return the count, or empty
   */
  public abstract OptionalInt liveCollectors();

  /**
   * The host the reason names: the host with enough free devices, or the previous collector a requeued job
   * without GPUs is held for while it is live ({@link Kind#CLAIMABLE}), the host reserved
   * for this job ({@link Kind#RESERVED_FOR_IT}) or for another ({@link Kind#HOST_RESERVED},
   * {@link Kind#NO_FREE_DEVICES}), or the host this job keeps reserved while its share refuses it
   * ({@link Kind#SHARE_FULL} with {@link #dormant()}).
   *
   * @return the host's collector name, or empty
   */
  public abstract Optional<String> host();

  /**
   * The other job the reason names: the older job placed first ({@link Kind#BEHIND_OLDER_JOB}) or the job the
   * host is reserved for ({@link Kind#HOST_RESERVED}, {@link Kind#NO_FREE_DEVICES}).
   *
   * @return the job, or empty
   */
  public abstract Optional<JobId> otherJob();

  /**
   * How many devices of {@link #host()} are free now.
   *
   * @return the count, or empty
   */
  public abstract OptionalInt free();

  /**
   * How many devices {@link #host()} has.
   *
   * @return the count, or empty
   */
  public abstract OptionalInt size();

  /**
   * The most devices one live host of the pool has ({@link Kind#NO_HOST_LARGE_ENOUGH}).
   *
   * @return the count, or empty
   */
  public abstract OptionalInt largestHost();

  /**
   * The most free devices on one live host of the pool ({@link Kind#NO_FREE_DEVICES}).
   *
   * @return the count, or empty
   */
  public abstract OptionalInt mostFree();

  /**
   * When the reserved host is expected to have enough free devices for the job it is reserved for, from its
   * holders' estimated ends ({@link Kind#RESERVED_FOR_IT}, {@link Kind#HOST_RESERVED}).
   *
   * @return the instant, or empty
   */
  public abstract Optional<Instant> expectedFree();

  /**
   * Whether this job has no estimate, so it may not backfill the reserved host ({@link Kind#HOST_RESERVED}).
   *
   * @return true when the job has no estimate
   */
  @Value.Default
  public boolean noEstimate() {
    return false;
  }

  /**
   * The fleet share that refuses the job ({@link Kind#SHARE_FULL}).
   *
   * @return the share, or empty
   */
  public abstract Optional<FleetShares.Share> share();

  /**
   * What the share's cadence holds of the pool now, in the share's unit ({@link Kind#SHARE_FULL}).
   *
   * @return the held runners or GPUs, or empty
   */
  public abstract OptionalInt held();

  /**
   * Whether the job keeps its pool's reservation of {@link #host()} while its share refuses it: the
   * reservation is dormant and the job takes it back once its share admits it ({@link Kind#SHARE_FULL}).
   *
   * @return true for a dormant reservation
   */
  @Value.Default
  public boolean dormant() {
    return false;
  }

  /**
   * The cap of requests in progress ({@link Kind#CAP_REACHED}).
   *
   * @return the cap, or empty
   */
  public abstract OptionalInt cap();

  /**
   * The labels of the requests in progress ({@link Kind#CAP_REACHED}).
   *
   * @return the labels, in order
   */
  public abstract List<String> inProgress();

  /**
   * The parent SHA a request waits for ({@link Kind#WAITING_FOR_PARENT}).
   *
   * @return the SHA, or empty
   */
  public abstract Optional<String> parentSha();

  /**
   * The request's level in the order of "parent done" ({@link Kind#WAITING_FOR_PARENT}).
   *
   * @return the level, or empty
   */
  public abstract OptionalInt level();

  /**
   * How many ready requests are placed before it ({@link Kind#WAITING_FOR_PARENT},
   * {@link Kind#BEHIND_OLDER_REQUEST}).
   *
   * @return the count, or empty
   */
  public abstract OptionalInt ahead();

  /**
   * The label of the next request to start ({@link Kind#BEHIND_OLDER_REQUEST}).
   *
   * @return the label, or empty
   */
  public abstract Optional<String> nextToStart();

  /**
   * The request's own label ({@link Kind#WAITING_FOR_ARTIFACTS}).
   *
   * @return the label, or empty
   */
  public abstract Optional<String> label();

  /**
   * The reason as one plain sentence, rendered from the fields (the only place the wording lives).
   *
   * @return the sentence
   */
  public String sentence() {
    return render();
  }

  /**
   * Checks that the reason carries the fields of its kind.
   *
   * @throws InvalidQueueInputException naming the missing field
   */
  @Value.Check
  protected void check() {
    Kind k = kind();
    if (gpus() < 0 || gpus() > JobSpec.MAX_GPUS) {
      throw new InvalidQueueInputException("wait reason " + k + ": GPU count " + gpus() + "; expected 0 to "
          + JobSpec.MAX_GPUS);
    }
    if (dormant() && k != Kind.SHARE_FULL) {
      throw new InvalidQueueInputException("wait reason " + k + " is dormant; only a SHARE_FULL reason keeps a"
          + " reservation dormant");
    }
    if (noEstimate() && k != Kind.HOST_RESERVED) {
      throw new InvalidQueueInputException("wait reason " + k + " says the job has no estimate; only a"
          + " HOST_RESERVED reason does");
    }
    if (k.ofRequest()) {
      if (pool().isPresent()) {
        throw new InvalidQueueInputException("wait reason " + k + " is a request's reason; it names no pool");
      }
    } else {
      require(pool().isPresent(), "pool");
    }
    switch (k) {
      case CLAIMABLE -> {
        if (gpus() == 0) {
          require(liveCollectors().isPresent(), "live collectors");
        } else {
          require(host().isPresent() && free().isPresent() && size().isPresent(), "host, free and size");
        }
      }
      case NO_HOST_LARGE_ENOUGH -> require(largestHost().isPresent(), "largest host");
      case RESERVED_FOR_IT -> require(host().isPresent() && free().isPresent() && size().isPresent()
          && expectedFree().isPresent(), "host, free, size and expected free");
      case BEHIND_OLDER_JOB -> require(otherJob().isPresent(), "other job");
      case HOST_RESERVED -> require(host().isPresent() && otherJob().isPresent() && expectedFree().isPresent(),
          "host, other job and expected free");
      case NO_FREE_DEVICES -> require(mostFree().isPresent() && host().isPresent() == otherJob().isPresent(),
          "most free (and the reservation's host and job together)");
      case SHARE_FULL -> require(share().isPresent() && held().isPresent() && dormant() == host().isPresent(),
          "share and held (and a host exactly when dormant)");
      case CAP_REACHED -> require(cap().isPresent(), "cap");
      case WAITING_FOR_PARENT -> require(parentSha().isPresent() && level().isPresent() && ahead().isPresent(),
          "parent SHA, level and ahead");
      case BEHIND_OLDER_REQUEST -> require(ahead().isPresent() && nextToStart().isPresent(),
          "ahead and next to start");
      case WAITING_FOR_ARTIFACTS -> require(label().isPresent(), "label");
      case NO_LIVE_COLLECTOR, NEXT_TO_START, POOL_PAUSED -> { }
      default -> throw new IllegalStateException("unhandled wait reason kind " + k);
    }
  }

  private void require(boolean present, String fields) {
    if (!present) {
      throw new InvalidQueueInputException("wait reason " + kind() + " needs its " + fields);
    }
  }

  /** The sentence of the reason; every word of every wait reason is written here. */
  private String render() {
    String pool = pool().orElse("");
    int n = gpus();
    String needs = n == 0 ? "" : "needs " + count(n, "GPU") + "; ";
    return switch (kind()) {
      case CLAIMABLE -> n == 0 ? host().map(h -> "held for collector " + h + ", its previous one, while it is live"
              + "; waits for its next claim")
          .orElseGet(() -> "claimable by the " + count(liveCollectors().orElseThrow(), "live collector") + " of pool "
              + pool + "; waits for the next claim")
          : needs + "host " + host().orElseThrow() + " has " + free().orElseThrow() + " of " + size().orElseThrow()
              + " free; waits for its next claim";
      case NO_LIVE_COLLECTOR -> needs + "no live collector of pool " + pool + (n == 0 ? "" : " advertises devices");
      case NO_HOST_LARGE_ENOUGH -> needs + "no live host of pool " + pool
          + " has that many devices (the largest has " + largestHost().orElseThrow() + ")";
      case RESERVED_FOR_IT -> needs + "host " + host().orElseThrow() + " reserved for it, " + free().orElseThrow()
          + " of " + size().orElseThrow() + " free, expected free at " + instant(expectedFree().orElseThrow());
      case BEHIND_OLDER_JOB -> needs + "waits behind job " + otherJob().orElseThrow().value() + ", the oldest " + n
          + "-GPU job of pool " + pool;
      case HOST_RESERVED -> needs + "host " + host().orElseThrow() + " reserved for job "
          + otherJob().orElseThrow().value() + " until " + instant(expectedFree().orElseThrow())
          + (noEstimate() ? ", and this job has no estimate" : ", and this job would end after that");
      case NO_FREE_DEVICES -> needs + "no host of pool " + pool + " has " + count(n, "free device")
          + " (the most free on one host: " + mostFree().orElseThrow() + ")"
          + (host().isPresent() ? "; the reservation of host " + host().get() + " stays with job "
              + otherJob().orElseThrow().value() + " until it starts" : "");
      case SHARE_FULL -> shareSentence();
      case POOL_PAUSED -> needs + "pool " + pool + " is paused by an operator; its collectors claim nothing until"
          + " it is resumed";
      case CAP_REACHED -> "cap of " + count(cap().orElseThrow(), "request") + " in progress reached ("
          + String.join(", ", inProgress()) + "); starts when one completes";
      case NEXT_TO_START -> "next to start, at the site's next tick";
      case WAITING_FOR_PARENT -> "waiting for its parent " + parentSha().orElseThrow()
          + ", a ready request placed before it (level " + level().orElseThrow() + "); " + ahead().orElseThrow()
          + " ahead";
      case BEHIND_OLDER_REQUEST -> "behind " + count(ahead().orElseThrow(), "ready request") + " (next to start: "
          + nextToStart().orElseThrow() + ")";
      case WAITING_FOR_ARTIFACTS -> "waiting for its artifacts (" + label().orElseThrow() + ")";
    };
  }

  private String shareSentence() {
    FleetShares.Share s = share().orElseThrow();
    List<String> parts = new ArrayList<>(4);
    parts.add("cadence " + s.cadence() + " holds " + held().orElseThrow() + " of " + s.amount() + " "
        + FleetShares.unitName(s.unit(), s.amount()) + " of pool " + s.pool());
    if (s.unit() == FleetShares.Unit.GPUS) {
      parts.add("this job needs " + gpus());
    }
    if (s.borrow()) {
      parts.add("it borrows no more while another cadence waits for the pool");
    }
    if (dormant()) {
      parts.add("keeps the reservation of host " + host().orElseThrow() + " for when its share admits it");
    }
    return String.join("; ", parts);
  }

  /** "1 GPU", "2 GPUs": a count with its noun, singular for one. */
  private static String count(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private static String instant(Instant t) {
    return INSTANT.format(t.truncatedTo(ChronoUnit.SECONDS));
  }

  /**
   * A new builder; {@code build()} checks that the reason carries the fields of its kind.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A reason of a job of a pool, with the kind, pool and GPU count set.
   *
   * @param kind the kind
   * @param pool the pool
   * @param gpus the GPUs the job needs
   * @return a builder with those fields
   */
  public static Builder of(Kind kind, String pool, int gpus) {
    return builder().kind(kind).pool(pool).gpus(gpus);
  }

  /** Builds a {@link WaitReason}. */
  public static final class Builder extends ImmutableWaitReason.Builder {
    Builder() {}
  }
}
