package dev.cipolicy.api;

/** A scheduled run whose cron string has no entry in the policy's schedule table; never defaulted. */
public final class UnknownScheduleException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  private final String cron;

  /**
   * Creates the exception.
   *
   * @param cron the schedule string of the event, exactly as received
   */
  public UnknownScheduleException(String cron) {
    super("No CI policy is defined for schedule: " + cron);
    this.cron = cron;
  }

  /**
   * The cron string that has no policy.
   *
   * @return the schedule as received
   */
  public String cron() {
    return cron;
  }
}
