package dev.cipolicy.gate;

import java.util.Optional;

/**
 * What {@link MetricHistoryStore#write} did: stored the run, or stored nothing because the run's
 * {@linkplain CiRunIdentity CI run} had already written this series.
 *
 * @param runId the id of the stored run: the new run, or for a duplicate the run written first
 * @param duplicateOf for a duplicate, the identity of the write that landed first (its attempt may differ)
 */
public record WriteResult(RunId runId, Optional<CiRunIdentity> duplicateOf) {

  /**
   * A run that was stored.
   *
   * @param runId its id
   * @return the result
   */
  public static WriteResult stored(RunId runId) {
    return new WriteResult(runId, Optional.empty());
  }

  /**
   * A write that stored nothing: the same CI run had written the series already.
   *
   * @param runId the run written first
   * @param first that run's identity
   * @return the result
   */
  public static WriteResult duplicate(RunId runId, CiRunIdentity first) {
    return new WriteResult(runId, Optional.of(first));
  }

  /**
   * Whether the write stored nothing because it was a duplicate.
   *
   * @return true for a duplicate
   */
  public boolean duplicate() {
    return duplicateOf.isPresent();
  }
}
