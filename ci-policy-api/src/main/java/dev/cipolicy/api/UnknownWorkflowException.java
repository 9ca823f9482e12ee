package dev.cipolicy.api;

import java.util.List;
import java.util.TreeSet;

/** A workflow name that the policy does not declare in its {@code workflows} section. */
public final class UnknownWorkflowException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  private final String workflow;

  /**
   * Creates the exception.
   *
   * @param workflow the unknown name, as given
   * @param known the workflows the policy declares
   */
  public UnknownWorkflowException(String workflow, List<String> known) {
    super(known.isEmpty()
        ? "Unknown CI workflow '" + workflow + "': the policy declares no workflows"
        : "Unknown CI workflow '" + workflow + "'; expected one of " + new TreeSet<>(known));
    this.workflow = workflow;
  }

  /**
   * The workflow that was asked for.
   *
   * @return the name as given
   */
  public String workflow() {
    return workflow;
  }
}
