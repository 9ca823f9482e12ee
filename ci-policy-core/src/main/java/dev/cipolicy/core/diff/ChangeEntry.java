package dev.cipolicy.core.diff;

import dev.cipolicy.api.InvalidValueException;
import java.util.List;

/**
 * One changed file of a diff: its status as git wrote it and its path, or for a rename or copy its old
 * and new paths.
 *
 * @param status a letter of {@code ADMTUXB}, or {@code R} or {@code C} followed by a 1–3 digit
 *     similarity score, e.g. {@code M}, {@code R100}, {@code C075}
 * @param paths one non-empty path, or two (old, then new) for a rename or copy; any characters but NUL
 */
public record ChangeEntry(String status, List<String> paths) {

  /**
   * Validates the status against the paths and copies the paths.
   *
   * @throws InvalidValueException naming the field ({@code status} or {@code paths}) for a status that is not
   *     one of git's, a path count that does not fit the status, or an empty path or one holding NUL
   */
  public ChangeEntry {
    if (!isStatus(status)) {
      throw new InvalidValueException("ChangeEntry", "status", "expected one of A, D, M, T, U, X, B, or R or C"
          + " followed by 1-3 digits, got '" + status + "'");
    }
    paths = List.copyOf(paths);
    int expected = hasTwoPaths(status) ? 2 : 1;
    if (paths.size() != expected) {
      throw new InvalidValueException("ChangeEntry", "paths", "a change with status " + status + " has "
          + expected + (expected == 1 ? " path" : " paths (old, new)") + ", got " + paths);
    }
    for (String path : paths) {
      if (path.isEmpty() || path.indexOf('\0') >= 0) {
        throw new InvalidValueException("ChangeEntry", "paths", "a changed path is non-empty and has no NUL, got "
            + paths);
      }
    }
  }

  /**
   * The status letter, without the score.
   *
   * @return one of {@code A D M T U X B R C}
   */
  public char kind() {
    return status.charAt(0);
  }

  /** Whether a string is a status: {@code [ADMTUXB]} or {@code [RC][0-9]{1,3}}. */
  static boolean isStatus(String status) {
    if (status.length() == 1) {
      return "ADMTUXB".indexOf(status.charAt(0)) >= 0;
    }
    if (status.length() > 4 || !hasTwoPaths(status)) {
      return false;
    }
    for (int i = 1; i < status.length(); i++) {
      if (status.charAt(i) < '0' || status.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /** Whether a status names a rename or copy, which carries two paths. */
  static boolean hasTwoPaths(String status) {
    return !status.isEmpty() && (status.charAt(0) == 'R' || status.charAt(0) == 'C');
  }
}
