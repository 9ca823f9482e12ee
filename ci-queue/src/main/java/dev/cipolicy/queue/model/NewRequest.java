package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.immutables.value.Value;
import org.jspecify.annotations.Nullable;

/**
 * A request as a host submits it, before the store gives it an id: its kind, artifact tag, parent, PR
 * number and benchmark groups, or for a CI run its {@link CiRun} and jobs. The kind and the presence of the
 * tag fix the initial state (see {@link #initialState()}); build one with {@link #master},
 * {@link #tryAwaitingArtifacts}, {@link #tryWithArtifacts}, {@link #release} or {@link #ciRun}, then add a PR number or benchmark groups with
 * {@link #withPr} and {@link #withBenchmarkGroups(String...)}; {@link #builder()} builds any other valid
 * combination.
 */
@Value.Immutable
@ValueStyle
public abstract class NewRequest {

  /**
   * What the request benchmarks.
   *
   * @return the kind
   */
  public abstract RequestKind kind();

  /**
   * The artifact tag, unique across kinds: the commit SHA of a master or try request, the tag name of a
   * release.
   *
   * @return the tag, absent only for a try request still waiting for artifacts
   */
  public abstract Optional<String> tag();

  /**
   * The SHA of the commit the request is compared with.
   *
   * @return the parent SHA; absent for releases, waiting try requests and root master commits
   */
  public abstract Optional<String> parentSha();

  /**
   * The pull request the request comes from.
   *
   * @return a positive number; required for try, optional for master, absent for release
   */
  public abstract OptionalLong pr();

  /**
   * The benchmark groups to run.
   *
   * @return the groups in order; empty for the site's default groups
   */
  public abstract List<String> benchmarkGroups();

  /**
   * The CI run a {@link RequestKind#CI_RUN} request is.
   *
   * @return the run, present exactly for a CI run
   */
  public abstract Optional<CiRun> ciRun();

  /**
   * The jobs of a CI run, planned by its submitter and created with the request.
   *
   * @return the jobs, unique by group and tag, at most {@value #MAX_CI_RUN_JOBS}; empty for other kinds
   */
  public abstract List<JobSpec> jobs();

  /** The most jobs a CI run carries. */
  public static final int MAX_CI_RUN_JOBS = 10_000;

  /**
   * The state a store creates the request in.
   *
   * @return {@link RequestState#IN_PROGRESS} for a CI run, {@link RequestState#WAITING_FOR_ARTIFACTS} for a
   *     try request without a tag, otherwise {@link RequestState#ARTIFACTS_READY}
   */
  public RequestState initialState() {
    if (kind() == RequestKind.CI_RUN) {
      return RequestState.IN_PROGRESS;
    }
    return tag().isPresent() ? RequestState.ARTIFACTS_READY : RequestState.WAITING_FOR_ARTIFACTS;
  }

  /**
   * Checks the combination of kind, tag, parent and PR.
   *
   * @throws InvalidQueueInputException naming the field that does not fit the kind
   */
  @Value.Check
  protected void check() {
    RequestKind kind = kind();
    String what = "a " + kind.documentName() + " request";
    tag().ifPresent(t -> Checks.token(t, what + ": tag"));
    parentSha().ifPresent(p -> Checks.token(p, what + ": parent SHA"));
    if (pr().isPresent()) {
      Checks.positive(pr().getAsLong(), what + ": PR number");
    }
    for (String group : benchmarkGroups()) {
      Checks.token(group, what + ": benchmark group");
    }
    Checks.unique(benchmarkGroups(), what + ": benchmark groups");
    if (kind != RequestKind.CI_RUN && ciRun().isPresent()) {
      throw new InvalidQueueInputException(what + " carries no CI run (got " + ciRun().get().key() + ")");
    }
    if (kind != RequestKind.CI_RUN && !jobs().isEmpty()) {
      throw new InvalidQueueInputException(what + " carries no jobs (got " + jobs().size() + "); the site"
          + " plans them when it starts the request");
    }
    switch (kind) {
      case MASTER -> {
        if (tag().isEmpty()) {
          throw new InvalidQueueInputException(what + " needs its commit SHA as tag");
        }
      }
      case TRY -> {
        if (pr().isEmpty()) {
          throw new InvalidQueueInputException(what + " needs a PR number");
        }
        if (tag().isEmpty() && parentSha().isPresent()) {
          throw new InvalidQueueInputException(what + " waiting for artifacts has no parent SHA yet (got '"
              + parentSha().get() + "'); attach SHA and parent together");
        }
        if (tag().isPresent() && parentSha().isEmpty()) {
          throw new InvalidQueueInputException(what + " with SHA '" + tag().get() + "' needs a parent SHA");
        }
      }
      case RELEASE -> {
        if (tag().isEmpty()) {
          throw new InvalidQueueInputException(what + " needs its release tag");
        }
        if (parentSha().isPresent()) {
          throw new InvalidQueueInputException(what + " has no parent (got '" + parentSha().get() + "')");
        }
        if (pr().isPresent()) {
          throw new InvalidQueueInputException(what + " has no PR number (got " + pr().getAsLong() + ")");
        }
      }
      case CI_RUN -> checkCiRun(what);
    }
    if (tag().isPresent() && tag().equals(parentSha())) {
      throw new InvalidQueueInputException(what + ": tag '" + tag().get() + "' cannot be its own parent");
    }
  }

