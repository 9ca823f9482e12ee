package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which stored runs to mark untrusted: exactly one of a run id, a CI run id or a commit.
 * Revoking is idempotent; a revoked run's values never join a baseline again.
 */
public sealed interface Revocation permits Revocation.ByRunId, Revocation.ByCiRunId, Revocation.ByCommit {

  /**
   * The key in words, for messages.
   *
   * @return e.g. {@code commit 1a2b3c}
   */
  String describe();

  /**
   * The revocation named by exactly one present key.
   *
   * @param runId a store run id
   * @param ciRunId a CI run id
   * @param commit a commit
   * @return the revocation
   * @throws InvalidInputException unless exactly one key is present (empty strings count as absent)
   */
  static Revocation exactlyOne(Optional<RunId> runId, Optional<String> ciRunId, Optional<String> commit) {
    List<Revocation> keys = new ArrayList<>();
    runId.ifPresent(r -> keys.add(new ByRunId(r)));
    ciRunId.filter(s -> !s.isEmpty()).ifPresent(s -> keys.add(new ByCiRunId(s)));
    commit.filter(s -> !s.isEmpty()).ifPresent(s -> keys.add(new ByCommit(s)));
    if (keys.size() != 1) {
      throw new InvalidInputException("a revocation needs exactly one of run id, CI run id or commit, got "
          + (keys.isEmpty() ? "none" : keys.stream().map(Revocation::describe).toList()));
    }
    return keys.get(0);
  }

  /**
   * One stored run.
   *
   * @param runId the run id the store gave
   */
  record ByRunId(RunId runId) implements Revocation {
    @Override
    public String describe() {
      return "run id " + runId;
    }
  }

  /**
   * Every run written by one CI run.
   *
   * @param ciRunId the CI run id
   */
  record ByCiRunId(String ciRunId) implements Revocation {
    /** Rejects an empty id. */
    public ByCiRunId {
      if (ciRunId == null || ciRunId.isEmpty()) {
        throw new InvalidInputException("a CI run id must not be empty");
      }
    }

    @Override
    public String describe() {
      return "CI run id " + ciRunId;
    }
  }

  /**
   * Every run of one commit.
   *
   * @param commit the commit
   */
  record ByCommit(String commit) implements Revocation {
    /** Rejects an empty commit. */
    public ByCommit {
      if (commit == null || commit.isEmpty()) {
        throw new InvalidInputException("a commit must not be empty");
      }
    }

    @Override
    public String describe() {
      return "commit " + commit;
    }
  }
}
