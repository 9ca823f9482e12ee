package dev.cipolicy.api;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** An event name the policy has no rule for; the message lists the events the policy declares. */
public final class UnsupportedTriggerException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  private final String eventName;
  private final transient @Nullable List<String> declaredEvents;

  /**
   * Creates the exception.
   *
   * @param eventName the event name as received
   * @param declaredEvents the events the policy has a rule for, in policy order
   */
  public UnsupportedTriggerException(String eventName, List<String> declaredEvents) {
    super("unsupported trigger: the policy has no rule for event '" + eventName + "'; it declares "
        + (declaredEvents.isEmpty() ? "no event" : "the events " + declaredEvents)
        + " (add an events entry for it, or pass a cadence override)");
    this.eventName = eventName;
    this.declaredEvents = List.copyOf(declaredEvents);
  }

  /**
   * The event that is not supported.
   *
   * @return the event name as received
   */
  public String eventName() {
    return eventName;
  }

  /**
   * The events the policy declares.
   *
   * @return event names in policy order
   */
  public List<String> declaredEvents() {
    return declaredEvents != null ? declaredEvents : List.of();
  }
}
