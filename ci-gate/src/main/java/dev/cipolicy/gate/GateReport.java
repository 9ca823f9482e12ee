package dev.cipolicy.gate;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Renders a {@link GateResult} for people: the one-line verdict and the Markdown step-summary block. */
public final class GateReport {
  private GateReport() {}

  /**
   * The verdict line of a run.
   *
   * @param mode the mode, named in the tag
   * @param result the result
   * @return e.g. {@code [CI Gate][shadow] tests/e2e/test_a.py: FAIL (12 coordinates: 10 PASS, 1 FAIL, 1 ERROR;
   *     1 regression; run untrusted)}, or {@code ...: no gate declared}
   */
  public static String verdictLine(GateMode mode, GateResult result) {
    String head = "[CI Gate][" + mode.tag() + "] " + result.series().testPath() + ": ";
    if (result.noGateDeclared()) {
      return head + "no gate declared";
    }
    StringBuilder sb = new StringBuilder(head).append(result.overall().orElseThrow()).append(" (")
        .append(counts(result));
    String findings = findings(result);
    if (!findings.isEmpty()) {
      sb.append("; ").append(findings);
    }
    return sb.append("; run ").append(result.trusted() ? "trusted" : "untrusted").append(')').toString();
  }

  private static String counts(GateResult result) {
    List<String> parts = new ArrayList<>();
    result.counts().forEach((s, n) -> {
      if (n > 0) {
        parts.add(n + " " + s);
      }
    });
    int total = result.verdicts().size();
    return total + (total == 1 ? " coordinate: " : " coordinates: ") + String.join(", ", parts);
  }

  private static String findings(GateResult result) {
    Map<Finding, Integer> counts = new EnumMap<>(Finding.class);
    result.verdicts().forEach(v -> {
      if (v.finding() != Finding.NONE) {
        counts.merge(v.finding(), 1, Integer::sum);
      }
    });
    List<String> parts = new ArrayList<>();
    counts.forEach((f, n) -> parts.add(n + " " + f.words()
        + (n == 1 || f == Finding.OUT_OF_BAND ? "" : "s")));
    int proposals = result.proposals().size();
    if (proposals > 0) {
      parts.add(proposals + " level shift" + (proposals == 1 ? "" : "s") + " proposed");
    }
    return String.join(", ", parts);
  }

  /**
   * The Markdown block for the CI step summary: a heading with the overall status, the counts, a table
   * of every coordinate that did not pass, and the passing ones folded away.
   *
   * @param mode the mode, named in the heading
   * @param result the result
   * @return Markdown ending with a newline; empty when no gate is declared
   */
  public static String stepSummary(GateMode mode, GateResult result) {
    if (result.noGateDeclared()) {
      return "";
    }
    SeriesKey s = result.series();
    StringBuilder sb = new StringBuilder();
    sb.append("### CI Gate (").append(mode.tag()).append("): `").append(s.testPath()).append("` — ")
        .append(result.overall().orElseThrow()).append("\n\n");
    sb.append('`').append(s.backend()).append("` / `").append(s.suite()).append("` · model `")
        .append(result.model()).append("` · ").append(counts(result)).append(" · run ")
        .append(result.trusted() ? "trusted" : "untrusted");
    String findings = findings(result);
    if (!findings.isEmpty()) {
      sb.append(" · ").append(findings);
    }
    sb.append("\n\n");
    List<CoordinateVerdict> notPassing = result.verdicts().stream().filter(v -> v.status() != GateStatus.PASS)
        .toList();
    List<CoordinateVerdict> passing = result.verdicts().stream().filter(v -> v.status() == GateStatus.PASS)
        .toList();
    if (!notPassing.isEmpty()) {
      table(sb, notPassing);
    }
    if (!passing.isEmpty()) {
      sb.append("<details><summary>").append(passing.size()).append(" passing coordinate")
          .append(passing.size() == 1 ? "" : "s").append("</summary>\n\n");
      table(sb, passing);
      sb.append("</details>\n\n");
    }
    return sb.toString();
  }

  /**
   * The step-summary block within a size limit: {@link #stepSummary(GateMode, GateResult)} truncated by
   * {@link MarkdownLimit#truncate} — whole table rows only, ending with a note of how many rows were left out.
   *
   * @param mode the mode, named in the heading
   * @param result the result
   * @param limit e.g. {@link MarkdownLimit#STEP_SUMMARY}
   * @return Markdown of at most the limit's size; empty when no gate is declared
   */
  public static String stepSummary(GateMode mode, GateResult result, MarkdownLimit limit) {
    return limit.truncate(stepSummary(mode, result));
  }

  /**
   * The Markdown body of a pull-request comment or a check run's summary: the step-summary block within
   * GitHub's limit of 65,536 characters ({@link MarkdownLimit#COMMENT}).
   *
   * @param mode the mode, named in the heading
   * @param result the result
   * @return Markdown of at most 65,536 characters; empty when no gate is declared
   */
  public static String comment(GateMode mode, GateResult result) {
    return stepSummary(mode, result, MarkdownLimit.COMMENT);
  }

  private static void table(StringBuilder sb, List<CoordinateVerdict> verdicts) {
    sb.append("| metric | step | status | value | limits | centre (n) | reason |\n");
    sb.append("|---|---:|---|---:|---|---:|---|\n");
    for (CoordinateVerdict v : verdicts) {
      String status = v.status() + (v.finding() == Finding.NONE ? ""
          : " " + v.finding().words());
      String value = v.value().isPresent() ? Numbers.human(v.value().getAsDouble()) : "";
      String limits = v.evidence().filter(e -> e.lower().isPresent())
          .map(e -> "[" + Numbers.human(e.lower().getAsDouble()) + ", " + Numbers.human(e.upper().getAsDouble()) + "]")
          .orElse("");
      String centre = v.evidence()
          .map(e -> (e.centre().isPresent() ? Numbers.human(e.centre().getAsDouble()) + " " : "") + "(" + e.n() + ")")
          .orElse("");
      sb.append("| `").append(cell(v.metricKey())).append("` | ").append(v.stepLabel()).append(" | ")
          .append(status).append(" | ").append(value).append(" | ").append(limits).append(" | ").append(centre)
          .append(" | ").append(cell(v.reason())).append(" |\n");
    }
    sb.append('\n');
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ").replace("`", "'");
  }
}
