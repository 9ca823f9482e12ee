package dev.cipolicy.queue;

import dev.cipolicy.api.internal.ValueStyle;
import dev.cipolicy.queue.spi.InvalidQueueInputException;
import dev.cipolicy.queue.spi.JobSpec;
import dev.cipolicy.queue.spi.Request;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.immutables.value.Value;

/**
 * The rules a site runs its queue by: the in-progress cap, lease and collector timeouts, the two retry
 * budgets, the fan-out (default benchmark groups × collector targets), backfill, and the expected
 * request duration for ETAs. Every site and collector sharing a store should use the same settings.
 */
@Value.Immutable
@ValueStyle
public abstract class QueueSettings {

  /**
   * The cap K: at most this many requests in progress at once, enforced by the store.
   *
   * @return at least 1; default 1
   */
  @Value.Default
  public int maxInProgress() {
    return 1;
  }

  /**
   * How long a lease lasts unless renewed by a heartbeat; a dead collector delays its job by this much.
   *
   * @return a positive duration; default 5 minutes
   */
  @Value.Default
  public Duration leaseDuration() {
    return Duration.ofMinutes(5);
  }

  /**
   * The heartbeat age after which a collector is offline: it shows as offline, and its requeued jobs may be
   * claimed by the other members of its pool. Keep it at most {@link #leaseDuration()} so that a dead
   * collector's job is rescued within one lease time plus one claim interval.
   *
   * @return a positive duration; default 5 minutes
   */
  @Value.Default
  public Duration collectorTimeout() {
    return Duration.ofMinutes(5);
  }

  /**
   * The crash-rescue budget: how many expired leases a job survives; the next one fails it.
   *
   * @return at least 0; default 2
   */
  @Value.Default
  public int maxCrashRescues() {
    return 2;
  }

  /**
   * The transient-failure budget: how many transient failures requeue a job; the next one fails it.
   *
   * @return at least 0; default 3
   */
  @Value.Default
  public int maxTransientRetries() {
    return 3;
  }

  /**
   * How long a request usually takes; the status view's ETA is built from it.
   *
   * @return a positive duration; default 1 hour
   */
  @Value.Default
  public Duration expectedRequestDuration() {
    return Duration.ofHours(1);
  }

  /**
   * Whether starting a request also enqueues its jobs for its parent request.
   *
   * @return default true
   */
  @Value.Default
  public boolean backfill() {
    return true;
  }

  /**
   * The benchmark groups of requests that name none.
   *
   * @return the default groups, in order
   */
  public abstract List<String> benchmarkGroups();

  /**
   * The collector tags requests fan out to.
   *
   * @return the targets, in order
   */
  public abstract List<CollectorTarget> collectorTargets();

  /**
   * The jobs a request gets: one per benchmark group (its own, else the defaults) and collector target, in
   * that order, optional on non-default targets.
   *
   * @param request the request
   * @return the job specs, unique by group and tag
   */
  public List<JobSpec> jobsFor(Request request) {
    List<String> groups = request.benchmarkGroups().isEmpty() ? benchmarkGroups() : request.benchmarkGroups();
    List<JobSpec> specs = new ArrayList<>(groups.size() * collectorTargets().size());
    for (String group : groups) {
      for (CollectorTarget target : collectorTargets()) {
        specs.add(new JobSpec(group, target.tag(), !target.required()));
      }
    }
    return specs;
  }

  /**
   * Checks the numbers and the uniqueness of groups and tags.
   *
   * @throws InvalidQueueInputException naming the setting and its value
   */
  @Value.Check
  protected void check() {
    atLeast(maxInProgress(), 1, "maxInProgress");
    atLeast(maxCrashRescues(), 0, "maxCrashRescues");
    atLeast(maxTransientRetries(), 0, "maxTransientRetries");
    positive(leaseDuration(), "leaseDuration");
    positive(collectorTimeout(), "collectorTimeout");
    positive(expectedRequestDuration(), "expectedRequestDuration");
    Set<String> groups = new HashSet<>();
    for (String group : benchmarkGroups()) {
      new JobSpec(group, "tag", false);
      if (!groups.add(group)) {
        throw new InvalidQueueInputException("queue settings: benchmarkGroups lists '" + group
            + "' twice; expected each group once");
      }
    }
    Set<String> tags = new HashSet<>();
    for (CollectorTarget target : collectorTargets()) {
      if (!tags.add(target.tag())) {
        throw new InvalidQueueInputException("queue settings: collectorTargets lists tag '" + target.tag()
            + "' twice; expected each tag once");
      }
    }
  }

  private static void atLeast(int value, int min, String name) {
    if (value < min) {
      throw new InvalidQueueInputException("queue settings: " + name + " is " + value + "; expected at least "
          + min);
    }
  }

  private static void positive(Duration value, String name) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new InvalidQueueInputException("queue settings: " + name + " is " + value
          + "; expected a positive duration");
    }
  }

  /**
   * A new builder; unset settings take their defaults.
   *
   * @return an empty builder
   */
  public static ImmutableQueueSettings.Builder builder() {
    return ImmutableQueueSettings.builder();
  }

  /**
   * The default settings, without benchmark groups or collector targets (requests then get no jobs).
   *
   * @return the defaults
   */
  public static QueueSettings defaults() {
    return builder().build();
  }
}
