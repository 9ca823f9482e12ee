package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import java.io.Serializable;

/**
 * A stored row that no legal sequence of queue operations produces, typically edited by hand: where it is
 * (table and row key), which column holds the bad value, the value, and the rule it breaks. Stores report
 * such rows as values where a read covers many rows (so the rest keeps working) and as an
 * {@link ImpossibleRowException} where one operation needs the row.
 *
 * @param table the table, qualified as the store names it, e.g. {@code ci_queue.queue_jobs}
 * @param key the row key, e.g. {@code id = 42}
 * @param column the column holding the bad value, e.g. {@code state}
 * @param value the bad value as SQL-like text: {@code 'SUCCEEDED'}, {@code -1}, {@code NULL}
 * @param rule what the value breaks, e.g. {@code a succeeded job has no lease, but queue_leases holds one}
 */
public record ImpossibleRow(String table, String key, String column, String value, String rule)
    implements Serializable {

  /** Checks the components. */
  public ImpossibleRow {
    Checks.present(table, "impossible row table");
    Checks.present(key, "impossible row key");
    Checks.present(column, "impossible row column");
    Checks.present(value, "impossible row value");
    Checks.present(rule, "impossible row rule");
  }

  /**
   * One line for a log or a status page.
   *
   * @return e.g. {@code row ci_queue.queue_jobs (id = 42) is impossible (edited by hand?): column state =
   *     'SUCCEEDED': a succeeded job has no lease, but queue_leases holds one}
   */
  public String message() {
    return "row " + table + " (" + key + ") is impossible (edited by hand?): column " + column + " = " + value
        + ": " + rule;
  }
}
