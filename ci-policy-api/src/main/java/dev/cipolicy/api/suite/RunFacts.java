package dev.cipolicy.api.suite;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.policy.RunPlaceholder;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * The facts of one CI run that its jobs' commands may name ({@link RunPlaceholder}): the commit, the pull
 * request, the run id and attempt, the cadence, the raw labels and the CI image tag. A workflow step fills
 * it from its event and the resolved run policy.
 *
 * <pre>{@code
 * RunFacts facts = RunFacts.builder().commit("0123abcd").pr(42).runId("9876543210").attempt(1)
 *     .cadence(run.cadence()).labels(run.rawLabels()).build();
 * }</pre>
 */
@Value.Immutable
@ValueStyle
public abstract class RunFacts {
  /** The grammar of a commit: 7 to 64 lowercase hexadecimal digits (an abbreviated or full SHA-1 or SHA-256). */
  public static final String COMMIT_GRAMMAR = "[0-9a-f]{7,64}";

  /** The grammar of a run id: a letter or digit, then up to 99 letters, digits, {@code .}, {@code _} or {@code -}. */
  public static final String RUN_ID_GRAMMAR = "[A-Za-z0-9][A-Za-z0-9._-]{0,99}";

  /** The grammar of a cadence: a letter or digit, then up to 63 letters, digits, {@code _}, {@code .} or {@code -}. */
  public static final String CADENCE_GRAMMAR = "[A-Za-z0-9][A-Za-z0-9_.-]{0,63}";

  /** The grammar of an image tag (the container registries' own): up to 128 characters. */
  public static final String IMAGE_TAG_GRAMMAR = "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}";

  /** The most raw labels a run may carry: 100 (GitHub allows 100 labels on an issue or pull request). */
  public static final int MAX_LABELS = 100;

  /** The longest raw label: 100 characters (GitHub's labels are at most 50). */
  public static final int MAX_LABEL_LENGTH = 100;

  private static final Pattern COMMIT = Pattern.compile(COMMIT_GRAMMAR);
  private static final Pattern RUN_ID = Pattern.compile(RUN_ID_GRAMMAR);
  private static final Pattern CADENCE = Pattern.compile(CADENCE_GRAMMAR);
  private static final Pattern IMAGE_TAG = Pattern.compile(IMAGE_TAG_GRAMMAR);

  /**
   * The commit the run tests.
   *
   * @return lowercase hexadecimal, matching {@link #COMMIT_GRAMMAR}
   */
  public abstract String commit();

  /**
   * The pull request the run is for.
   *
   * @return a number of at least 1, absent for a scheduled or dispatched run
   */
  public abstract Optional<Integer> pr();

  /**
   * The run's id.
   *
   * @return e.g. {@code 9876543210}, matching {@link #RUN_ID_GRAMMAR}
   */
  public abstract String runId();

  /**
   * The run's attempt: 1 for the first, 2 for the first re-run, ...
   *
   * @return at least 1; 1 by default
   */
  @Value.Default
  public int attempt() {
    return 1;
  }

  /**
   * The run's cadence.
   *
   * @return e.g. {@code nightly}, matching {@link #CADENCE_GRAMMAR}
   */
  public abstract String cadence();

  /**
   * The raw labels the run was resolved from, in order ({@code RunPolicy.rawLabels()}); the
   * {@code {labels}} placeholder joins them with commas, so no label contains a comma.
   *
   * @return at most {@link #MAX_LABELS} labels of 1 to {@link #MAX_LABEL_LENGTH} characters without a comma
   *     or a control character
   */
  public abstract List<String> labels();

  /**
   * The tag of the run's CI image.
   *
   * @return {@code latest} by default, matching {@link #IMAGE_TAG_GRAMMAR}
   */
  @Value.Default
  public String imageTag() {
    return "latest";
  }

  /**
   * Rejects a field outside its grammar, a pull request or attempt below 1, too many labels, and a label that
   * is empty, too long, or contains a comma or a control character.
   *
   * @throws InvalidValueException naming the field, e.g. {@code labels[2]}
   */
  @Value.Check
  protected void check() {
    ValueCheck check = ValueCheck.of("RunFacts")
        .require(COMMIT.matcher(commit()).matches(), "commit", () -> "commit '" + shown(commit())
            + "' is not a commit id; expected " + COMMIT_GRAMMAR)
        .require(RUN_ID.matcher(runId()).matches(), "runId", () -> "run id '" + shown(runId())
            + "' is not valid; expected " + RUN_ID_GRAMMAR)
        .atLeast("attempt", attempt(), 1)
        .require(CADENCE.matcher(cadence()).matches(), "cadence", () -> "cadence '" + shown(cadence())
            + "' is not valid; expected " + CADENCE_GRAMMAR)
        .require(IMAGE_TAG.matcher(imageTag()).matches(), "imageTag", () -> "image tag '" + shown(imageTag())
            + "' is not valid; expected " + IMAGE_TAG_GRAMMAR)
        .atMost("labels", labels().size(), MAX_LABELS);
    pr().ifPresent(pr -> check.atLeast("pr", pr, 1));
    for (int i = 0; i < labels().size() && i <= MAX_LABELS; i++) {
      String label = labels().get(i);
      check.require(!label.isEmpty() && label.length() <= MAX_LABEL_LENGTH
              && label.chars().noneMatch(c -> c == ',' || Character.isISOControl(c)), "labels[" + i + "]",
          () -> "label '" + shown(label) + "' cannot be passed comma-joined; expected 1 to " + MAX_LABEL_LENGTH
              + " characters without a comma or a control character");
    }
    check.done();
  }

  private static String shown(String text) {
    String oneLine = text.replaceAll("\\p{Cntrl}", "?");
    return oneLine.length() > 80 ? oneLine.substring(0, 80) + "..." : oneLine;
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds {@link RunFacts}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableRunFacts.Builder {
    Builder() {}
  }
}
