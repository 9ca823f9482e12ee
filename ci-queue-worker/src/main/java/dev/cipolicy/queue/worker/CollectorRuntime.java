package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.QueueNames;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.RegisterResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The collector runtime: one collector of a {@link JobQueue}, claiming the jobs of its tag and running each
 * through the host's {@link JobRunner} on a thread of its own, at most {@linkplain Builder#concurrency
 * concurrency} at once. Built and started by {@link #builder(JobQueue)}; stopped by {@link #close()}.
 *
 * <p>Three kinds of threads, all made by the builder's {@link ThreadFactory}:
 *
 * <ul>
 *   <li>the <em>claim loop</em> claims as many jobs as there are free slots, its own requeued jobs first (the
 *       queue's rule); when a claim comes back empty it waits on its {@link Wakeups} for at most the claim
 *       interval, and when every slot is busy until a job ends;
 *   <li>the <em>heartbeat loop</em> sends, every heartbeat interval, the collector's heartbeat (idle or busy,
 *       so a collector holding a live lease never shows offline) and one lease heartbeat per running job:
 *       {@code OK} renews the lease, {@code CANCELLED} stops the job ({@link StopReason#REQUEST_CANCELLED}),
 *       {@code STALE_LEASE} or {@code NOT_FOUND} stops it too ({@link StopReason#LEASE_LOST}); it also stops
 *       jobs that ran past their timeout ({@link StopReason#TIMEOUT}): the job's own
 *       ({@link JobSpec#timeout()}) or else the collector's {@code jobTimeout}. Stopping a job marks its
 *       {@link JobContext} and interrupts its thread;
 *   <li>one <em>job thread</em> per running job calls the runner, then reports: a success completes the job
 *       (with its result), a failure fails it, an exception fails it as transient unless it is a
 *       {@link PermanentJobException} or the {@linkplain Builder#permanentWhen classifier} says permanent, a
 *       timeout fails it with the timeout's kind; a cancelled or lost job is not reported.
 * </ul>
 *
 * <p>A store that cannot be reached (a {@link QueueStoreException}) never stops a loop: the call is counted
 * ({@value CollectorMeters#STORE_ERRORS}) and made again at the next interval; a report is tried three times.
 *
 * <p>Shutdown ({@link #close(Duration)}): the claim loop stops at once; running jobs may finish within the
 * grace period, their leases renewed meanwhile; when it runs out, every job still running is stopped
 * ({@link StopReason#SHUTDOWN}): its lease is released at once (the job runs again elsewhere without spending
 * a retry budget) and its thread interrupted. {@code close} returns when every thread of the collector has
 * ended; a runner that ignores interruption delays it (holding no lease by then). {@link #abandon()} instead
 * stops everything without telling the queue anything, as a crashed process would.
 */
public final class CollectorRuntime implements AutoCloseable {

  /** The default claim interval: the longest idle wait between two claims. */
  public static final Duration DEFAULT_CLAIM_INTERVAL = Duration.ofSeconds(5);
  /** The default shutdown grace period. */
  public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);
  /** The most jobs a collector may run at once. */
  public static final int MAX_CONCURRENCY = 1024;
  /** How many times a job's report (complete, fail, release) is tried against an unreachable store. */
  static final int REPORT_ATTEMPTS = 3;

  private final JobQueue queue;
  private final String name;
  private final String tag;
  private final JobRunner runner;
  private final int concurrency;
  private final Duration claimInterval;
  private final Duration heartbeatInterval;
  private final @Nullable Duration jobTimeout;
  private final Failure.Kind timeoutKind;
  private final Duration shutdownGrace;
  private final Predicate<Throwable> permanentWhen;
  private final Wakeups wakeups;
  private final InstantSource clock;
  private final Sleeper sleeper;
  private final ThreadFactory threads;
  private final MeterRegistry registry;
  private final int logLimit;
  private final Duration logFlushInterval;
  private final Consumer<JobReport> onJobDone;
  private final Meters meters;

  private final Object lock = new Object();
  /** The jobs claimed and not yet done, by id; guarded by {@link #lock}. */
  private final Map<JobId, Running> running = new LinkedHashMap<>();
  /** The job threads started and not yet seen ended; guarded by {@link #lock}. */
  private final List<Thread> jobThreads = new ArrayList<>();
  private volatile boolean stopping;
  private volatile boolean heartbeatStop;
  /** Set once the first close or abandon has begun; guarded by {@link #lock}. */
  private boolean closing;
  private final Thread claimThread;
  private final Thread heartbeatThread;
  private final CountDownLatch ended = new CountDownLatch(1);
  /** What registering at start did; null when the builder was told not to register. */
  private volatile @Nullable RegisterResult registration;

  private CollectorRuntime(Builder b, JobRunner runner) {
    this.queue = b.queue;
    this.name = Settings.present(b.name, "collector name");
    this.tag = Settings.present(b.tag, "collector tag");
    this.runner = runner;
    this.concurrency = b.concurrency;
    this.claimInterval = b.claimInterval;
    this.heartbeatInterval = b.heartbeatInterval != null ? b.heartbeatInterval : defaultHeartbeat(queue);
    if (heartbeatInterval.compareTo(queue.settings().leaseDuration()) >= 0) {
      throw new InvalidQueueInputException("heartbeat interval " + heartbeatInterval + " of collector " + name
          + " is not shorter than the lease duration " + queue.settings().leaseDuration()
          + "; expected a fraction of it, such as a third");
    }
    this.jobTimeout = b.jobTimeout;
    this.timeoutKind = b.timeoutKind;
    this.shutdownGrace = b.shutdownGrace;
    this.permanentWhen = b.permanentWhen;
    this.wakeups = b.wakeups != null ? b.wakeups : Wakeups.polling(b.sleeper);
    this.clock = b.clock;
    this.sleeper = b.sleeper;
    this.threads = b.threads != null ? b.threads : named(name);
    this.registry = b.registry != null ? b.registry : new SimpleMeterRegistry();
    this.logLimit = b.logLimit;
    this.logFlushInterval = b.logFlushInterval;
    this.onJobDone = b.onJobDone;
    this.meters = new Meters(registry, name, tag, this::runningCount);
    this.claimThread = threads.newThread(this::claimLoop);
    this.heartbeatThread = threads.newThread(this::heartbeatLoop);
  }

  /**
   * The default heartbeat interval: a third of the shorter of the lease duration and the collector timeout,
   * so that two heartbeats can be missed before either runs out.
   */
  static Duration defaultHeartbeat(JobQueue queue) {
    Duration lease = queue.settings().leaseDuration();
    Duration timeout = queue.settings().collectorTimeout();
    Duration shorter = lease.compareTo(timeout) <= 0 ? lease : timeout;
    Duration third = shorter.dividedBy(3);
    return third.isZero() ? Duration.ofNanos(1) : third;
  }

  /**
   * A builder of a collector on the given queue.
   *
   * @param queue the queue, whose settings give the lease duration and collector timeout
   * @return the builder
   * @throws InvalidQueueInputException when the queue is missing
   */
  public static Builder builder(JobQueue queue) {
    return new Builder(Settings.present(queue, "job queue"));
  }

  private static ThreadFactory named(String collector) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "collector-" + collector + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  // ---------------------------------------------------------------------------------------------- the API

  /**
   * The collector's name.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * The collector's tag.
   *
   * @return the tag
   */
  public String tag() {
    return tag;
  }

  /**
   * The heartbeat interval in use (given, or the default).
   *
   * @return the interval
   */
  public Duration heartbeatInterval() {
    return heartbeatInterval;
  }

  /**
   * The registry the collector's meters are in (the given one, or its own simple registry).
   *
   * @return the registry
   */
  public MeterRegistry meterRegistry() {
    return registry;
  }

  /**
   * The current leases of the jobs running now, in claim order.
   *
   * @return the leases
   */
  public List<Lease> runningLeases() {
    synchronized (lock) {
      return running.values().stream().map(r -> r.context.lease()).toList();
    }
  }

  /**
   * Whether the collector still claims: false once {@link #close()} or {@link #abandon()} began.
   *
   * @return true while claiming
   */
  public boolean isClaiming() {
    return !stopping;
  }

  /**
   * What registering the host at start did: {@code REGISTERED}; {@code ALREADY_REGISTERED} (the store had this
   * inventory); {@code INVENTORY_UPDATED} (the store took the inventory given, which differs from the one it had);
   * or {@code INVENTORY_PENDING}, which is not an error: a live lease still holds a device that the inventory
   * given removes, so the store places no new lease on a removed device, uses no added one, and takes the
   * inventory at this collector's first claim after that lease ends ({@link RegisterResult.Status}). A name taken
   * by another pool, or a collector being retired, fails {@link Builder#start()} instead.
   *
   * @return the registration, or empty when the builder was told not to register
   */
  public Optional<RegisterResult> registration() {
    return Optional.ofNullable(registration);
  }

  /** Shuts down with the builder's grace period; see {@link #close(Duration)}. */
  @Override
  public void close() {
    close(shutdownGrace);
  }

  /**
   * Shuts down gracefully: stops claiming, lets the running jobs finish within {@code grace} (their leases
   * renewed meanwhile), then stops the rest with {@link StopReason#SHUTDOWN}, releasing their leases and
   * interrupting their threads, and returns once every thread of the collector has ended. Calling it again,
   * or after {@link #abandon()}, waits for the same end.
   *
   * @param grace how long running jobs may take to finish; zero releases them at once
   * @throws InvalidQueueInputException when the grace is missing or negative
   */
  public void close(Duration grace) {
    Settings.between(grace, Duration.ZERO, Duration.ofDays(1), "shutdown grace");
    if (!beginClosing()) {
      awaitEnd();
      return;
    }
    stopClaiming();
    long deadline = System.nanoTime() + grace.toNanos();
    synchronized (lock) {
      while (!running.isEmpty()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(lock, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    for (Running r : snapshot()) {
      if (r.takeReport(false)) {
        r.context.stop(StopReason.SHUTDOWN);
        r.interrupt();
        LeaseResult result = report("release", () -> queue.release(r.context.lease()));
        if (result != null && result.ok()) {
          meters.releases.increment();
        }
        finish(r, dispositionOf(result, JobReport.Disposition.RELEASED), null, result);
      }
    }
    joinJobs();
    heartbeatStop = true;
    heartbeatThread.interrupt();
    join(heartbeatThread);
    ended.countDown();
  }

  /**
   * Stops every thread without telling the queue anything, as a crashed process would: no job is reported
   * or released, no heartbeat is sent, so the leases expire and the queue rescues the jobs after one lease
   * time. Runners are interrupted and their outcomes discarded. For crash-recovery tests, and for a host that
   * must exit at once. Returns once every thread has ended.
   */
  public void abandon() {
    if (!beginClosing()) {
      awaitEnd();
      return;
    }
    heartbeatStop = true;
    heartbeatThread.interrupt();
    stopClaiming();
    join(heartbeatThread);
    for (Running r : snapshot()) {
      if (r.takeReport(false)) {
        r.context.stop(StopReason.SHUTDOWN);
        r.interrupt();
        finish(r, JobReport.Disposition.ABANDONED, null, null);
      }
    }
    joinJobs();
    ended.countDown();
  }

  private boolean beginClosing() {
    synchronized (lock) {
      if (closing) {
        return false;
      }
      closing = true;
      stopping = true;
      lock.notifyAll();
      return true;
    }
  }

  private void awaitEnd() {
    try {
      ended.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void stopClaiming() {
    claimThread.interrupt();
    join(claimThread);
  }

  private void joinJobs() {
    while (true) {
      Thread next;
      synchronized (lock) {
        if (jobThreads.isEmpty()) {
          return;
        }
        next = jobThreads.get(0);
      }
      join(next);
      synchronized (lock) {
        jobThreads.remove(next);
      }
    }
  }

  private static void join(Thread t) {
    boolean interrupted = false;
    while (t.isAlive()) {
      try {
        t.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private List<Running> snapshot() {
    synchronized (lock) {
      return new ArrayList<>(running.values());
    }
  }

  private int runningCount() {
    synchronized (lock) {
      return running.size();
    }
  }

  // ---------------------------------------------------------------------------------------------- start

  private CollectorRuntime start(boolean register, Devices devices) {
    if (register) {
      RegisterResult result = queue.registerHost(name, tag, devices);
      if (result.status() == RegisterResult.Status.NAME_TAKEN) {
        throw new InvalidQueueInputException("collector name " + name + " is taken by a collector of tag "
            + result.collector().tag() + "; expected tag " + tag + " or another name (or retire it first)");
      }
      if (result.status() == RegisterResult.Status.RETIRING) {
        throw new InvalidQueueInputException("collector " + name + " is being retired and still holds a live"
            + " lease; expected it to start again once its leases end (at most one lease duration, "
            + queue.settings().leaseDuration().toSeconds() + " s)");
      }
      registration = result;
    }
    heartbeatThread.start();
    claimThread.start();
    return this;
  }

  // ---------------------------------------------------------------------------------------------- claim loop

  private void claimLoop() {
    while (!stopping) {
      try {
        int free;
        synchronized (lock) {
          free = concurrency - running.size();
          if (free <= 0) {
            TimeUnit.NANOSECONDS.timedWait(lock, claimInterval.toNanos());
            continue;
          }
        }
        long seen = wakeups.generation(tag);
        ClaimResult claimed;
        try {
          claimed = queue.claim(name, free);
        } catch (QueueStoreException e) {
          meters.claimError.increment();
          meters.storeError("claim");
          sleeper.sleep(claimInterval);
          continue;
        }
        if (claimed.status() != ClaimResult.Status.OK) {
          meters.claimRefused.increment();
          sleeper.sleep(claimInterval);
          continue;
        }
        if (claimed.claims().isEmpty()) {
          meters.claimEmpty.increment();
          wakeups.awaitQueued(tag, seen, claimInterval);
          continue;
        }
        meters.claimJobs.increment();
        meters.jobsClaimed.increment(claimed.claims().size());
        for (Claim claim : claimed.claims()) {
          launch(claim);
        }
      } catch (InterruptedException e) {
        if (stopping) {
          return;
        }
      } catch (RuntimeException e) {
        // A wake-up port or store that failed in an unforeseen way: count it and claim again later.
        meters.storeError("claim");
        try {
          sleeper.sleep(claimInterval);
        } catch (InterruptedException stop) {
          if (stopping) {
            return;
          }
        }
      }
    }
  }

  private void launch(Claim claim) {
    LogShipper shipper = new LogShipper(queue, clock, logFlushInterval, meters::storeError);
    Running r = new Running(new SimpleJobContext(claim, new JobLog(logLimit, shipper)), clock.instant(), shipper);
    shipper.attach(r.context::lease);
    synchronized (lock) {
      if (!stopping) {
        Thread t = threads.newThread(() -> runJob(r));
        r.thread = t;
        running.put(claim.job().id(), r);
        // Ended threads need no join: the list stays as long as the jobs running plus those just ended.
        jobThreads.removeIf(t2 -> !t2.isAlive());
        jobThreads.add(t);
        t.start();
        return;
      }
    }
    // Claimed while shutting down: hand it straight back.
    r.takeReport(false);
    LeaseResult result = report("release", () -> queue.release(claim.lease()));
    if (result != null && result.ok()) {
      meters.releases.increment();
    }
  }

  // ---------------------------------------------------------------------------------------------- heartbeat

  private void heartbeatLoop() {
    while (!heartbeatStop) {
      try {
        sleeper.sleep(heartbeatInterval);
      } catch (InterruptedException e) {
        continue;
      }
      if (!heartbeatStop) {
        beat();
      }
    }
  }

  /** One heartbeat round: the collector's, then every running job's lease, then the timeouts. */
  void beat() {
    try {
      queue.collectorHeartbeat(name);
      meters.collectorHeartbeats.increment();
    } catch (QueueStoreException e) {
      meters.storeError("collector_heartbeat");
    }
    Instant now = clock.instant();
    for (Running r : snapshot()) {
      if (r.reportTaken()) {
        continue;
      }
      r.shipper.flush();
      LeaseResult result;
      try {
        result = queue.heartbeat(r.context.lease());
      } catch (QueueStoreException e) {
        meters.storeError("heartbeat");
        continue;
      }
      switch (result.status()) {
        case OK -> {
          meters.renewals.increment();
          result.job().flatMap(j -> j.lease()).ifPresent(r.context::renewed);
        }
        case CANCELLED -> {
          if (stop(r, StopReason.REQUEST_CANCELLED)) {
            meters.cancellations.increment();
          }
        }
        case STALE_LEASE, NOT_FOUND -> {
          if (!r.reportTaken() && stop(r, StopReason.LEASE_LOST)) {
            meters.leaseLost(result.status());
          }
        }
      }
      Duration limit = timeoutOf(r);
      if (limit != null && !r.context.isCancelled() && Duration.between(r.started, now).compareTo(limit) > 0) {
        stop(r, StopReason.TIMEOUT);
      }
    }
  }

  /** A job's timeout: its own ({@link JobSpec#timeout()}) when it has one, else the collector's, or none. */
  private @Nullable Duration timeoutOf(Running r) {
    JobSpec spec = r.context.job().spec();
    return spec.hasTimeout() ? spec.timeout() : jobTimeout;
  }

  private static boolean stop(Running r, StopReason reason) {
    if (r.context.stop(reason)) {
      r.interrupt();
      return true;
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------- job thread

  private void runJob(Running r) {
    JobOutcome outcome = null;
    Throwable thrown = null;
    try {
      outcome = runner.run(r.context);
      if (outcome == null) {
        thrown = new IllegalStateException("the job runner returned no outcome");
      }
    } catch (Throwable t) {
      thrown = t;
    }
    r.shipper.flush(); // the output is in the store before the lease ends
    if (!r.takeReport(true)) {
      // close() or abandon() already spoke for this job.
      return;
    }
    // An interrupt that arrived before the report was taken is spent; none arrives after.
    boolean wasInterrupted = Thread.interrupted();
    if (wasInterrupted && r.context.stopReason().isEmpty()) {
      r.context.stop(StopReason.SHUTDOWN);
    }
    StopReason stopped = r.context.stopReason().orElse(null);
    if (stopped == StopReason.REQUEST_CANCELLED) {
      finish(r, JobReport.Disposition.CANCELLED, null, null);
      return;
    }
    if (stopped == StopReason.LEASE_LOST) {
      finish(r, JobReport.Disposition.LOST, null, null);
      return;
    }
    if (stopped == StopReason.SHUTDOWN) {
      // Only close() stops with SHUTDOWN, and it reports itself; kept for safety.
      LeaseResult result = report("release", () -> queue.release(r.context.lease()));
      finish(r, JobReport.Disposition.RELEASED, null, result);
      return;
    }
    Failure failure;
    String cause;
    if (stopped == StopReason.TIMEOUT) {
      // The job overran: whatever the runner made of the stop, it fails with the timeout.
      failure = new Failure(timeoutKind, "timed out after " + timeoutOf(r) + " on collector " + name);
      cause = "timeout";
    } else if (thrown != null) {
      failure = classify(thrown);
      cause = "exception";
    } else if (outcome != null && !outcome.succeeded()) {
      failure = outcome.failure().orElseThrow();
      cause = "outcome";
    } else {
      JobOutcome success = outcome != null ? outcome : JobOutcome.success();
      LeaseResult result = report("report", () -> success.result()
          .map(payload -> queue.complete(r.context.lease(), payload))
          .orElseGet(() -> queue.complete(r.context.lease())));
      finish(r, dispositionOf(result, JobReport.Disposition.COMPLETED), null, result);
      return;
    }
    meters.failure(failure.kind(), cause);
    Failure reported = failure;
    LeaseResult result = report("report", () -> queue.fail(r.context.lease(), reported));
    finish(r, dispositionOf(result, JobReport.Disposition.FAILED), failure, result);
  }

  private JobReport.Disposition dispositionOf(@Nullable LeaseResult result, JobReport.Disposition ok) {
    if (result == null) {
      return ok;
    }
    switch (result.status()) {
      case CANCELLED:
        meters.cancellations.increment();
        return JobReport.Disposition.CANCELLED;
      case STALE_LEASE:
      case NOT_FOUND:
        meters.leaseLost(result.status());
        return JobReport.Disposition.LOST;
      default:
        return ok;
    }
  }

  private Failure classify(Throwable thrown) {
    String detail = describe(thrown);
    boolean permanent = thrown instanceof PermanentJobException;
    if (!permanent) {
      try {
        permanent = permanentWhen.test(thrown);
      } catch (RuntimeException e) {
        permanent = false;
      }
    }
    return permanent ? Failure.permanent(detail) : Failure.transientFailure(detail);
  }

  private static String describe(Throwable thrown) {
    String message = thrown.getMessage();
    String text = thrown instanceof PermanentJobException && message != null ? message
        : thrown.getClass().getName() + (message == null ? "" : ": " + message);
    return Settings.oneLine(text, 1000);
  }

  /** A store call of a report, tried {@link #REPORT_ATTEMPTS} times; null when the store stayed unreachable. */
  private @Nullable LeaseResult report(String operation, Supplier<LeaseResult> call) {
    for (int attempt = 1; attempt <= REPORT_ATTEMPTS; attempt++) {
      try {
        return call.get();
      } catch (QueueStoreException e) {
        meters.storeError(operation);
        if (attempt < REPORT_ATTEMPTS) {
          try {
            sleeper.sleep(Duration.ofMillis(100L * attempt));
          } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
            return null;
          }
        }
      }
    }
    return null;
  }

  private void finish(Running r, JobReport.Disposition disposition, @Nullable Failure failure,
      @Nullable LeaseResult result) {
    Duration duration = Duration.between(r.started, clock.instant());
    if (duration.isNegative()) {
      duration = Duration.ZERO;
    }
    meters.duration(r.context.spec().benchmarkGroup(), disposition, duration);
    synchronized (lock) {
      running.remove(r.context.job().id());
      lock.notifyAll();
    }
    JobReport report = new JobReport(r.context.job(), r.context.lease(), disposition, Optional.ofNullable(failure),
        r.context.stopReason(), result == null ? Optional.empty() : Optional.of(result.status()), duration,
        r.context.log().text(), r.context.log().truncated());
    try {
      onJobDone.accept(report);
    } catch (RuntimeException e) {
      // The host's listener failing is the host's business; the collector runs on.
    }
  }

  /** A job claimed and not yet done. */
  private static final class Running {
    final SimpleJobContext context;
    final Instant started;
    /** Sends the job's output to the store's log of its lease. */
    final LogShipper shipper;
    volatile @Nullable Thread thread;
    /** Whether someone (the job thread, close, abandon) has taken the right to report the job. */
    private boolean reportTaken;
    /** Whether the job thread itself took it (then it is never interrupted again). */
    private boolean takenByJob;

    Running(SimpleJobContext context, Instant started, LogShipper shipper) {
      this.context = context;
      this.started = started;
      this.shipper = shipper;
    }

    synchronized boolean takeReport(boolean byJobThread) {
      if (reportTaken) {
        return false;
      }
      reportTaken = true;
      takenByJob = byJobThread;
      return true;
    }

    synchronized boolean reportTaken() {
      return reportTaken;
    }

    /** Interrupts the runner, unless its thread already reports (a store call is never interrupted). */
    synchronized void interrupt() {
      Thread t = thread;
      if (t != null && !takenByJob) {
        t.interrupt();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------- builder

  /**
   * Builds and starts a {@link CollectorRuntime}. Name, tag and runner are required; everything else has a default.
   * Every setter checks its argument and throws {@link InvalidQueueInputException} for a bad one.
   */
  public static final class Builder {
    private final JobQueue queue;
    private @Nullable String name;
    private @Nullable String tag;
    private Devices devices = Devices.none();
    private @Nullable JobRunner runner;
    private int concurrency = 1;
    private Duration claimInterval = DEFAULT_CLAIM_INTERVAL;
    private @Nullable Duration heartbeatInterval;
    private @Nullable Duration jobTimeout;
    private Failure.Kind timeoutKind = Failure.Kind.TRANSIENT;
    private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
    private Predicate<Throwable> permanentWhen = t -> false;
    private @Nullable Wakeups wakeups;
    private InstantSource clock = Clock.systemUTC();
    private Sleeper sleeper = Sleeper.system();
    private @Nullable ThreadFactory threads;
    private @Nullable MeterRegistry registry;
    private int logLimit = JobLog.DEFAULT_LIMIT;
    private Duration logFlushInterval = Duration.ofSeconds(1);
    private Consumer<JobReport> onJobDone = report -> { };
    private boolean register = true;

    private Builder(JobQueue queue) {
      this.queue = queue;
    }

    /**
     * The collector's unique name (required), e.g. {@code h200-node-7}.
     *
     * @param name a queue name: no white space, at most {@value QueueNames#MAX_NAME} characters
     * @return this builder
     */
    public Builder name(String name) {
      this.name = QueueNames.check(name, "collector name");
      return this;
    }

    /**
     * The tag of the jobs it runs (required), e.g. {@code x86-64} or a GPU pool {@code h200}.
     *
     * @param tag a queue name
     * @return this builder
     */
    public Builder tag(String tag) {
      this.tag = QueueNames.check(tag, "collector tag");
      return this;
    }

    /**
     * The GPU devices it advertises when it registers; default none (it runs only jobs that need none).
     *
     * @param devices the devices
     * @return this builder
     */
    public Builder devices(Devices devices) {
      this.devices = Settings.present(devices, "collector devices");
      return this;
    }

    /**
     * What runs each job (required).
     *
     * @param runner the runner, called on a job thread for every job claimed
     * @return this builder
     */
    public Builder runner(JobRunner runner) {
      this.runner = Settings.present(runner, "job runner");
      return this;
    }

    /**
     * The most jobs running at once; default 1.
     *
     * @param concurrency 1 to {@value CollectorRuntime#MAX_CONCURRENCY}
     * @return this builder
     */
    public Builder concurrency(int concurrency) {
      this.concurrency = Settings.between(concurrency, 1, MAX_CONCURRENCY, "collector concurrency");
      return this;
    }

    /**
     * The longest idle wait between two claims (the polling interval; a wake-up may end it early);
     * default 5 s.
     *
     * @param interval 1 ms to 1 hour
     * @return this builder
     */
    public Builder claimInterval(Duration interval) {
      this.claimInterval = Settings.between(interval, Duration.ofMillis(1), Duration.ofHours(1),
          "claim interval");
      return this;
    }

    /**
     * How often the collector heartbeats and renews its leases; default a third of the shorter of the
     * queue's lease duration and collector timeout. Must be shorter than the lease duration.
     *
     * @param interval 1 ms to 1 hour
     * @return this builder
     */
    public Builder heartbeatInterval(Duration interval) {
      this.heartbeatInterval = Settings.between(interval, Duration.ofMillis(1), Duration.ofHours(1),
          "heartbeat interval");
      return this;
    }

    /**
     * The longest a job may run before it is stopped ({@link StopReason#TIMEOUT}) and failed, for jobs without
     * a timeout of their own ({@link JobSpec#timeout()}, which the planner sets from the policy and which
     * takes precedence); default none. Checked at every heartbeat, so a job is stopped at most one heartbeat
     * interval after it runs out.
     *
     * @param timeout 1 ms to 366 days
     * @return this builder
     */
    public Builder jobTimeout(Duration timeout) {
      this.jobTimeout = Settings.between(timeout, Duration.ofMillis(1), Duration.ofDays(366), "job timeout");
      return this;
    }

    /**
     * How a timed-out job fails; default transient (retried while the queue's budget lasts).
     *
     * @param kind the failure kind
     * @return this builder
     */
    public Builder timeoutFailure(Failure.Kind kind) {
      this.timeoutKind = Settings.present(kind, "timeout failure kind");
      return this;
    }

    /**
     * How long {@link CollectorRuntime#close()} lets running jobs finish; default 30 s.
     *
     * @param grace zero to one day
     * @return this builder
     */
    public Builder shutdownGrace(Duration grace) {
      this.shutdownGrace = Settings.between(grace, Duration.ZERO, Duration.ofDays(1), "shutdown grace");
      return this;
    }

    /**
     * Which exceptions of a runner are permanent failures (besides {@link PermanentJobException}, always
     * permanent); default none, so every other exception is transient.
     *
     * @param classifier true for a permanent failure
     * @return this builder
     */
    public Builder permanentWhen(Predicate<Throwable> classifier) {
      this.permanentWhen = Settings.present(classifier, "permanent-failure classifier");
      return this;
    }

    /**
     * How the idle collector waits for work; default {@link Wakeups#polling(Sleeper)} with this builder's
     * sleeper.
     *
     * @param wakeups the wake-ups
     * @return this builder
     */
    public Builder wakeups(Wakeups wakeups) {
      this.wakeups = Settings.present(wakeups, "wake-ups");
      return this;
    }

    /**
     * The clock job durations and timeouts are measured on; default the system clock. (Lease expiry is
     * always the store's clock.)
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(InstantSource clock) {
      this.clock = Settings.present(clock, "collector clock");
      return this;
    }

    /**
     * How the loops pause between heartbeats and after errors; default {@link Sleeper#system()}.
     *
     * @param sleeper the sleeper
     * @return this builder
     */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Settings.present(sleeper, "collector sleeper");
      return this;
    }

    /**
     * Where the collector's threads come from; default daemon threads named
     * {@code collector-<name>-<n>}.
     *
     * @param threads the thread factory
     * @return this builder
     */
    public Builder threadFactory(ThreadFactory threads) {
      this.threads = Settings.present(threads, "thread factory");
      return this;
    }

    /**
     * Where the meters of {@link CollectorMeters} are registered; default a registry of the collector's
     * own ({@link CollectorRuntime#meterRegistry()}).
     *
     * @param registry the registry
     * @return this builder
     */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = Settings.present(registry, "meter registry");
      return this;
    }

    /**
     * The byte limit of each job's {@link JobLog}; default {@value JobLog#DEFAULT_LIMIT}.
     *
     * @param bytes {@value JobLog#MIN_LIMIT} to {@value JobLog#MAX_LIMIT}
     * @return this builder
     */
    public Builder logLimit(int bytes) {
      this.logLimit = Settings.between(bytes, JobLog.MIN_LIMIT, JobLog.MAX_LIMIT, "job log limit");
      return this;
    }

    /**
     * The shortest time between two appends of a job's output to the store's log (a write that comes later
     * appends what waits; each heartbeat round and the job's end append too); default 1 s.
     *
     * @param interval 1 ms to 1 h
     * @return this builder
     */
    public Builder logFlushInterval(Duration interval) {
      this.logFlushInterval = Settings.between(interval, Duration.ofMillis(1), Duration.ofHours(1),
          "log flush interval");
      return this;
    }

    /**
     * Called on the job's thread once each job is done and reported, with its disposition and log; an
     * exception it throws is ignored.
     *
     * @param listener the listener
     * @return this builder
     */
    public Builder onJobDone(Consumer<JobReport> listener) {
      this.onJobDone = Settings.present(listener, "job listener");
      return this;
    }

    /**
     * Whether {@link #start()} registers the collector (active, with its devices); default true. Registering
     * a name again with the same tag is a no-op, so a restarted collector keeps its identity.
     *
     * @param register false when the host registers collectors itself
     * @return this builder
     */
    public Builder register(boolean register) {
      this.register = register;
      return this;
    }

    /**
     * Registers the collector (unless told not to) and starts its threads.
     *
     * @return the running collector; close it to stop
     * @throws InvalidQueueInputException when the name, tag or runner is missing, the heartbeat interval is
     *     not shorter than the lease, the name is registered with another tag, or its collector is being retired
     *     and still holds a live lease ({@link CollectorRuntime#registration()} tells the other outcomes)
     * @throws QueueStoreException when the store cannot be reached to register
     */
    public CollectorRuntime start() {
      JobRunner r = Settings.present(runner, "job runner");
      Settings.present(name, "collector name");
      Settings.present(tag, "collector tag");
      return new CollectorRuntime(this, r).start(register, devices);
    }
  }

  /** The meters, registered once per collector. */
  private static final class Meters {
    private final MeterRegistry registry;
    private final Tags common;
    final Counter claimJobs;
    final Counter claimEmpty;
    final Counter claimRefused;
    final Counter claimError;
    final Counter jobsClaimed;
    final Counter renewals;
    final Counter cancellations;
    final Counter releases;
    final Counter collectorHeartbeats;

    Meters(MeterRegistry registry, String collector, String pool, IntSupplier runningJobs) {
      this.registry = registry;
      this.common = Tags.of(CollectorMeters.TAG_COLLECTOR, collector,
          CollectorMeters.TAG_POOL, pool);
      this.claimJobs = counter(CollectorMeters.CLAIMS, "result", "jobs");
      this.claimEmpty = counter(CollectorMeters.CLAIMS, "result", "empty");
      this.claimRefused = counter(CollectorMeters.CLAIMS, "result", "refused");
      this.claimError = counter(CollectorMeters.CLAIMS, "result", "error");
      this.jobsClaimed = counter(CollectorMeters.JOBS_CLAIMED);
      this.renewals = counter(CollectorMeters.LEASE_RENEWALS);
      this.cancellations = counter(CollectorMeters.CANCELLATIONS);
      this.releases = counter(CollectorMeters.RELEASES);
      this.collectorHeartbeats = counter(CollectorMeters.COLLECTOR_HEARTBEATS);
      Gauge.builder(CollectorMeters.JOBS_RUNNING, runningJobs,
          IntSupplier::getAsInt).tags(common).register(registry);
    }

    private Counter counter(String meter, String... tags) {
      return Counter.builder(meter).tags(common).tags(tags).register(registry);
    }

    void storeError(String operation) {
      counter(CollectorMeters.STORE_ERRORS, "operation", operation).increment();
    }

    void leaseLost(LeaseStatus status) {
      counter(CollectorMeters.LEASES_LOST, "status", status.name().toLowerCase(Locale.ROOT))
          .increment();
    }

    void failure(Failure.Kind kind, String cause) {
      counter(CollectorMeters.FAILURES, "kind", kind.name().toLowerCase(Locale.ROOT), "cause", cause)
          .increment();
    }

    void duration(String group, JobReport.Disposition disposition, Duration duration) {
      Timer.builder(CollectorMeters.JOB_DURATION).tags(common)
          .tags("group", group, "disposition", disposition.name().toLowerCase(Locale.ROOT))
          .register(registry).record(duration);
    }
  }
}
