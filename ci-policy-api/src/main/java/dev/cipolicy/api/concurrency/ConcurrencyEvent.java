package dev.cipolicy.api.concurrency;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.value.ValueStyle;
import java.util.Optional;
import java.util.OptionalLong;
import org.immutables.value.Value;

/**
 * An event that asks a declared workflow for a new run, with the values its concurrency group key is
 * made of. Empty strings count as absent, so the values of unset workflow expressions can be passed as
 * they are. Which values an event carries depends on its type:
 *
 * <ul>
 *   <li>{@code SUPERSEDED}: a PR number, and a label for labeled/unlabeled events;
 *   <li>{@code CLOSED}, {@code MERGED}: a PR number;
 *   <li>{@code SCHEDULED}: a cron;
 *   <li>{@code DISPATCHED}: a release ref when it dispatches a release, else nothing (keyed by run id).
 * </ul>
 *
 * <p>Building an event without its type, workflow or run id throws an
 * {@link dev.cipolicy.api.InvalidValueException}; building one with a value its type needs missing, or a
 * value its type does not carry, throws {@link InvalidInputException}.
 */
@Value.Immutable
@ValueStyle
public abstract class ConcurrencyEvent {

  /**
   * The event type.
   *
   * @return the type
   */
  public abstract ConcurrencyEventType type();

  /**
   * The workflow the event starts a run of, by the name the policy declares.
   *
   * @return e.g. {@code pr-test}
   */
  public abstract String workflow();

  /**
   * The pull request's number, for PR events.
   *
   * @return a positive number, absent for scheduled runs and dispatches
   */
  public abstract OptionalLong prNumber();

  /**
   * The schedule's cron string, for scheduled runs.
   *
   * @return the cron exactly as the workflow declares it
   */
  public abstract Optional<String> cron();

  /**
   * The full git ref a release dispatch validates.
   *
   * @return e.g. {@code refs/heads/release/v0.5}; absent for plain manual dispatches
   */
  public abstract Optional<String> releaseRef();

  /**
   * The GitHub Actions run id of the run the event starts.
   *
   * @return a positive decimal number
   */
  public abstract String runId();

  /**
   * The label added or removed, for a superseded event caused by labeling or unlabeling.
   *
   * @return the GitHub label as received
   */
  public abstract Optional<String> label();

  /**
   * Which value completes the group key.
   *
   * @return the first present of PR number, cron, release ref and run id
   */
  public GroupKeySource keySource() {
    return Keys.source(prNumber(), cron(), releaseRef());
  }

  /**
   * The group key without the workflow's prefix: the first present of PR number, cron, release ref and
   * run id.
   *
   * @return e.g. {@code 123}
   */
  public String keySuffix() {
    return Keys.suffix(prNumber(), cron(), releaseRef(), runId());
  }

  /**
   * Turns empty strings into absent values, then checks the values against the type.
   *
   * @return the normalized event
   * @throws InvalidInputException when a value the type needs is missing or a value does not fit the type
   */
  @Value.Check
  protected ConcurrencyEvent normalize() {
    if (Keys.blank(cron()) || Keys.blank(releaseRef()) || Keys.blank(label())) {
      return builder().from(this)
          .cron(cron().filter(s -> !s.isEmpty()))
          .releaseRef(releaseRef().filter(s -> !s.isEmpty()))
          .label(label().filter(s -> !s.isEmpty()))
          .build();
    }
    String what = "a " + type().documentName() + " event";
    Keys.checkCommon(what, workflow(), runId(), prNumber(), cron(), releaseRef());
    if (type().pullRequestEvent() && prNumber().isEmpty()) {
      throw new InvalidInputException(what + " needs a PR number");
    }
    if (!type().pullRequestEvent() && prNumber().isPresent()) {
      throw new InvalidInputException(what + " has no PR number; got " + prNumber().getAsLong());
    }
    if (type() == ConcurrencyEventType.SCHEDULED && cron().isEmpty()) {
      throw new InvalidInputException(what + " needs a cron");
    }
    if (type() != ConcurrencyEventType.SCHEDULED && cron().isPresent()) {
      throw new InvalidInputException(what + " has no cron; got '" + cron().get() + "'");
    }
    if (type() != ConcurrencyEventType.DISPATCHED && releaseRef().isPresent()) {
      throw new InvalidInputException(what + " has no release ref; got '" + releaseRef().get()
          + "' (only dispatched events carry one)");
    }
    if (type() != ConcurrencyEventType.SUPERSEDED && label().isPresent()) {
      throw new InvalidInputException(what + " has no label; got '" + label().get()
          + "' (only superseded events, from labeling or unlabeling, carry one)");
    }
    return this;
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ConcurrencyEvent}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableConcurrencyEvent.Builder {
    Builder() {}
  }
}
