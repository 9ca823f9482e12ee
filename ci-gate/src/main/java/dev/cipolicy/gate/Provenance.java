package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidInputException;
import java.util.Optional;

/**
 * Where a baseline run came from, so that it can be revoked later by CI run id or commit, and so that a
 * retried write of it is recognised ({@link #identity()}).
 *
 * @param ciRunId the CI system's run id, e.g. GitHub's {@code GITHUB_RUN_ID}
 * @param commit the commit tested
 * @param cadence the cadence of the run, e.g. {@code nightly}
 * @param identity the CI run's full identity (repository, run id, attempt), which makes the write idempotent;
 *     its run id is {@code ciRunId}
 */
public record Provenance(Optional<String> ciRunId, Optional<String> commit, Optional<String> cadence,
    Optional<CiRunIdentity> identity) {
  /** Treats empty strings as absent; takes the CI run id from the identity. */
  public Provenance {
    ciRunId = ciRunId.filter(s -> !s.isEmpty());
    commit = commit.filter(s -> !s.isEmpty());
    cadence = cadence.filter(s -> !s.isEmpty());
    if (identity.isPresent()) {
      String id = identity.get().runId();
      if (ciRunId.isPresent() && !ciRunId.get().equals(id)) {
        throw new InvalidInputException("the CI run id " + ciRunId.get() + " is not the run id of the identity ("
            + identity.get() + ")");
      }
      ciRunId = Optional.of(id);
    }
  }

  /**
   * A provenance without an identity: its writes are not idempotent.
   *
   * @param ciRunId the CI run id
   * @param commit the commit
   * @param cadence the cadence
   */
  public Provenance(Optional<String> ciRunId, Optional<String> commit, Optional<String> cadence) {
    this(ciRunId, commit, cadence, Optional.empty());
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
   * A provenance with every part known but the identity.
   *
   * @param ciRunId the CI run id
   * @param commit the commit
   * @param cadence the cadence
   * @return the provenance
   */
  public static Provenance of(String ciRunId, String commit, String cadence) {
    return new Provenance(Optional.of(ciRunId), Optional.of(commit), Optional.of(cadence));
  }

  /**
   * A provenance of an identified CI run: its writes are idempotent.
   *
   * @param identity the CI run's identity
   * @param commit the commit
   * @param cadence the cadence
   * @return the provenance
   */
  public static Provenance of(CiRunIdentity identity, String commit, String cadence) {
    return new Provenance(Optional.empty(), Optional.of(commit), Optional.of(cadence), Optional.of(identity));
  }
}
