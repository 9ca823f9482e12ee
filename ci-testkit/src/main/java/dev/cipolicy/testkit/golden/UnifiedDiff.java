package dev.cipolicy.testkit.golden;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import com.github.difflib.patch.Patch;
import java.util.List;

/** The unified diff between two texts, as {@code diff -u} prints it, with three lines of context. */
public final class UnifiedDiff {
  private UnifiedDiff() {}

  /**
   * The unified diff from {@code expected} to {@code actual}.
   *
   * @param expectedName the label of the {@code ---} line, e.g. the golden file
   * @param expected the expected text
   * @param actualName the label of the {@code +++} line
   * @param actual the actual text
   * @return the diff, empty when the texts are equal; a one-line note when they differ only in line
   *     endings or the final newline
   */
  public static String between(String expectedName, String expected, String actualName, String actual) {
    if (expected.equals(actual)) {
      return "";
    }
    List<String> a = lines(expected);
    List<String> b = lines(actual);
    Patch<String> patch = DiffUtils.diff(a, b);
    if (patch.getDeltas().isEmpty()) {
      return "--- " + expectedName + "\n+++ " + actualName + "\n(the texts differ only in line endings or in the"
          + " newline at the end)\n";
    }
    return String.join("\n", UnifiedDiffUtils.generateUnifiedDiff(expectedName, actualName, a, patch, 3)) + "\n";
  }

  private static List<String> lines(String text) {
    String t = text.replace("\r\n", "\n");
    if (t.endsWith("\n")) {
      t = t.substring(0, t.length() - 1);
    }
    return t.isEmpty() ? List.of() : List.of(t.split("\n", -1));
  }
}
