package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.time.Duration;
import java.util.Optional;

/**
 * What became of one job a {@link CollectorRuntime} ran, handed to its {@linkplain CollectorRuntime.Builder#onJobDone job
 * listener} once the job's thread is done with it (for the host's own records: the log, the duration).
 *
 * @param job the job as claimed
 * @param lease its last lease
 * @param disposition what the collector told the queue
 * @param failure the failure reported, for {@link Disposition#FAILED}
 * @param stopReason why the job was stopped early, if it was
 * @param reported what the queue answered to the report; empty when nothing was reported or the store
 *     could not be reached
 * @param duration how long the runner ran, on the collector's clock
 * @param log the job log's kept text
 * @param logTruncated whether the log left bytes out
 */
public record JobReport(Job job, Lease lease, Disposition disposition, Optional<Failure> failure,
    Optional<StopReason> stopReason, Optional<LeaseStatus> reported, Duration duration, String log,
    boolean logTruncated) {

  /** What the collector told the queue about a job. */
  public enum Disposition {
    /** Completed, with the runner's result if it had one. */
    COMPLETED,
    /** Failed, transient or permanent (including a timeout). */
    FAILED,
    /** Released unfinished: the collector shut down. */
    RELEASED,
    /** Nothing: the request was cancelled, and the queue cancelled the job itself. */
    CANCELLED,
    /** Nothing: the lease was no longer this collector's. */
    LOST,
    /** Nothing: the collector was {@linkplain CollectorRuntime#abandon() abandoned}; the lease expires. */
    ABANDONED
  }

  /** Checks the components. */
  public JobReport {
    Settings.present(job, "reported job");
    Settings.present(lease, "reported lease");
    Settings.present(disposition, "job disposition");
    Settings.present(failure, "reported failure");
    Settings.present(stopReason, "stop reason");
    Settings.present(reported, "reported status");
    Settings.present(duration, "job duration");
    Settings.present(log, "job log text");
  }
}
