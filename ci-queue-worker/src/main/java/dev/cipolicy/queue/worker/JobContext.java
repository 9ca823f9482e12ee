package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Lease;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What a {@link JobRunner} gets for one job: the job and its lease (with the GPU devices it may use), the
 * stop signal, and a bounded log. The {@link CollectorRuntime} renews the lease on its own threads; the runner only
 * runs the job and watches the signal.
 */
public interface JobContext {

  /**
   * The job as it was claimed.
   *
   * @return the job
   */
  Job job();

  /**
   * The job's current lease: the claimed one, or its latest renewal.
   *
   * @return the lease
   */
  Lease lease();

  /**
   * What the job runs.
   *
   * @return the job's spec
   */
  default JobSpec spec() {
    return job().spec();
  }

  /**
   * The indices of the GPU devices the job may use, ascending; empty for a job that needs none.
   *
   * @return the lease's devices
   */
  default List<Integer> devices() {
    return lease().devices();
  }

  /**
   * The cancellation check: whether the job should stop now (its request was cancelled, its lease lost, it
   * timed out, or the collector is shutting down). Once true it stays true.
   *
   * @return true when the runner should stop
   */
  default boolean isCancelled() {
    return stopReason().isPresent();
  }

  /**
   * Why the job should stop.
   *
   * @return the reason, empty while the job may run on
   */
  Optional<StopReason> stopReason();

  /**
   * Waits until the job should stop, or {@code maxWait} passes.
   *
   * @param maxWait the longest wait
   * @return true when the job should stop
   * @throws InterruptedException when the thread is interrupted (which is also how a stop is delivered)
   */
  boolean awaitStop(Duration maxWait) throws InterruptedException;

  /**
   * The job's bounded log; the collector hands its text to its {@linkplain CollectorRuntime.Builder#onJobDone job
   * listener} when the job is done.
   *
   * @return the log
   */
  JobLog log();
}
