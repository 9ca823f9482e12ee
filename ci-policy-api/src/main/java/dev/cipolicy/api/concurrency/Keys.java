package dev.cipolicy.api.concurrency;

import dev.cipolicy.api.InvalidInputException;
import java.util.Optional;
import java.util.OptionalLong;

/** The key-suffix rule and the input checks shared by events and in-flight runs. */
final class Keys {
  private Keys() {}

  static GroupKeySource source(OptionalLong prNumber, Optional<String> cron, Optional<String> releaseRef) {
    if (prNumber.isPresent()) {
      return GroupKeySource.PR_NUMBER;
    }
    if (cron.isPresent()) {
      return GroupKeySource.CRON;
    }
    return releaseRef.isPresent() ? GroupKeySource.RELEASE_REF : GroupKeySource.RUN_ID;
  }

  static String suffix(OptionalLong prNumber, Optional<String> cron, Optional<String> releaseRef, String runId) {
    return switch (source(prNumber, cron, releaseRef)) {
      case PR_NUMBER -> Long.toString(prNumber.getAsLong());
      case CRON -> cron.orElseThrow();
      case RELEASE_REF -> releaseRef.orElseThrow();
      case RUN_ID -> runId;
    };
  }

  static boolean blank(Optional<String> s) {
    return s.isPresent() && s.get().isEmpty();
  }

  /**
   * Checks the fields common to events and runs; {@code what} names the value in messages. The builder
   * has already rejected a field that is not set.
   */
  static void checkCommon(String what, String workflow, String runId, OptionalLong prNumber,
      Optional<String> cron, Optional<String> releaseRef) {
    if (workflow.isEmpty()) {
      throw new InvalidInputException(what + " needs a workflow name");
    }
    if (runId.isEmpty()) {
      throw new InvalidInputException(what + " needs a run id");
    }
    if (!GroupKeySource.RUN_ID.accepts(runId)) {
      throw new InvalidInputException(what + ": run id '" + runId
          + "' is not a GitHub Actions run id; expected a positive decimal number");
    }
    if (prNumber.isPresent() && prNumber.getAsLong() < 1) {
      throw new InvalidInputException(what + ": PR number " + prNumber.getAsLong() + " must be positive");
    }
    if (cron.isPresent() && !GroupKeySource.CRON.accepts(cron.get())) {
      throw new InvalidInputException(what + ": cron '" + cron.get()
          + "' must not start or end with white space");
    }
    if (releaseRef.isPresent() && !GroupKeySource.RELEASE_REF.accepts(releaseRef.get())) {
      throw new InvalidInputException(what + ": release ref '" + releaseRef.get()
          + "' is not a full git ref; expected e.g. refs/heads/release/v0.5 or refs/tags/v0.5.0");
    }
  }
}
