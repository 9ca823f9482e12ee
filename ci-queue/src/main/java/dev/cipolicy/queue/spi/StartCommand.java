package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.RequestId;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The arguments of {@link QueueStore#startRequest}: which ready request to start, the jobs to create for
 * it, whether to backfill the same jobs to its parent, and the in-progress cap to enforce.
 *
 * @param requestId the request to start
 * @param jobs the jobs to create, in order; unique by group and tag
 * @param backfillParent whether to enqueue the same jobs for the parent request
 * @param maxInProgress the cap K: start only if fewer requests are in progress
 */
public record StartCommand(RequestId requestId, List<JobSpec> jobs, boolean backfillParent,
    int maxInProgress) {

  /** Checks the components and copies the list. */
  public StartCommand {
    Checks.present(requestId, "start request id");
    jobs = List.copyOf(Checks.present(jobs, "start jobs"));
    Set<List<String>> keys = new HashSet<>();
    for (JobSpec spec : jobs) {
      if (!keys.add(List.of(spec.benchmarkGroup(), spec.collectorTag()))) {
        throw new InvalidQueueInputException("the jobs of " + requestId + " list " + spec.benchmarkGroup() + "@"
            + spec.collectorTag() + " twice; expected each group and tag at most once");
      }
    }
    Checks.atLeast(maxInProgress, 1, "maximum of requests in progress");
  }
}
