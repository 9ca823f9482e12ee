package dev.cipolicy.gate;

import java.util.Optional;

/**
 * Where a baseline run came from, so that it can be revoked later by CI run id or commit.
 *
 * @param ciRunId the CI system's run id, e.g. GitHub's {@code GITHUB_RUN_ID}
 * @param commit the commit tested
 * @param cadence the cadence of the run, e.g. {@code nightly}
 */
public record Provenance(Optional<String> ciRunId, Optional<String> commit, Optional<String> cadence) {
  /** Treats empty strings as absent. */
  public Provenance {
    ciRunId = ciRunId.filter(s -> !s.isEmpty());
    commit = commit.filter(s -> !s.isEmpty());
    cadence = cadence.filter(s -> !s.isEmpty());
  }

  /**
   * No provenance.
   *
   * @return a provenance with nothing known
   */
  public static Provenance none() {
    return new Provenance(Optional.empty(), Optional.empty(), Optional.empty());
  }

  /**
   * A provenance with every part known.
   *
   * @param ciRunId the CI run id
   * @param commit the commit
   * @param cadence the cadence
   * @return the provenance
   */
  public static Provenance of(String ciRunId, String commit, String cadence) {
    return new Provenance(Optional.of(ciRunId), Optional.of(commit), Optional.of(cadence));
  }
}
