package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import java.util.Comparator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The identity of a CI run request: the repository, the workflow run id and the attempt. Two submissions with
 * the same key are the same run; keys of one repository are ordered by run id, then attempt (a higher one is
 * newer).
 *
 * @param repository the repository, {@code owner/name}: each part 1 to 100 of letters, digits, {@code -},
 *     {@code _} and {@code .}
 * @param runId the workflow run id, positive
 * @param attempt the run attempt, at least 1
 */
public record CiRunKey(String repository, long runId, int attempt) implements Comparable<CiRunKey> {

  private static final Pattern REPOSITORY = Pattern.compile("[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}");
  private static final Comparator<CiRunKey> ORDER = Comparator.<CiRunKey, String>comparing(CiRunKey::repository)
      .thenComparingLong(CiRunKey::runId).thenComparingInt(CiRunKey::attempt);

  /** Checks the components. */
  public CiRunKey {
    repository(repository);
    Checks.positive(runId, "CI run id of " + repository);
    Checks.atLeast(attempt, 1, "CI run attempt of " + repository + " run " + runId);
  }

  /**
   * Checks a repository name.
   *
   * @param repository the name
   * @return the name
   * @throws InvalidQueueInputException when it is missing or not {@code owner/name}
   */
  public static String repository(@Nullable String repository) {
    String checked = Checks.present(repository, "CI run repository");
    if (!REPOSITORY.matcher(checked).matches()) {
      throw new InvalidQueueInputException("CI run repository '" + Checks.printable(checked) + "' is not"
          + " owner/name; expected two parts of 1 to 100 letters, digits, '-', '_' or '.' separated by '/'");
    }
    return checked;
  }

  /**
   * Whether this key is an older run of the same repository than another: a lower run id, or the same run id
   * and a lower attempt.
   *
   * @param other the other key
   * @return true when older
   */
  public boolean isOlderThan(CiRunKey other) {
    return repository.equals(other.repository) && compareTo(other) < 0;
  }

  @Override
  public int compareTo(CiRunKey other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return repository + " run " + runId + " attempt " + attempt;
  }
}
