package dev.cipolicy.core;

import dev.cipolicy.api.internal.Json;
import dev.cipolicy.api.run.RunPolicy;
import java.util.List;
import java.util.TreeSet;

/** Renders a resolution as the GitHub Actions step outputs and log line. */
public final class GithubOutputs {
  private GithubOutputs() {}

  /**
   * The four output lines, in order, each ending in a newline:
   * {@code cadence=}, {@code raw_labels=} (space-joined), {@code bypass_fastfail=},
   * {@code skipped_stages=} (compact sorted JSON array).
   *
   * @param run the run policy
   * @param skippedStages the skipped stages, in any order
   * @return the text to append to {@code $GITHUB_OUTPUT}
   */
  public static String outputLines(RunPolicy run, List<String> skippedStages) {
    return "cadence=" + run.cadence() + "\n"
        + "raw_labels=" + String.join(" ", run.rawLabels()) + "\n"
        + "bypass_fastfail=" + run.bypassFastfail() + "\n"
        + "skipped_stages=" + sortedJson(skippedStages) + "\n";
  }

  /**
   * The log line printed after resolution.
   *
   * @param run the run policy
   * @param skippedStages the skipped stages
   * @return {@code Resolved CI policy: cadence=<c> labels=[<raw labels>] bypass_fastfail=<b> skipped_stages=<json>}
   */
  public static String summaryLine(RunPolicy run, List<String> skippedStages) {
    return "Resolved CI policy: cadence=" + run.cadence()
        + " labels=[" + String.join(" ", run.rawLabels()) + "]"
        + " bypass_fastfail=" + run.bypassFastfail()
        + " skipped_stages=" + sortedJson(skippedStages);
  }

  /**
   * A compact, sorted, de-duplicated JSON array of strings.
   *
   * @param items the strings
   * @return e.g. {@code ["stage-c-8-gpu-b200"]}
   */
  public static String sortedJson(List<String> items) {
    return Json.stringArray(List.copyOf(new TreeSet<>(items)));
  }
}
