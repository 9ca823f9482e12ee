package dev.cipolicy.api;

import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A policy document or policy model is unusable: it does not parse, has a wrong type, an unknown field,
 * or fails a static check. Every problem found is listed, each with its location.
 */
public final class InvalidPolicyException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  // Not serialized (PolicyProblem is not serializable): a deserialized copy keeps only the message, which
  // lists every problem.
  private final transient @Nullable List<PolicyProblem> problems;

  /**
   * Creates the exception from at least one problem.
   *
   * @param problems the problems, in the order they were found
   */
  public InvalidPolicyException(List<PolicyProblem> problems) {
    super(render(problems));
    this.problems = List.copyOf(problems);
  }

  private static String render(List<PolicyProblem> problems) {
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an InvalidPolicyException needs at least one problem");
    }
    if (problems.size() == 1) {
      return "Invalid CI policy: " + problems.get(0);
    }
    return "Invalid CI policy (" + problems.size() + " problems): "
        + problems.stream().map(PolicyProblem::toString).collect(Collectors.joining("; "));
  }

  /**
   * The problems found, in the order they were found (parsing first, then each static check).
   *
   * @return an unmodifiable, non-empty list; empty on a deserialized copy
   */
  public List<PolicyProblem> problems() {
    return problems != null ? problems : List.of();
  }
}
