package dev.cipolicy.api.policy;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A placeholder of a {@link RunCommand} template: a name written in braces, {@code {suite}}, that a job plan
 * replaces with one fact of the job or its run. The set is closed; any other name in braces is an error when
 * the policy is loaded.
 */
public enum RunPlaceholder {
  /** The suite's name, e.g. {@code stage-c-4-gpu-h200}. */
  SUITE("suite"),
  /** The suite's backend, e.g. {@code cuda}. */
  BACKEND("backend"),
  /** The job's shard, a 0-based partition id: 0 to {@code shards - 1}. */
  SHARD("shard"),
  /** The suite's shard count, the partition size (1 for an unsharded suite). */
  SHARDS("shards"),
  /** The GPUs the job is granted: the suite's GPU budget, 0 for a CPU suite. */
  GPUS("gpus"),
  /** The job name, {@code <suite>-<shard>of<shards>}. */
  JOB("job"),
  /** The job's timeout in whole minutes, rounded up. */
  TIMEOUT_MINUTES("timeout_minutes"),
  /** The run's cadence, e.g. {@code nightly}. */
  CADENCE("cadence"),
  /** The run's raw labels joined with commas, in the order given; empty when there are none. */
  LABELS("labels"),
  /** The commit the run tests, lowercase hexadecimal. */
  COMMIT("commit"),
  /** The pull request number; empty when the run is not for a pull request. */
  PR("pr"),
  /** The run's id, e.g. the workflow run id. */
  RUN_ID("run_id"),
  /** The run's attempt, from 1. */
  ATTEMPT("attempt"),
  /** The tag of the CI image for the run, {@code latest} by default. */
  IMAGE_TAG("image_tag");

  /** Every placeholder as written, sorted: {@code {attempt}, {backend}, ...}; quoted in errors. */
  public static final String KNOWN = Arrays.stream(values()).map(p -> p.token).sorted()
      .map(t -> "{" + t + "}").collect(Collectors.joining(", "));

  private final String token;

  RunPlaceholder(String token) {
    this.token = token;
  }

  /**
   * The name written between the braces.
   *
   * @return e.g. {@code run_id}
   */
  public String token() {
    return token;
  }

  /**
   * The placeholder of a name.
   *
   * @param token the name between the braces
   * @return the placeholder, absent for an unknown name
   */
  public static Optional<RunPlaceholder> of(String token) {
    for (RunPlaceholder p : values()) {
      if (p.token.equals(token)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
