package dev.cipolicy.cli;

import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.QueueStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Follows the jobs of one request in the store until every followed job has ended: it reads them every poll
 * interval and reports each change once, through {@link FleetReport}'s lines: a start (host, devices, time
 * waited), a return to the queue (a host died or released it: the job runs again), and an end (outcome, time
 * run, the failure). A job that started and ended between two polls gets its start line too, from the store's
 * record of its attempt. Times are the store's: a start is its attempt's record (else {@link QueueStore#now()} at
 * the poll that saw it), an end the job's finish. Reads go through a {@link StoreBudget}.
 */
final class FleetFollower {
  private final QueueStore store;
  private final RequestId request;
  private final Set<String> names;
  private final StoreBudget budget;
  private final StoreBudget.Sleeper sleeper;
  private final long pollMillis;
  private final Consumer<String> out;
  private final Function<JobId, @Nullable String> logLink;
  private final Map<JobId, Seen> seen = new LinkedHashMap<>();
  /** Guards {@link #seen}: the shutdown hook reads the jobs while the main thread may be polling. */
  private final ReentrantLock lock = new ReentrantLock();

  /** What the follower has seen of one job. */
  private static final class Seen {
    final Job first;
    @Nullable Instant startedAt;
    @Nullable Lease lease;
    @Nullable String host;
    List<Integer> devices = List.of();
    int attempt;
    boolean ended;
    Job last;

    Seen(Job job) {
      this.first = job;
      this.last = job;
    }
  }

  /**
   * A follower.
   *
   * @param store the store
   * @param request the submitted request
   * @param names the job names to follow; empty for all of the request's jobs
   * @param budget how long an unreachable store is retried
   * @param sleeper waits between polls
   * @param pollMillis the poll interval
   * @param out where the lines go
   * @param logLink the page of a job's log, or null for none
   */
  FleetFollower(QueueStore store, RequestId request, Set<String> names, StoreBudget budget,
      StoreBudget.Sleeper sleeper, long pollMillis, Consumer<String> out,
      Function<JobId, @Nullable String> logLink) {
    this.store = store;
    this.request = request;
    this.names = Set.copyOf(names);
    this.budget = budget;
    this.sleeper = sleeper;
    this.pollMillis = pollMillis;
    this.out = out;
    this.logLink = logLink;
  }

  /**
   * Polls until every followed job has ended.
   *
   * @return the followed jobs as they ended, in the request's order
   * @throws InterruptedException when interrupted
   */
  List<FleetReport.Job> follow() throws InterruptedException {
    while (!poll()) {
      sleeper.sleep(pollMillis);
    }
    return report();
  }

  /**
   * Reads the jobs once and prints what changed.
   *
   * @return whether every followed job has ended
   * @throws InterruptedException when interrupted while retrying the store
   */
  boolean poll() throws InterruptedException {
    lock.lock();
    try {
      return update(budget.call(() -> store.jobs(request)), budget.call(store::now));
    } finally {
      lock.unlock();
    }
  }

  /**
   * The jobs as they stand now, read once from the store, for the step summary of a step that is being
   * cancelled: no retry (the runner kills the process a few seconds after its signal), and nothing when the
   * main thread holds the jobs past {@code waitMillis} or the store does not answer.
   *
   * @param waitMillis how long to wait for a poll in progress
   * @return the followed jobs, or empty
   */
  Optional<List<FleetReport.Job>> snapshot(long waitMillis) {
    try {
      if (!lock.tryLock(waitMillis, TimeUnit.MILLISECONDS)) {
        return Optional.empty();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
    try {
      update(store.jobs(request), store.now());
      Instant now = store.now();
      return Optional.of(seen.values().stream().map(s -> view(s, now)).toList());
    } catch (dev.cipolicy.api.CiPolicyException | InterruptedException e) {
      return Optional.empty();
    } finally {
      lock.unlock();
    }
  }

  private boolean update(List<Job> jobs, Instant now) throws InterruptedException {
    boolean all = true;
    for (Job job : jobs) {
      if (!names.isEmpty() && !names.contains(job.spec().benchmarkGroup())) {
        continue;
      }
      Seen s = seen.computeIfAbsent(job.id(), id -> new Seen(job));
      update(s, job, now);
      all &= s.ended;
    }
    return all && !seen.isEmpty();
  }

  /** Whether every followed job has ended (false before the first poll). */
  boolean done() {
    return !seen.isEmpty() && seen.values().stream().allMatch(s -> s.ended);
  }

  /** The ids of the followed jobs seen so far. */
  List<JobId> jobIds() {
    return List.copyOf(seen.keySet());
  }

  private void update(Seen s, Job job, Instant now) throws InterruptedException {
    s.last = job;
    if (s.ended) {
      return;
    }
    Optional<Lease> lease = job.lease();
    boolean terminal = job.state() == JobState.SUCCEEDED || job.state() == JobState.FAILED
        || job.state() == JobState.CANCELLED;
    if (s.lease != null && (job.state() == JobState.QUEUED || job.attempt() != s.attempt)) {
      // back in the queue since the last poll, and perhaps already claimed again (or even ended) elsewhere
      out.accept(Console.plain("requeued " + job.spec().benchmarkGroup() + " (it ran on " + s.lease.collector()
          + "): " + job.lastError().orElse("its lease ended without a result") + "; it will run again"));
      s.lease = null;
      s.startedAt = null;
    }
    if (lease.isPresent() && s.lease == null) {
      // a new lease: the job started (again), when its attempt's record says (the first poll of a step may come
      // seconds after the start); when the store keeps no attempts, when this poll saw it
      s.lease = lease.get();
      s.attempt = job.attempt();
      s.startedAt = lastAttempt(job.id()).filter(a -> a.attempt() == job.attempt()).map(JobAttempt::startedAt)
          .orElse(now);
      out.accept(FleetReport.started(view(s, now)));
    }
    if (terminal) {
      s.ended = true;
      if (s.lease == null && job.state() != JobState.CANCELLED) {
        // it started and ended between two polls (or before this step followed it): its last attempt says where
        // and when it ran
        Optional<JobAttempt> last = lastAttempt(job.id());
        if (last.isPresent()) {
          s.host = last.get().collector();
          s.devices = last.get().devices();
          s.startedAt = last.get().startedAt();
          // its start was not seen: the step's log still says where it ran, on which devices, after what wait
          out.accept(FleetReport.started(view(s, now)));
        } else {
          s.host = budget.call(() -> store.result(job.id())).map(r -> r.collector()).orElse(null);
        }
      }
      out.accept(FleetReport.ended(view(s, now)));
    }
  }

  /** The job's last attempt, when the store records attempts. */
  private Optional<JobAttempt> lastAttempt(JobId id) throws InterruptedException {
    try {
      List<JobAttempt> attempts = budget.call(() -> store.attempts(id));
      return attempts.isEmpty() ? Optional.empty() : Optional.of(attempts.get(attempts.size() - 1));
    } catch (UnsupportedOperationException e) {
      return Optional.empty();
    }
  }

  /** The followed jobs as the report shows them, in the request's order. */
  List<FleetReport.Job> report() throws InterruptedException {
    lock.lock();
    try {
      List<FleetReport.Job> out = new ArrayList<>();
      Instant now = budget.call(store::now);
      for (Seen s : seen.values()) {
        out.add(view(s, now));
      }
      return out;
    } finally {
      lock.unlock();
    }
  }

  /** The failed or cancelled jobs' log tails, each read from the store once. */
  FleetReport.Job withLogTail(FleetReport.Job job, JobId id) throws InterruptedException {
    Optional<JobLogView> log = budget.call(() -> store.log(id));
    String tail = log.map(JobLogView::text).orElse("");
    return new FleetReport.Job(job.id(), job.name(), job.required(), job.host(), job.devices(), job.waited(),
        job.ran(), job.outcome(), job.error(), tail, job.logLink());
  }

  private FleetReport.Job view(Seen s, Instant now) {
    Job job = s.last;
    Lease lease = s.lease;
    Instant created = s.first.createdAt();
    Duration waited = s.startedAt == null ? null : Duration.between(created, s.startedAt);
    Instant end = job.finishedAt().orElse(now);
    Duration ran = s.startedAt == null || !s.ended ? null : Duration.between(s.startedAt, end);
    String error = job.state() == JobState.SUCCEEDED ? null
        : job.failure().map(f -> f.detail()).or(job::lastError).orElse(null);
    return new FleetReport.Job(job.id().value(), job.spec().benchmarkGroup(), !job.spec().optional(),
        lease == null ? s.host : lease.collector(), lease == null ? s.devices : lease.devices(), waited, ran,
        outcome(job), error, "", logLink.apply(job.id()));
  }

  private static FleetReport.Outcome outcome(Job job) {
    return switch (job.state()) {
      case QUEUED -> FleetReport.Outcome.WAITING;
      case LEASED -> FleetReport.Outcome.RUNNING;
      case SUCCEEDED -> FleetReport.Outcome.SUCCEEDED;
      case FAILED -> FleetReport.Outcome.FAILED;
      case CANCELLED -> FleetReport.Outcome.CANCELLED;
    };
  }
}
