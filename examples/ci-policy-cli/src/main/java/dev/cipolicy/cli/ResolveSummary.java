package dev.cipolicy.cli;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.api.stage.StageDecision;
import dev.cipolicy.api.stage.StageOutcome;
import dev.cipolicy.api.stage.StageSelection;
import java.util.List;
import java.util.Optional;

/**
 * The Markdown step summary of {@code ci-policy resolve}: the run policy, one table row per stage with its
 * outcome and reason, and the explanation. Every piece of input text is escaped so that it stays inside
 * its table cell or code span: a {@code |}, a line break, a backtick or an HTML tag in a label cannot
 * break the table or inject markup.
 */
final class ResolveSummary {
  private ResolveSummary() {}

  /**
   * Renders the summary.
   *
   * @param event the trigger event name
   * @param resolution the resolution
   * @param stages the stage selection, when registrations were given
   * @return Markdown ending in a newline
   */
  static String render(String event, TriggerResolution resolution, Optional<StageSelection> stages) {
    RunPolicy run = resolution.runPolicy();
    StringBuilder sb = new StringBuilder();
    sb.append("### CI policy: ").append(cell(run.cadence())).append(" run\n\n");
    sb.append("| Setting | Value |\n|---|---|\n");
    sb.append("| event | ").append(cell(event)).append(" |\n");
    sb.append("| cadence | ").append(cell(run.cadence())).append(" |\n");
    sb.append("| labels | ").append(list(run.rawLabels())).append(" |\n");
    sb.append("| included test labels | ").append(list(run.includeLabels())).append(" |\n");
    sb.append("| bypass_fastfail | ").append(run.bypassFastfail()).append(" |\n\n");
    if (stages.isPresent()) {
      StageSelection s = stages.get();
      sb.append("| Stage | Outcome | Reason |\n|---|---|---|\n");
      for (StageDecision d : s.decisions()) {
        sb.append("| ").append(cell(d.stage())).append(" | ")
            .append(d.outcome() == StageOutcome.RUN ? "runs" : "skipped").append(" | ")
            .append(cell(d.reason())).append(" |\n");
      }
      s.failOpen().ifPresent(f -> sb.append("\nNothing pruned: ").append(cell(f)).append('\n'));
      sb.append('\n');
    } else {
      sb.append("Every stage runs: no registrations were given, so nothing is pruned.\n\n");
    }
    Explanation e = resolution.explanation();
    sb.append("**Why:** ").append(cell(e.decision())).append('\n');
    for (Explanation.Reason r : e.reasons()) {
      sb.append("- ").append(cell(r.rule())).append(": ").append(cell(r.detail())).append('\n');
    }
    for (String h : e.hints()) {
      sb.append("- hint: ").append(cell(h)).append('\n');
    }
    return sb.toString();
  }

  private static String list(List<String> items) {
    if (items.isEmpty()) {
      return "(none)";
    }
    StringBuilder sb = new StringBuilder();
    for (String s : items) {
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(cell(s));
    }
    return sb.toString();
  }

  /**
   * Escapes text for a Markdown table cell or list item: line breaks become spaces, and the characters
   * that could end the cell, open a code span or start HTML or an entity become HTML entities.
   *
   * @param s any text
   * @return the text, safe inside a table cell
   */
  static String cell(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      switch (ch) {
        case '|' -> sb.append("&#124;");
        case '`' -> sb.append("&#96;");
        case '<' -> sb.append("&lt;");
        case '>' -> sb.append("&gt;");
        case '&' -> sb.append("&amp;");
        case '\\' -> sb.append("&#92;");
        case '\r', '\n', '\u2028', '\u2029', '\u0085' -> sb.append(' ');
        default -> sb.append(Character.isISOControl(ch) ? ' ' : ch);
      }
    }
    return sb.toString();
  }
}
