package dev.cipolicy.workflow;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.PolicyProblem;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A workflow file that cannot be modelled: malformed YAML, a construct of the wrong shape, an {@code if:}
 * or output with a bad expression, a need that names no job, a cycle. Every problem is listed with its
 * location ({@code file:line:column}) and the construct's path; the message is one line.
 */
public final class InvalidWorkflowException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  // Not serialized (PolicyProblem is not serializable): a deserialized copy keeps only the message.
  private final transient @Nullable List<PolicyProblem> problems;

  /**
   * Creates the exception from at least one problem.
   *
   * @param problems the problems, in the order found
   */
  public InvalidWorkflowException(List<PolicyProblem> problems) {
    super(render(problems));
    this.problems = List.copyOf(problems);
  }

  private static String render(List<PolicyProblem> problems) {
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an InvalidWorkflowException needs at least one problem");
    }
    if (problems.size() == 1) {
      return "Invalid workflow: " + problems.get(0);
    }
    return "Invalid workflow (" + problems.size() + " problems): "
        + problems.stream().map(PolicyProblem::toString).collect(Collectors.joining("; "));
  }

  /**
   * The problems found.
   *
   * @return an unmodifiable, non-empty list; empty on a deserialized copy
   */
  public List<PolicyProblem> problems() {
    return problems != null ? problems : List.of();
  }
}
