package dev.cipolicy.api.concurrency;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.Map;
import org.immutables.value.Value;

/**
 * The concurrency part of a policy for one workflow: the literal prefix of its group keys and
 * what each event type does to the runs of a group. An event type the workflow does not declare takes
 * its default action: {@code superseded}, {@code closed}, {@code merged} and {@code scheduled} cancel,
 * {@code dispatched} queues (see {@link ConcurrencyEventType#defaultAction()}). The static checks of
 * {@code PolicyResolver.of} reject a workflow whose {@code closed} action is not {@code cancel}: closing a
 * pull request always ends its runs.
 */
@Value.Immutable
@ValueStyle
public abstract class WorkflowConcurrency {

  /**
   * The workflow's name, as events and in-flight runs refer to it.
   *
   * @return e.g. {@code pr-test}
   */
  public abstract String name();

  /**
   * The literal prefix of the workflow's group keys. Concurrency groups are repository-wide, so a prefix
   * per workflow keeps the groups of different workflows apart.
   *
   * @return e.g. {@code pr-test-}
   */
  public abstract String groupPrefix();

  /**
   * The actions the workflow declares explicitly; undeclared event types take their default.
   *
   * @return declared actions by event type
   */
  public abstract Map<ConcurrencyEventType, ConcurrencyAction> actions();

  /**
   * What the workflow is for.
   *
   * @return a human description, possibly empty
   */
  @Value.Default
  public String description() {
    return "";
  }

  /**
   * The action of an event type: the declared one, else the type's default.
   *
   * @param type the event type
   * @return the effective action
   */
  public ConcurrencyAction action(ConcurrencyEventType type) {
    ConcurrencyAction declared = actions().get(type);
    return declared != null ? declared : type.defaultAction();
  }

  /**
   * Rejects an empty name and an empty group prefix.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("WorkflowConcurrency").nonEmpty("name", name())
        .require(!groupPrefix().isEmpty(), "groupPrefix", () -> "the group prefix must not be empty: concurrency"
            + " groups are repository-wide, so without a prefix per workflow the groups of different workflows"
            + " collide")
        .done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link WorkflowConcurrency}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableWorkflowConcurrency.Builder {
    Builder() {}
  }
}
