package dev.cipolicy.queue;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Request;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.immutables.value.Value;

/**
 * The rules a site runs its queue by: the in-progress cap, lease and collector timeouts, the two retry
 * budgets, the fan-out (default benchmark groups × collector targets, or a host's {@link JobPlanner}),
 * backfill, and the expected request duration for ETAs. Every site and collector sharing a store should use
 * the same settings.
 *
 * <p>A queue must have jobs to run: settings without a default benchmark group or without a collector
 * target (and without a planner) are rejected, because every request would then complete at once as a
 * success without running anything. Tests and measurements of the queue itself may ask for that on purpose
 * with {@link #withoutJobs()} ({@link #noJobs()}).
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
   * @return the default groups, in order, each once; at least one unless {@link #noJobs()} or a
   *     {@link #planner()} is set (then none)
   */
  public abstract List<String> benchmarkGroups();

  /**
   * The collector tags requests fan out to.
   *
   * @return the targets, in order, each tag once; at least one unless {@link #noJobs()} or a
   *     {@link #planner()} is set (then none)
   */
  public abstract List<CollectorTarget> collectorTargets();

  /**
   * The host's fan-out, replacing benchmark groups × collector targets: when set, it alone decides the jobs
   * of every request, and the settings list no benchmark groups or collector targets.
   *
   * @return the planner, if the host has its own
   */
  public abstract Optional<JobPlanner> planner();

  /**
   * Whether requests deliberately get no jobs: each completes as a success in the tick that starts it.
   * Only tests and measurements of the queue itself want this; a site sets groups and targets instead.
   *
   * @return false unless set; when true, there are no benchmark groups and no collector targets
   */
  @Value.Default
  public boolean noJobs() {
    return false;
  }

  /**
   * The jobs a request gets: those of the {@link #planner()} when one is set, else one per benchmark group
   * (its own, else the defaults) and collector target, in that order, optional on non-default targets.
   *
   * @param request the request
   * @return the job specs, unique by group and tag
   * @throws InvalidQueueInputException when the host's planner returns no list, a missing spec, or a group
   *     and tag twice
   */
  public List<JobSpec> jobsFor(Request request) {
    Optional<JobPlanner> planner = planner();
    if (planner.isEmpty()) {
      return JobPlanner.groupsByTargets(benchmarkGroups(), collectorTargets()).jobsFor(request);
    }
    List<JobSpec> planned = planner.get().jobsFor(request);
    if (planned == null) {
      throw new InvalidQueueInputException("queue settings: the job planner returned no list for "
          + request.label() + "; expected a list of job specs (possibly empty)");
    }
    Set<List<String>> keys = new HashSet<>();
    List<JobSpec> specs = new ArrayList<>(planned.size());
    for (JobSpec spec : planned) {
      if (spec == null) {
        throw new InvalidQueueInputException("queue settings: the job planner returned a missing job spec for "
            + request.label() + "; expected job specs only");
      }
      if (!keys.add(List.of(spec.benchmarkGroup(), spec.collectorTag()))) {
        throw new InvalidQueueInputException("queue settings: the job planner gave " + request.label() + " "
            + spec.benchmarkGroup() + "@" + spec.collectorTag() + " twice; expected each group and tag at most"
            + " once");
      }
      specs.add(spec);
    }
    return List.copyOf(specs);
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
      JobSpec.required(group, "tag");
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
    if (noJobs() && (!benchmarkGroups().isEmpty() || !collectorTargets().isEmpty())) {
      throw new InvalidQueueInputException("queue settings: noJobs is set, but there are "
          + benchmarkGroups().size() + " benchmark groups and " + collectorTargets().size()
          + " collector targets; expected none (or noJobs unset)");
    }
    if (planner().isPresent() && (noJobs() || !benchmarkGroups().isEmpty() || !collectorTargets().isEmpty())) {
      throw new InvalidQueueInputException("queue settings: a job planner is set, but so are "
          + (noJobs() ? "noJobs" : benchmarkGroups().size() + " benchmark groups and " + collectorTargets().size()
          + " collector targets") + "; expected the planner alone to decide the jobs");
    }
    if (planner().isPresent()) {
      return;
    }
    if (!noJobs() && benchmarkGroups().isEmpty()) {
      throw new InvalidQueueInputException("queue settings: benchmarkGroups is empty; expected at least one"
          + " default benchmark group (without one every request completes at once with no jobs; use"
          + " QueueSettings.withoutJobs() if that is what you want)");
    }
    if (!noJobs() && collectorTargets().isEmpty()) {
      throw new InvalidQueueInputException("queue settings: collectorTargets is empty; expected at least one"
          + " collector target (without one every request completes at once with no jobs; use"
          + " QueueSettings.withoutJobs() if that is what you want)");
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
   * A new builder; unset settings take their defaults. Benchmark groups and collector targets have none:
   * add at least one of each, or set a {@link JobPlanner}.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link QueueSettings}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableQueueSettings.Builder {
    Builder() {}
  }

  /**
   * The default settings of a queue whose requests get no jobs ({@link #noJobs()}): every request
   * completes as a success in the tick that starts it. For tests and measurements of the queue itself.
   *
   * @return the default settings without benchmark groups or collector targets
   */
  public static QueueSettings withoutJobs() {
    return builder().noJobs(true).build();
  }
}
