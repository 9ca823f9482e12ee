package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidInputException;
import java.util.Optional;

/**
 * The identity of the CI run that writes a baseline: the repository, the CI system's run id and the attempt
 * (GitHub Actions: {@code GITHUB_REPOSITORY}, {@code GITHUB_RUN_ID}, {@code GITHUB_RUN_ATTEMPT}). A
 * {@link MetricHistoryStore} keys baseline writes by it: per series, the first write of a run (repository and
 * run id) that lands is the run's measurement, and every later write of the same run — a retry after a lost
 * acknowledgement, or another attempt of the run — stores nothing and is reported as a duplicate.
 *
 * @param repository the repository, {@code owner/name}; empty when the CI system's run ids are unique alone
 * @param runId the run id: 1 to 100 of {@code A-Z a-z 0-9 . _ : -}
 * @param attempt the attempt of the run, from 1
 */
public record CiRunIdentity(Optional<String> repository, String runId, int attempt) {
  /** The longest run id and repository. */
  public static final int MAX_LENGTH = 100;

  /** Validates the parts. */
  public CiRunIdentity {
    if (repository == null || runId == null) {
      throw new InvalidInputException("a CI run identity needs a run id (and an optional repository)");
    }
    if (!token(runId, false)) {
      throw new InvalidInputException("CI run id '" + printable(runId) + "' is not 1 to " + MAX_LENGTH
          + " of the characters A-Z a-z 0-9 . _ : -");
    }
    if (attempt < 1) {
      throw new InvalidInputException("the attempt of CI run " + runId + " must be at least 1, got " + attempt);
    }
    repository.ifPresent(r -> {
      int slash = r.indexOf('/');
      if (slash < 1 || slash == r.length() - 1 || r.indexOf('/', slash + 1) >= 0 || !token(r, true)) {
        throw new InvalidInputException("CI repository '" + printable(r) + "' is not owner/name (1 to "
            + MAX_LENGTH + " of the characters A-Z a-z 0-9 . _ - and one /)");
      }
    });
  }

  /**
   * An identity.
   *
   * @param repository the repository, {@code owner/name}
   * @param runId the run id
   * @param attempt the attempt, from 1
   * @return the identity
   */
  public static CiRunIdentity of(String repository, String runId, int attempt) {
    return new CiRunIdentity(Optional.of(repository), runId, attempt);
  }

  /**
   * An identity without a repository.
   *
   * @param runId the run id
   * @param attempt the attempt, from 1
   * @return the identity
   */
  public static CiRunIdentity of(String runId, int attempt) {
    return new CiRunIdentity(Optional.empty(), runId, attempt);
  }

  /**
   * Whether a write with this identity and one with the other are writes of the same run: same repository
   * and run id, whatever the attempt.
   *
   * @param other the other identity
   * @return true for the same run
   */
  public boolean sameRun(CiRunIdentity other) {
    return repository.equals(other.repository) && runId.equals(other.runId);
  }

  @Override
  public String toString() {
    return "CI run " + repository.map(r -> r + "#").orElse("") + runId + " attempt " + attempt;
  }

  private static boolean token(String s, boolean slashAllowed) {
    if (s.isEmpty() || s.length() > MAX_LENGTH) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
          || c == '_' || c == '-' || (slashAllowed ? c == '/' : c == ':');
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static String printable(String s) {
    StringBuilder sb = new StringBuilder();
    s.codePoints().limit(MAX_LENGTH + 1L).forEach(cp -> {
      if (cp < 0x20 || cp == 0x7f || (cp <= 0xffff && Character.isSurrogate((char) cp))) {
        sb.append(String.format("\\u%04x", cp));
      } else {
        sb.appendCodePoint(cp);
      }
    });
    return s.codePointCount(0, s.length()) > MAX_LENGTH + 1 ? sb + "…" : sb.toString();
  }
}
