package dev.cipolicy.workflow.lint;

import java.util.List;

/** One rule of {@link WorkflowLint}, bound to one lint run: it adds its findings, in any order. */
interface LintCheck {
  /**
   * Adds the rule's findings.
   *
   * @param out the findings of the run so far
   */
  void check(List<LintFinding> out);
}
