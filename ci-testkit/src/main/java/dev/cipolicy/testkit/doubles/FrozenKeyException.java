package dev.cipolicy.testkit.doubles;

import dev.cipolicy.api.CiPolicyException;

/**
 * An attempt to override, set twice or both set and clear an environment variable that a
 * {@link FrozenEnvironment} freezes. The message names the variable and its frozen state.
 */
public final class FrozenKeyException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  private final String key;

  /**
   * Creates the exception.
   *
   * @param key the variable
   * @param message what was attempted and what the variable is frozen to
   */
  public FrozenKeyException(String key, String message) {
    super(message);
    this.key = key;
  }

  /**
   * The variable.
   *
   * @return its name
   */
  public String key() {
    return key;
  }
}
