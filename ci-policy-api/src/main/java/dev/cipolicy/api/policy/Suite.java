package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * A stage: a named group of tests that runs on one kind of runner. Its name is the project's own choice
 * (any {@link #NAME_GRAMMAR} name, e.g. {@code unit-tests}); what it runs on is declared by fields, never
 * read from the name: {@link #gpus()}, {@link #hardware()}, {@link #pool()} and {@link #gpuBudget()}. A
 * policy that wants its names to carry those facts declares a {@link SuiteNaming} rule.
 */
@Value.Immutable
@ValueStyle
public abstract class Suite {
  /**
   * The grammar of a suite name: a letter or digit, then up to 63 letters, digits, {@code .}, {@code _} or
   * {@code -}. Such a name is safe on a shell command line, in a file name and in a container name.
   */
  public static final String NAME_GRAMMAR = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";

  private static final Pattern NAME = Pattern.compile(NAME_GRAMMAR);

  /** The most GPUs a suite's runner slot may have: 1,024. */
  public static final int MAX_GPUS = 1_024;

  /**
   * The stage name, matching {@link #NAME_GRAMMAR} (and the policy's {@link SuiteNaming} rule, if any).
   *
   * @return e.g. {@code unit-tests} or {@code stage-c-4-gpu-h200}
   */
  public abstract String name();

  /**
   * The GPUs of the runner (or host slot) a job of this stage runs on; 0 for a CPU stage.
   *
   * @return 0 by default, at most {@link #MAX_GPUS}
   */
  @Value.Default
  public int gpus() {
    return 0;
  }

  /**
   * The GPU hardware the stage runs on; when declared, the stage's runner labels must name it.
   *
   * @return e.g. {@code h200}, matching {@link #RUNNER_LABEL_GRAMMAR}
   */
  public abstract Optional<String> hardware();

  /**
   * The runner pool the stage's jobs are queued on (a scheduler groups runners by pool).
   *
   * @return e.g. {@code h200}, matching {@link #RUNNER_LABEL_GRAMMAR}
   */
  public abstract Optional<String> pool();

  /**
   * The GPUs each job of the stage needs, at most {@link #gpus()}: a whole-node stage whose tests declare
   * their own budget may need fewer than the node has.
   *
   * @return {@link #gpus()} by default; 0 exactly for a CPU stage
   */
  @Value.Default
  public int gpuBudget() {
    return gpus();
  }

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
   * How a job of the stage runs on a host; replaces the backend's {@link Backend#run()} whole.
   *
   * @return the stage's own command, absent to use the backend's
   */
  public abstract Optional<RunCommand> run();

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
   * Rejects a name outside {@link #NAME_GRAMMAR}, fewer than 1 shard, a GPU count outside 0 to
   * {@link #MAX_GPUS}, a GPU budget outside 1 to {@link #gpus()} (0 for a CPU stage), and a hardware, pool
   * or runner label outside {@link #RUNNER_LABEL_GRAMMAR}; how the fields agree with the backend, the runner
   * labels, the host layout and the policy's naming rule is a static check of the policy.
   *
   * @throws InvalidValueException naming the field, e.g. {@code runnerLabels[2]}
   */
  @Value.Check
  protected void check() {
    ValueCheck check = ValueCheck.of("Suite").nonEmpty("name", name())
        .require(name().isEmpty() || NAME.matcher(name()).matches(), "name",
            () -> "suite name '" + shown(name()) + "' is not shell-safe; expected 1 to 64 characters matching "
                + NAME_GRAMMAR)
        .atLeast("shards", shards(), 1)
        .atMost("shards", shards(), MAX_SHARDS)
        .atLeast("gpus", gpus(), 0)
        .atMost("gpus", gpus(), MAX_GPUS);
    if (gpus() == 0) {
      check.require(gpuBudget() == 0, "gpuBudget", () -> "a CPU suite (gpus 0) needs no GPU budget; got "
          + gpuBudget() + " (declare gpus first)");
    } else {
      check.require(gpuBudget() >= 1 && gpuBudget() <= gpus(), "gpuBudget", () -> "the GPU budget of a job must"
          + " be 1 to the suite's " + gpus() + " GPUs, got " + gpuBudget());
    }
    hardware().ifPresent(hw -> check.require(RUNNER_LABEL.matcher(hw).matches(), "hardware",
        () -> "hardware '" + shown(hw) + "' is not shell-safe; expected 1 to 64 characters matching "
            + RUNNER_LABEL_GRAMMAR));
    pool().ifPresent(p -> check.require(RUNNER_LABEL.matcher(p).matches(), "pool",
        () -> "pool '" + shown(p) + "' is not shell-safe; expected 1 to 64 characters matching "
            + RUNNER_LABEL_GRAMMAR));
    List<String> labels = runnerLabels();
    for (int i = 0; i < labels.size(); i++) {
      String label = labels.get(i);
      check.require(RUNNER_LABEL.matcher(label).matches(), "runnerLabels[" + i + "]",
          () -> "runner label '" + shown(label) + "' is not shell-safe; expected 1 to 64 characters matching " + RUNNER_LABEL_GRAMMAR);
    }
    check.done();
  }

  private static String shown(String text) {
    return text.length() > 80 ? text.substring(0, 80) + "..." : text;
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
