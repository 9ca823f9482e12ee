package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;
import java.util.Comparator;
import java.util.Optional;

/**
 * One broken invariant found by {@link WorkflowLint}: which rule, how bad, the construct at fault, and a
 * message that says what happens and how to fix it.
 *
 * @param rule the rule
 * @param severity {@link Severity#ERROR} fails the lint, {@link Severity#WARNING} does not
 * @param location the construct at fault (in a workflow file, or in the policy for a finding about it)
 * @param job the job at fault, when there is one
 * @param message what happens and how to fix it, one line
 */
public record LintFinding(LintRule rule, Severity severity, SourceLocation location, Optional<String> job,
    String message) {
  /** Orders findings by file, line, column, then rule and message. */
  public static final Comparator<LintFinding> ORDER = Comparator
      .comparing((LintFinding f) -> f.location().source())
      .thenComparingInt(f -> f.location().line())
      .thenComparingInt(f -> f.location().column())
      .thenComparing(f -> f.rule().id())
      .thenComparing(LintFinding::message);

  /** Rejects an empty message and keeps it on one line: a line break quoted from a workflow becomes {@code \n}. */
  public LintFinding {
    message = message.replace("\r", "\\r").replace("\n", "\\n");
    ValueCheck.of("LintFinding").nonEmpty("message", message).done();
  }

  /** How bad a finding is. */
  public enum Severity {
    /** The invariant is broken: the lint fails. */
    ERROR,
    /** The invariant could not be proven, or the model does not follow a construct. */
    WARNING;

    /**
     * The lower-case name.
     *
     * @return {@code error} or {@code warning}
     */
    public String word() {
      return this == ERROR ? "error" : "warning";
    }
  }

  @Override
  public String toString() {
    return location + ": " + severity.word() + " [" + rule.id() + "] " + message;
  }
}
