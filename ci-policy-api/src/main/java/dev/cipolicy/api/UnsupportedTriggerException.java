package dev.cipolicy.api;

/** An event name the policy has no rule for. */
public final class UnsupportedTriggerException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  private final String eventName;

  /**
   * Creates the exception.
   *
   * @param eventName the event name as received
   */
  public UnsupportedTriggerException(String eventName) {
    super("Unsupported PR Test trigger: " + eventName);
    this.eventName = eventName;
  }

  /**
   * The event that is not supported.
   *
   * @return the event name as received
   */
  public String eventName() {
    return eventName;
  }
}
