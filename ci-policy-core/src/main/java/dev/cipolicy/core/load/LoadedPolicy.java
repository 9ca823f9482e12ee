package dev.cipolicy.core.load;

import dev.cipolicy.api.Warning;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.core.PolicyResolver;
import java.util.List;

/**
 * A policy document that parsed and passed the static checks.
 *
 * @param policy the immutable policy model
 * @param resolver the resolver built from it
 */
public record LoadedPolicy(Policy policy, PolicyResolver resolver) {
  /**
   * Findings of the static checks that did not reject the policy.
   *
   * @return load-time warnings
   */
  public List<Warning> warnings() {
    return resolver.warnings();
  }
}
