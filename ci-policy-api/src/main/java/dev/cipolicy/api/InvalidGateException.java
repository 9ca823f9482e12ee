package dev.cipolicy.api;

import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Gate declarations that cannot be used: a negative or non-finite constraint parameter, no up
 * or no down parameter, an empty or repeated step list, a metric with neither declared steps nor a
 * default. Every problem is listed with its field path and, when the declarations came from a document,
 * its location. A gate that fails at evaluation time is a verdict, never this exception.
 */
public final class InvalidGateException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  // Not serialized (PolicyProblem is not serializable): a deserialized copy keeps only the message, which
  // lists every problem.
  private final transient @Nullable List<PolicyProblem> problems;

  /**
   * Creates the exception from at least one problem.
   *
   * @param problems the problems, in the order found
   */
  public InvalidGateException(List<PolicyProblem> problems) {
    super(render(problems));
    this.problems = List.copyOf(problems);
  }

  private static String render(List<PolicyProblem> problems) {
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an InvalidGateException needs at least one problem");
    }
    if (problems.size() == 1) {
      return "Invalid gate declarations: " + problems.get(0);
    }
    return "Invalid gate declarations (" + problems.size() + " problems): "
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
