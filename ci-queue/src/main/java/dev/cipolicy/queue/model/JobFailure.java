package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import java.time.Instant;
import java.util.Locale;

/**
 * Why a job ended in {@link JobState#FAILED}: a permanent failure or an exhausted budget, with a detail
 * and the instant. The factories build the details, so every store records the same text.
 *
 * @param reason why the job failed
 * @param detail what happened, in one sentence fragment
 * @param at when the job failed
 */
public record JobFailure(Reason reason, String detail, Instant at) {

  /** The reason a job failed. */
  public enum Reason {
    /** The collector reported a permanent failure. */
    PERMANENT,
    /** A transient failure arrived when the transient-failure budget was spent. */
    TRANSIENT_BUDGET_EXHAUSTED,
    /** A lease expired when the crash-rescue budget was spent. */
    CRASH_BUDGET_EXHAUSTED;

    /**
     * The name used in text and JSON output.
     *
     * @return e.g. {@code crash_budget_exhausted}
     */
    public String documentName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Checks the components. */
  public JobFailure {
    Checks.present(reason, "failure reason");
    Checks.present(detail, "failure detail");
    Checks.present(at, "failure instant");
  }

  /**
   * A permanent failure reported by a collector.
   *
   * @param collector the collector that reported it
   * @param detail the collector's detail
   * @param at when
   * @return the failure
   */
  public static JobFailure permanent(String collector, String detail, Instant at) {
    return new JobFailure(Reason.PERMANENT, "permanent failure reported by " + collector + ": " + detail, at);
  }

  /**
   * A transient failure that arrived with the transient-failure budget spent.
   *
   * @param collector the collector that reported it
   * @param retriesUsed the transient retries already used (the budget)
   * @param detail the collector's detail
   * @param at when
   * @return the failure
   */
  public static JobFailure transientBudgetExhausted(String collector, int retriesUsed, String detail, Instant at) {
    return new JobFailure(Reason.TRANSIENT_BUDGET_EXHAUSTED, "transient failure reported by " + collector
        + " after " + retriesUsed + " transient retries (the budget): " + detail, at);
  }

  /**
   * A lease that expired with the crash-rescue budget spent.
   *
   * @param collector the collector whose lease expired
   * @param rescuesUsed the crash rescues already used (the budget)
   * @param expiredAt when the lease expired
   * @param at when the expiry was processed
   * @return the failure
   */
  public static JobFailure crashBudgetExhausted(String collector, int rescuesUsed, Instant expiredAt, Instant at) {
    return new JobFailure(Reason.CRASH_BUDGET_EXHAUSTED, "lease of " + collector + " expired at " + expiredAt
        + " after " + rescuesUsed + " crash rescues (the budget)", at);
  }
}
