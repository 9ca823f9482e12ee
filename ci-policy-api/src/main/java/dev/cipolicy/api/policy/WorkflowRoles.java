package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.immutables.value.Value;

/**
 * What the jobs of one GitHub Actions workflow are for, so that {@code ci-policy workflow lint} can prove the
 * policy's invariants on the workflow file by simulating it: which file it is, which job resolves the policy,
 * which job is the fast-fail gate, which jobs run which suite, and the names of the policy job's outputs.
 *
 * <pre>{@code
 * workflows:
 *   pr-test:
 *     group_prefix: pr-test-
 *     roles:
 *       file: pr-test.yml
 *       policy_job: resolve-ci-policy
 *       gate_job: stage-a-cpu
 *       throttled_cadences: [weekly]
 * }</pre>
 *
 * <p>Without {@link #stageJobs()}, every job whose id is a suite of the policy is the stage job of that suite.
 */
@Value.Immutable
@ValueStyle
public abstract class WorkflowRoles {
  /** The longest job id, file name or output name accepted: 100 characters. */
  public static final int MAX_NAME_LENGTH = 100;

  /** The most stage jobs one workflow may declare: 1,000. */
  public static final int MAX_STAGE_JOBS = 1_000;

  /**
   * The workflow's name: the key of its entry under {@code workflows:}.
   *
   * @return e.g. {@code pr-test}
   */
  public abstract String workflow();

  /**
   * The workflow's file name in the workflows directory.
   *
   * @return e.g. {@code pr-test.yml}; the workflow's name with {@code .yml} unless declared
   */
  @Value.Default
  public String file() {
    return workflow() + ".yml";
  }

  /**
   * The job that runs {@code ci-policy resolve} and publishes its outputs.
   *
   * @return the job id
   */
  public abstract String policyJob();

  /**
   * The fast-fail gate: the job whose failure stops the stages after it unless the policy bypasses it.
   *
   * @return the job id, when the workflow has one
   */
  public abstract Optional<String> gateJob();

  /**
   * The stage jobs and the suite each runs, by job id; empty means every job named after a suite runs it.
   *
   * @return suite names by job id, in declaration order
   */
  public abstract Map<String, String> stageJobs();

  /**
   * The policy job's output carrying the cadence.
   *
   * @return {@code cadence} unless declared
   */
  @Value.Default
  public String cadenceOutput() {
    return "cadence";
  }

  /**
   * The policy job's output carrying the labels the suites are run with.
   *
   * @return {@code raw_labels} unless declared: the output {@code ci-policy resolve} and its action write
   */
  @Value.Default
  public String labelsOutput() {
    return "raw_labels";
  }

  /**
   * The policy job's output carrying {@code bypass_fastfail} ({@code true} or {@code false}).
   *
   * @return {@code bypass_fastfail} unless declared
   */
  @Value.Default
  public String bypassOutput() {
    return "bypass_fastfail";
  }

  /**
   * The policy job's output carrying the skipped stages as a JSON array of suite names.
   *
   * @return {@code skipped_stages} unless declared
   */
  @Value.Default
  public String skippedStagesOutput() {
    return "skipped_stages";
  }

  /**
   * The cadences that may hold only a share of each runner pool; empty means every cadence with a
   * {@code gpu_max_parallel} or a fleet share that does not borrow.
   *
   * @return cadence names, in declaration order
   */
  public abstract List<String> throttledCadences();

  /**
   * Where the roles are declared, for findings about the policy itself; not part of the value's equality (the
   * same roles read from two documents are equal).
   *
   * @return the location, when the roles came from a document
   */
  @Value.Auxiliary
  public abstract Optional<SourceLocation> location();

  /**
   * Rejects empty or over-long names, a file name with a directory, a gate that is the policy job, and more
   * than {@link #MAX_STAGE_JOBS} stage jobs.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck check = ValueCheck.of("WorkflowRoles").nonEmpty("workflow", workflow())
        .nonEmpty("file", file()).atMost("file", file().length(), MAX_NAME_LENGTH)
        .require(!file().contains("/") && !file().contains("\\"), "file",
            () -> "'" + file() + "' must be a file name in the workflows directory, without a directory")
        .nonEmpty("policyJob", policyJob()).atMost("policyJob", policyJob().length(), MAX_NAME_LENGTH)
        .atMost("stageJobs", stageJobs().size(), MAX_STAGE_JOBS);
    gateJob().ifPresent(g -> check.nonEmpty("gateJob", g).atMost("gateJob", g.length(), MAX_NAME_LENGTH)
        .require(!g.equals(policyJob()), "gateJob", () -> "'" + g + "' is the policy job; the fast-fail gate"
            + " must be another job"));
    stageJobs().forEach((job, suite) -> check.nonEmpty("stageJobs", job).nonEmpty("stageJobs", suite)
        .atMost("stageJobs", job.length(), MAX_NAME_LENGTH)
        .require(!job.equals(policyJob()), "stageJobs", () -> "'" + job + "' is the policy job; it cannot also"
            + " be a stage job"));
    for (String output : List.of(cadenceOutput(), labelsOutput(), bypassOutput(), skippedStagesOutput())) {
      check.nonEmpty("outputs", output).atMost("outputs", output.length(), MAX_NAME_LENGTH);
    }
    throttledCadences().forEach(c -> check.nonEmpty("throttledCadences", c));
    check.done();
  }

  /**
   * The suite a job runs, by the declared map or, without one, by the job's id.
   *
   * @param job the job id
   * @param suites the policy's suite names
   * @return the suite, when the job is a stage job
   */
  public Optional<String> suiteOf(String job, Set<String> suites) {
    if (!stageJobs().isEmpty()) {
      return Optional.ofNullable(stageJobs().get(job));
    }
    return suites.contains(job) ? Optional.of(job) : Optional.empty();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link WorkflowRoles}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableWorkflowRoles.Builder {
    Builder() {}
  }
}
