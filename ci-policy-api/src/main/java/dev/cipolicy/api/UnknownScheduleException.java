package dev.cipolicy.api;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A scheduled run whose cron string has no entry in the policy's schedule table; never defaulted. The
 * message lists the crons the table has.
 */
public final class UnknownScheduleException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /** The most table crons the message lists; the rest are counted. */
  static final int MAX_LISTED = 20;

  private final String cron;
  private final transient @Nullable List<String> tableCrons;

  /**
   * Creates the exception.
   *
   * @param cron the schedule string of the event, exactly as received
   * @param tableCrons the crons of the policy's schedule table, in table order
   */
  public UnknownScheduleException(String cron, List<String> tableCrons) {
    super("No CI policy is defined for schedule: " + cron + "; the schedule table has "
        + listed(tableCrons) + " (a cron must match an entry exactly, spaces included)");
    this.cron = cron;
    this.tableCrons = List.copyOf(tableCrons);
  }

  private static String listed(List<String> crons) {
    if (crons.isEmpty()) {
      return "no crons";
    }
    StringBuilder sb = new StringBuilder("the crons [");
    for (int i = 0; i < crons.size() && i < MAX_LISTED; i++) {
      sb.append(i > 0 ? ", " : "").append('\'').append(crons.get(i)).append('\'');
    }
    if (crons.size() > MAX_LISTED) {
      sb.append(", and ").append(crons.size() - MAX_LISTED).append(" more");
    }
    return sb.append(']').toString();
  }

  /**
   * The cron string that has no policy.
   *
   * @return the schedule as received
   */
  public String cron() {
    return cron;
  }

  /**
   * The crons of the schedule table, which the cron matched none of.
   *
   * @return crons in table order
   */
  public List<String> tableCrons() {
    return tableCrons != null ? tableCrons : List.of();
  }
}
