package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.immutables.value.Value;
import org.jspecify.annotations.Nullable;

/**
 * A CI workflow run as the queue keeps it: its key (repository, run id, attempt, see {@link CiRunKey}), the
 * commit it runs, its cadence, the event that triggered it, the PR, labels, workflow and concurrency group. A
 * CI run request ({@link RequestKind#CI_RUN}) carries one; the key is unique in a store, so a second
 * submission of the same key attaches to the first. Build one with {@link #of} and the {@code with...}
 * methods, or {@link #builder()}; {@code build()} checks every rule.
 */
@Value.Immutable
@ValueStyle
public abstract class CiRun {

  /** The most labels a run carries. */
  public static final int MAX_LABELS = 100;

  /**
   * The repository, {@code owner/name}.
   *
   * @return the repository
   */
  public abstract String repository();

  /**
   * The workflow run id.
   *
   * @return a positive number
   */
  public abstract long runId();

  /**
   * The run attempt; a re-run of the same run id has the next one.
   *
   * @return at least 1
   */
  public abstract int attempt();

  /**
   * The commit the run tests.
   *
   * @return the commit SHA, a name
   */
  public abstract String commitSha();

  /**
   * The cadence of the run (a queue name, e.g. {@code nightly}), which its jobs usually carry for the fleet
   * shares.
   *
   * @return the cadence, or the empty string for none (the default)
   */
  @Value.Default
  public String cadence() {
    return "";
  }

  /**
   * The event that triggered the run, e.g. {@code pull_request}, {@code schedule}, {@code workflow_dispatch},
   * {@code issue_comment}.
   *
   * @return the event, a name
   */
  public abstract String event();

  /**
   * The pull request the run belongs to.
   *
   * @return a positive number, or empty
   */
  public abstract OptionalLong pr();

  /**
   * The labels the run saw, e.g. the PR's labels.
   *
   * @return names, each once, at most {@value #MAX_LABELS}
   */
  public abstract List<String> labels();

  /**
   * The workflow's name.
   *
   * @return a text of 1 to {@value QueueNames#MAX_NAME} characters, or empty
   */
  public abstract Optional<String> workflow();

  /**
   * The concurrency group: a newer run of the same repository and group supersedes the older open ones.
   *
   * @return a text of 1 to {@value QueueNames#MAX_NAME} characters, or empty for none
   */
  public abstract Optional<String> concurrencyGroup();

  /**
   * The run's key.
   *
   * @return repository, run id and attempt
   */
  public CiRunKey key() {
    return new CiRunKey(repository(), runId(), attempt());
  }

  /**
   * Checks every field.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    new CiRunKey(repository(), runId(), attempt());
    String what = "CI run " + repository() + " run " + runId() + " attempt " + attempt();
    Checks.token(commitSha(), what + ": commit SHA");
    Checks.token(event(), what + ": event");
    if (!cadence().isEmpty()) {
      Checks.token(cadence(), what + ": cadence");
    }
    if (pr().isPresent()) {
      Checks.positive(pr().getAsLong(), what + ": PR number");
    }
    if (labels().size() > MAX_LABELS) {
      throw new InvalidQueueInputException(what + " has " + labels().size() + " labels; expected at most "
          + MAX_LABELS);
    }
    for (String label : labels()) {
      Checks.token(label, what + ": label");
    }
    Checks.unique(labels(), what + ": labels");
    workflow().ifPresent(w -> name(w, what + ": workflow"));
    concurrencyGroup().ifPresent(g -> name(g, what + ": concurrency group"));
  }

  private static void name(String value, String what) {
    if (value.isEmpty() || value.length() > QueueNames.MAX_NAME) {
      throw new InvalidQueueInputException(what + " has " + value.length() + " characters; expected 1 to "
          + QueueNames.MAX_NAME);
    }
    Checks.storable(value, what);
  }

  /**
   * A run without cadence, PR, labels, workflow or concurrency group.
   *
   * @param repository {@code owner/name}
   * @param runId the workflow run id, positive
   * @param attempt the attempt, at least 1
   * @param commitSha the commit
   * @param event the triggering event, e.g. {@code schedule}
   * @return the run
   * @throws InvalidQueueInputException when a field is missing or invalid
   */
  public static CiRun of(@Nullable String repository, long runId, int attempt, @Nullable String commitSha,
      @Nullable String event) {
    return builder().repository(CiRunKey.repository(repository)).runId(runId).attempt(attempt)
        .commitSha(Checks.token(commitSha, "CI run commit SHA")).event(Checks.token(event, "CI run event")).build();
  }

  /**
   * This run with a cadence.
   *
   * @param cadence a name, or the empty string for none
   * @return the run
   */
  public CiRun withCadence(String cadence) {
    return builder().from(this).cadence(Checks.present(cadence, "CI run cadence (the empty string for none)"))
        .build();
  }

  /**
   * This run with a PR number.
   *
   * @param pr positive
   * @return the run
   */
  public CiRun withPr(long pr) {
    return builder().from(this).pr(pr).build();
  }

  /**
   * This run with labels.
   *
   * @param labels names, each once
   * @return the run
   */
  public CiRun withLabels(List<String> labels) {
    return builder().from(this).labels(Checks.present(labels, "CI run labels")).build();
  }

  /**
   * This run with a workflow name.
   *
   * @param workflow the name
   * @return the run
   */
  public CiRun withWorkflow(String workflow) {
    return builder().from(this).workflow(Checks.present(workflow, "CI run workflow")).build();
  }

  /**
   * This run in a concurrency group.
   *
   * @param group the group
   * @return the run
   */
  public CiRun withConcurrencyGroup(String group) {
    return builder().from(this).concurrencyGroup(Checks.present(group, "CI run concurrency group")).build();
  }

  /**
   * Whether this run supersedes another: both have the same repository and concurrency group and this one's
   * key is newer.
   *
   * @param older the other run
   * @return true when a submission of this run cancels the other while it is open
   */
  public boolean supersedes(CiRun older) {
    return concurrencyGroup().isPresent() && concurrencyGroup().equals(older.concurrencyGroup())
        && older.key().isOlderThan(key());
  }

  /**
   * The cancellation reason of a run this one supersedes, rendered once from the typed fields.
   *
   * @return e.g. {@code superseded by owner/name run 124 attempt 1 (concurrency group ci-main)}
   */
  public String supersedingReason() {
    return "superseded by " + key() + concurrencyGroup().map(g -> " (concurrency group " + g + ")").orElse("");
  }

  /**
   * A short label.
   *
   * @return e.g. {@code owner/name run 123 attempt 1 at 3f9a0c1}
   */
  public String label() {
    return key() + " at " + commitSha();
  }

  /**
   * A new builder; {@code build()} checks every rule.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link CiRun}. */
  public static final class Builder extends ImmutableCiRun.Builder {
    Builder() {}
  }
}
