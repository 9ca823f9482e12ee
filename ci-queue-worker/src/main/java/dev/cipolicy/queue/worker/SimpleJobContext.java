package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@link JobContext} a {@link CollectorRuntime} gives its runners, usable on its own to run a {@link JobRunner}
 * outside a collector (a test, a one-off tool): {@link #stop} is the stop signal, {@link #renewed} records a
 * renewed lease. Safe for use by several threads.
 */
public final class SimpleJobContext implements JobContext {

  private final Job job;
  private final JobLog log;
  private volatile Lease lease;
  private final AtomicReference<StopReason> stop = new AtomicReference<>();
  private final CountDownLatch stopped = new CountDownLatch(1);

  /**
   * A context for a claimed job.
   *
   * @param claim the claim: the job and its lease
   * @param log the job's log
   * @throws dev.cipolicy.queue.model.InvalidQueueInputException when an argument is missing
   */
  public SimpleJobContext(Claim claim, JobLog log) {
    Settings.present(claim, "claim");
    this.job = claim.job();
    this.lease = claim.lease();
    this.log = Settings.present(log, "job log");
  }

  @Override
  public Job job() {
    return job;
  }

  @Override
  public Lease lease() {
    return lease;
  }

  @Override
  public Optional<StopReason> stopReason() {
    return Optional.ofNullable(stop.get());
  }

  @Override
  public boolean awaitStop(Duration maxWait) throws InterruptedException {
    Duration wait = Settings.present(maxWait, "stop wait");
    long nanos;
    try {
      nanos = wait.toNanos();
    } catch (ArithmeticException e) {
      nanos = Long.MAX_VALUE;
    }
    return stopped.await(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public JobLog log() {
    return log;
  }

  /**
   * Signals the runner to stop; only the first reason counts. This does not interrupt the runner's thread
   * (the collector does that itself).
   *
   * @param reason why
   * @return true when this call set the reason, false when the context was already stopped
   */
  public boolean stop(StopReason reason) {
    boolean first = stop.compareAndSet(null, Settings.present(reason, "stop reason"));
    if (first) {
      stopped.countDown();
    }
    return first;
  }

  /**
   * Records the lease's renewal.
   *
   * @param renewed the renewed lease, the same job, attempt and token
   * @throws dev.cipolicy.queue.model.InvalidQueueInputException when the lease is another job's or attempt's
   */
  public void renewed(Lease renewed) {
    Settings.present(renewed, "renewed lease");
    Lease current = lease;
    if (!renewed.fences(current.jobId(), current.attempt(), current.token())) {
      throw new dev.cipolicy.queue.model.InvalidQueueInputException("lease of job " + renewed.jobId().value()
          + " attempt " + renewed.attempt() + " is no renewal of the lease of job " + current.jobId().value()
          + " attempt " + current.attempt());
    }
    lease = renewed;
  }
}
