package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.spi.QueueStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The fence of a lease, what a fenced update names: the job, the attempt and the token (without the expiry
 * and holder, which the store knows). The argument of {@link QueueStore#heartbeat}, {@link QueueStore#complete},
 * {@link QueueStore#fail} and {@link QueueStore#release}, and one item of {@link QueueStore#completeAll}.
 *
 * @param jobId the leased job
 * @param attempt the lease's attempt
 * @param token the lease's fencing token
 */
public record LeaseRef(JobId jobId, int attempt, long token) {

  /** Checks the components. */
  public LeaseRef {
    Checks.present(jobId, "lease job id");
    Checks.atLeast(attempt, 1, "lease attempt");
  }

  /**
   * The fence of a lease.
   *
   * @param lease the lease
   * @return its job, attempt and token
   */
  public static LeaseRef of(Lease lease) {
    Checks.present(lease, "lease");
    return new LeaseRef(lease.jobId(), lease.attempt(), lease.token());
  }

  /**
   * Whether this fence names the given lease: same job, attempt and token.
   *
   * @param lease a lease
   * @return true when all three match
   */
  public boolean matches(Lease lease) {
    return lease.fences(jobId, attempt, token);
  }

  /**
   * Checks a batch of fences, as every {@link QueueStore#completeAll} does before it changes anything: the
   * list and its items are present and no job appears twice (two fences of one job in one batch are a
   * caller's mistake: at most one of them can be live, and the order would decide the results).
   *
   * @param refs the batch
   * @return an immutable copy, in the given order
   * @throws InvalidQueueInputException when the list or an item is missing, or a job appears twice
   */
  public static List<LeaseRef> checkedBatch(@Nullable List<LeaseRef> refs) {
    if (refs == null) {
      throw new InvalidQueueInputException("the leases to complete are missing; expected a list (possibly empty)");
    }
    List<LeaseRef> copy = new ArrayList<>(refs.size());
    Map<JobId, Integer> seen = new HashMap<>();
    for (int i = 0; i < refs.size(); i++) {
      LeaseRef ref = refs.get(i);
      if (ref == null) {
        throw new InvalidQueueInputException("lease " + i + " of " + refs.size() + " to complete is missing");
      }
      Integer first = seen.putIfAbsent(ref.jobId(), i);
      if (first != null) {
        throw new InvalidQueueInputException("the leases to complete list " + ref.jobId() + " twice (items "
            + first + " and " + i + "); expected each job at most once per batch");
      }
      copy.add(ref);
    }
    return List.copyOf(copy);
  }
}
