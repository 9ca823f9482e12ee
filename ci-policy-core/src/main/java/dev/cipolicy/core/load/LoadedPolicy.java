package dev.cipolicy.core.load;

import dev.cipolicy.api.Warning;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.core.PolicyResolver;
import dev.cipolicy.core.ProblemLocator;
import java.util.List;

/**
 * A policy document that parsed and passed the static checks.
 *
 * @param policy the immutable policy model
 * @param resolver the resolver built from it
 * @param locator where each field path of the policy is written in its document, for findings about the
 *     policy made after loading (e.g. by the workflow lint)
 */
public record LoadedPolicy(Policy policy, PolicyResolver resolver, ProblemLocator locator) {
  /**
   * A loaded policy whose fields have no locations (built in code).
   *
   * @param policy the policy
   * @param resolver its resolver
   */
  public LoadedPolicy(Policy policy, PolicyResolver resolver) {
    this(policy, resolver, ProblemLocator.NONE);
  }

  /**
   * Findings of the static checks that did not reject the policy.
   *
   * @return load-time warnings
   */
  public List<Warning> warnings() {
    return resolver.warnings();
  }
}
