package dev.cipolicy.gate;

/** Produces a test run's metric record for the hook; whatever it throws becomes an unreadable record. */
@FunctionalInterface
public interface RecordSource {
  /**
   * Reads the record.
   *
   * @return the record
   * @throws Exception when it cannot be read; the hook reports it, never rethrows it
   */
  MetricRecord read() throws Exception;
}
