package dev.cipolicy.api.concurrency;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.value.ValueStyle;
import java.util.Optional;
import java.util.OptionalLong;
import org.immutables.value.Value;

/**
 * A run that is queued or running when an event arrives, with the values its group key was made of.
 * Empty strings count as absent. Its group key is its workflow's prefix followed by {@link #keySuffix()}.
 */
@Value.Immutable
@ValueStyle
public abstract class InFlightRun {

  /**
   * The run's GitHub Actions run id.
   *
   * @return a positive decimal number
   */
  public abstract String runId();

  /**
   * The workflow the run belongs to, by the name the policy declares.
   *
   * @return e.g. {@code pr-test-rocm}
   */
  public abstract String workflow();

  /**
   * The pull request the run tests.
   *
   * @return a positive number, absent for scheduled runs and dispatches
   */
  public abstract OptionalLong prNumber();

  /**
   * The cron of a scheduled run.
   *
   * @return the cron string
   */
  public abstract Optional<String> cron();

  /**
   * The full git ref of a release run.
   *
   * @return e.g. {@code refs/heads/release/v0.5}
   */
  public abstract Optional<String> releaseRef();

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
   * @return e.g. {@code 0 15 * * 6}
   */
  public String keySuffix() {
    return Keys.suffix(prNumber(), cron(), releaseRef(), runId());
  }

  /**
   * Turns empty strings into absent values, then checks the values.
   *
   * @return the normalized run
   * @throws InvalidInputException when the run id or workflow is empty or a value is malformed
   */
  @Value.Check
  protected InFlightRun normalize() {
    if (Keys.blank(cron()) || Keys.blank(releaseRef())) {
      return builder().from(this)
          .cron(cron().filter(s -> !s.isEmpty()))
          .releaseRef(releaseRef().filter(s -> !s.isEmpty()))
          .build();
    }
    Keys.checkCommon("an in-flight run", workflow(), runId(), prNumber(), cron(), releaseRef());
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

  /** Builds a {@link InFlightRun}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableInFlightRun.Builder {
    Builder() {}
  }
}
