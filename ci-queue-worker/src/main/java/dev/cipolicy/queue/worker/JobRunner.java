package dev.cipolicy.queue.worker;

/**
 * The host's port that runs one claimed job: a benchmark, a test shard, a build. A {@link CollectorRuntime} calls it
 * on a thread of its own for every job it claims, and reports what it returns:
 *
 * <ul>
 *   <li>a {@linkplain JobOutcome#success() success} completes the job, with its result payload if any;
 *   <li>a {@linkplain JobOutcome#failed failure} fails it, transient (retried while the queue's budget
 *       lasts) or permanent;
 *   <li>an exception fails it as transient, unless it is a {@link PermanentJobException} or the collector's
 *       {@linkplain CollectorRuntime.Builder#permanentWhen permanent classifier} says otherwise.
 * </ul>
 *
 * <p>A runner should check {@link JobContext#isCancelled()} (or wait with {@link JobContext#awaitStop}) and
 * respond to interruption: when the request is cancelled, the lease is lost, the job times out or the
 * collector shuts down, the collector marks the context stopped and interrupts the runner's thread. What a
 * stopped runner returns is not reported as the job's result (see {@link StopReason}).
 */
@FunctionalInterface
public interface JobRunner {

  /**
   * Runs the job of the context to its end.
   *
   * @param context the lease, the job, the stop signal and the log
   * @return what the job came to
   * @throws Exception any failure; classified as described above
   */
  JobOutcome run(JobContext context) throws Exception;
}
