package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * A stage: a named group of tests that runs on one kind of runner.
 */
@Value.Immutable
@ValueStyle
public abstract class Suite {
  /**
   * The stage name, following the stage grammar.
   *
   * @return e.g. {@code stage-c-4-gpu-h200}
   */
  public abstract String name();

  /**
   * The grammar of a runner label: a letter or digit, then up to 63 letters, digits, {@code .}, {@code _} or
   * {@code -}. Such a label is safe to put on a shell command line or in a {@code runs-on:} value unquoted.
   */
  public static final String RUNNER_LABEL_GRAMMAR = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";

  private static final Pattern RUNNER_LABEL = Pattern.compile(RUNNER_LABEL_GRAMMAR);

  /**
   * The runner labels a job of this stage runs on (empty for GitHub-hosted CPU stages); each matches
   * {@link #RUNNER_LABEL_GRAMMAR}.
   *
   * @return e.g. {@code [h200, 4gpu]}
   */
  public abstract List<String> runnerLabels();

  /** The most shards a suite (and a partitioned suite run) may have: 1,000. */
  public static final int MAX_SHARDS = 1_000;

  /**
   * The number of shards of the stage matrix; also its default max-parallel.
   *
   * @return at least 1, at most {@link #MAX_SHARDS}
   */
  @Value.Default
  public int shards() {
    return 1;
  }

  /**
   * Whether the stage runs on GitHub-hosted runners.
   *
   * @return the flag
   */
  @Value.Default
  public boolean githubHosted() {
    return false;
  }

  /**
   * Whether the stage is scheduled only by an external nightly workflow, never by PR runs.
   *
   * @return the flag
   */
  @Value.Default
  public boolean externallyScheduled() {
    return false;
  }

  /**
   * The host layout the stage runs on, by name.
   *
   * @return a declared host name, if the stage is bound to a layout
   */
  public abstract Optional<String> host();

  /**
   * What the stage covers.
   *
   * @return a human description, possibly empty
   */
  @Value.Default
  public String description() {
    return "";
  }

  /**
   * Rejects an empty name, fewer than 1 shard and a runner label outside {@link #RUNNER_LABEL_GRAMMAR}; the
   * stage grammar is a static check of the policy.
   *
   * @throws InvalidValueException naming the field, e.g. {@code runnerLabels[2]}
   */
  @Value.Check
  protected void check() {
    ValueCheck check = ValueCheck.of("Suite").nonEmpty("name", name()).atLeast("shards", shards(), 1)
        .atMost("shards", shards(), MAX_SHARDS);
    List<String> labels = runnerLabels();
    for (int i = 0; i < labels.size(); i++) {
      String label = labels.get(i);
      check.require(RUNNER_LABEL.matcher(label).matches(), "runnerLabels[" + i + "]",
          () -> "runner label '" + (label.length() > 80 ? label.substring(0, 80) + "..." : label)
              + "' is not shell-safe; expected 1 to 64 characters matching " + RUNNER_LABEL_GRAMMAR);
    }
    check.done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Suite}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableSuite.Builder {
    Builder() {}
  }
}
