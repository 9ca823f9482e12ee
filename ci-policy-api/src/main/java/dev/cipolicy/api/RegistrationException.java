package dev.cipolicy.api;

import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Test registrations that do not fit the policy: an unknown label, backend or suite, a wrong type, a
 * missing field, a GPU registration without labels. Every problem is listed with its location.
 */
public final class RegistrationException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  // Not serialized (PolicyProblem is not serializable): a deserialized copy keeps only the message, which
  // lists every problem.
  private final transient @Nullable List<PolicyProblem> problems;

  /**
   * Creates the exception from at least one problem.
   *
   * @param problems the problems, in the order found
   */
  public RegistrationException(List<PolicyProblem> problems) {
    super(render(problems));
    this.problems = List.copyOf(problems);
  }

  private static String render(List<PolicyProblem> problems) {
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("a RegistrationException needs at least one problem");
    }
    if (problems.size() == 1) {
      return "Invalid test registrations: " + problems.get(0);
    }
    return "Invalid test registrations (" + problems.size() + " problems): "
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