  private void checkCiRun(String what) {
    if (ciRun().isEmpty()) {
      throw new InvalidQueueInputException(what + " needs its CI run (repository, run id, attempt, commit)");
    }
    String run = what + " " + ciRun().get().key();
    if (tag().isPresent() || parentSha().isPresent() || pr().isPresent() || !benchmarkGroups().isEmpty()) {
      throw new InvalidQueueInputException(run + " has no tag, parent SHA, request PR number or benchmark"
          + " groups (its commit and PR are the CI run's fields); got tag " + tag().orElse("none") + ", parent "
          + parentSha().orElse("none") + ", " + benchmarkGroups().size() + " groups");
    }
    if (jobs().size() > MAX_CI_RUN_JOBS) {
      throw new InvalidQueueInputException(run + " has " + jobs().size() + " jobs; expected at most "
          + MAX_CI_RUN_JOBS);
    }
    java.util.Set<List<String>> keys = new java.util.HashSet<>();
    for (JobSpec spec : jobs()) {
      Checks.present(spec, run + ": job");
      if (!keys.add(List.of(spec.benchmarkGroup(), spec.collectorTag()))) {
        throw new InvalidQueueInputException(run + " lists job " + spec.benchmarkGroup() + "@"
            + spec.collectorTag() + " twice; expected each group and tag at most once");
      }
    }
  }

  /**
   * A CI run request: created in progress with its jobs queued, keyed by the run's repository, run id and
   * attempt.
   *
   * @param run the run
   * @param jobs its jobs, planned by the submitter, unique by group and tag, at most
   *     {@value #MAX_CI_RUN_JOBS}
   * @return the request
   * @throws InvalidQueueInputException when the run or the jobs are missing, or a job is listed twice
   */
  public static NewRequest ciRun(@Nullable CiRun run, @Nullable List<JobSpec> jobs) {
    CiRun checked = Checks.present(run, "CI run");
    return builder().kind(RequestKind.CI_RUN).ciRun(checked)
        .addAllJobs(Checks.present(jobs, "jobs of CI run " + checked.key())).build();
  }

  /**
   * A master request: a merged commit, ready at creation.
   *
   * @param sha the commit SHA (the tag)
   * @param parentSha the parent commit's SHA, or null for a root commit
   * @return the request; add a PR number with {@code withPr} and groups with {@code withBenchmarkGroups}
   */
  public static NewRequest master(String sha, @Nullable String parentSha) {
    return builder().kind(RequestKind.MASTER).tag(Checks.present(sha, "master SHA"))
        .parentSha(Optional.ofNullable(parentSha)).build();
  }

  /**
   * A try request whose artifacts are not built yet; it waits until its SHA is attached.
   *
   * @param pr the pull request number
   * @return the request
   */
  public static NewRequest tryAwaitingArtifacts(long pr) {
    return builder().kind(RequestKind.TRY).pr(pr).build();
  }

  /**
   * A try request whose artifacts exist; ready at creation.
   *
   * @param pr the pull request number
   * @param sha the head SHA (the tag)
   * @param parentSha the SHA it is compared with
   * @return the request
   */
  public static NewRequest tryWithArtifacts(long pr, String sha, String parentSha) {
    return builder().kind(RequestKind.TRY).pr(pr).tag(Checks.present(sha, "try SHA"))
        .parentSha(Checks.present(parentSha, "try parent SHA")).build();
  }

  /**
   * A release request: a published tag, ready at creation.
   *
   * @param tag the release tag, e.g. {@code 1.80.0}
   * @return the request
   */
  public static NewRequest release(String tag) {
    return builder().kind(RequestKind.RELEASE).tag(Checks.present(tag, "release tag")).build();
  }

  /**
   * This request with a PR number.
   *
   * @param pr the pull request number, positive
   * @return the request with the number; a release request rejects it
   * @throws InvalidQueueInputException when the number does not fit the kind
   */
  public NewRequest withPr(long pr) {
    return builder().from(this).pr(pr).build();
  }

  /**
   * This request with its own benchmark groups instead of the site's defaults.
   *
   * @param groups the groups, in order, each once
   * @return the request with the groups
   * @throws InvalidQueueInputException when a group is not a plain name or is listed twice
   */
  public NewRequest withBenchmarkGroups(String... groups) {
    return withBenchmarkGroups(List.of(groups));
  }

  /**
   * This request with its own benchmark groups instead of the site's defaults.
   *
   * @param groups the groups, in order, each once
   * @return the request with the groups
   * @throws InvalidQueueInputException when a group is not a plain name or is listed twice
   */
  public NewRequest withBenchmarkGroups(Iterable<String> groups) {
    return builder().from(this).benchmarkGroups(groups).build();
  }

  /**
   * A new builder, for combinations the factories do not cover; {@code build()} runs the same checks.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link NewRequest}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableNewRequest.Builder {
    Builder() {}
  }
}
