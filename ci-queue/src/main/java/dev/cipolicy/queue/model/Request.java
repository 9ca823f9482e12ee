package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.immutables.value.Value;
import org.jspecify.annotations.Nullable;

/**
 * A stored benchmark request: one artifact to benchmark, with its id, kind, state and lifecycle
 * instants. Hosts create requests through {@link NewRequest} and a store, which fixes the initial state
 * ({@link #created}); the lifecycle methods ({@link #withArtifacts}, {@link #started}, {@link #completed},
 * {@link #cancelled}, {@link #reopened}) are the only transitions. {@link #builder()} exists for stores that rebuild a
 * request from a row; {@link #check()} rejects every combination no transition can reach.
 */
@Value.Immutable
@ValueStyle
public abstract class Request {

  /**
   * The store-given identity.
   *
   * @return the id
   */
  public abstract RequestId id();

  /**
   * What the request benchmarks.
   *
   * @return the kind
   */
  public abstract RequestKind kind();

  /**
   * Where the request is in its lifecycle.
   *
   * @return the state
   */
  public abstract RequestState state();

  /**
   * The artifact tag, unique across kinds (commit SHA or release tag).
   *
   * @return the tag; absent only for a try request that never got its artifacts
   */
  public abstract Optional<String> tag();

  /**
   * The SHA of the commit the request is compared with and whose jobs it backfills.
   *
   * @return the parent SHA, absent for releases, waiting try requests and root commits
   */
  public abstract Optional<String> parentSha();

  /**
   * The pull request the request comes from.
   *
   * @return a positive number, absent for releases and some master commits
   */
  public abstract OptionalLong pr();

  /**
   * The benchmark groups to run.
   *
   * @return the groups; empty for the site's defaults
   */
  public abstract List<String> benchmarkGroups();

  /**
   * When the store accepted the request.
   *
   * @return the submission instant
   */
  public abstract Instant createdAt();

  /**
   * When a site started the request.
   *
   * @return the start instant, present once in progress
   */
  public abstract Optional<Instant> startedAt();

  /**
   * When the request completed or was cancelled.
   *
   * @return the instant, present once terminal
   */
  public abstract Optional<Instant> finishedAt();

  /**
   * How the completed request went.
   *
   * @return the outcome, present exactly when completed
   */
  public abstract Optional<Outcome> outcome();

  /**
   * The parent request whose required jobs this request waits for: the request with tag
   * {@link #parentSha()} when it was in progress or completed at start, so that its jobs were backfilled.
   *
   * @return the parent request, present only after start
   */
  public abstract Optional<RequestId> parentRequest();

  /**
   * Why the request was cancelled.
   *
   * @return the reason, present exactly when cancelled
   */
  public abstract Optional<String> cancelReason();

  /**
   * The CI run a {@link RequestKind#CI_RUN} request is.
   *
   * @return the run, present exactly for a CI run
   */
  public abstract Optional<CiRun> ciRun();

  /**
   * The CI run request that superseded this one (a newer run of the same repository and concurrency group);
   * {@link #cancelReason()} is then rendered from that run.
   *
   * @return the superseding request, present only for a CI run cancelled by supersession
   */
  public abstract Optional<RequestId> supersededBy();

  /**
   * A short human label.
   *
   * @return e.g. {@code try #42 3f9a0c1}, {@code master 9b2e... (PR #40)}, {@code release 1.80.0}
   */
  public String label() {
    StringBuilder sb = new StringBuilder(kind().documentName());
    if (ciRun().isPresent()) {
      sb.append(' ').append(ciRun().get().label());
    } else if (kind() == RequestKind.TRY) {
      sb.append(" #").append(pr().orElse(0));
      sb.append(' ').append(tag().orElse("(awaiting artifacts)"));
    } else {
      sb.append(' ').append(tag().orElse("?"));
      if (pr().isPresent()) {
        sb.append(" (PR #").append(pr().getAsLong()).append(')');
      }
    }
    return sb.toString();
  }

  /**
   * Rejects every combination of attributes that no sequence of transitions produces.
   *
   * @throws InvalidQueueInputException naming the attribute that does not fit the state
   */
  @Value.Check
  protected void check() {
    RequestKind kind = kind();
    RequestState state = state();
    String what = "request " + id().value() + " (" + kind.documentName() + ", " + state.documentName() + ")";
    tag().ifPresent(t -> Checks.token(t, what + ": tag"));
    parentSha().ifPresent(p -> Checks.token(p, what + ": parent SHA"));
    if (pr().isPresent()) {
      Checks.positive(pr().getAsLong(), what + ": PR number");
    }
    require(state != RequestState.WAITING_FOR_ARTIFACTS || (kind == RequestKind.TRY && tag().isEmpty()),
        what, "only a try request without a tag waits for artifacts");
    boolean ci = kind == RequestKind.CI_RUN;
    require(ci == ciRun().isPresent(), what, "carries a CI run exactly when it is a CI run");
    require(!ci || (tag().isEmpty() && parentSha().isEmpty() && pr().isEmpty() && benchmarkGroups().isEmpty()),
        what, "a CI run has no tag, parent SHA, request PR number or benchmark groups");
    require(!ci || startedAt().isPresent(), what, "a CI run is in progress from its submission");
    require(supersededBy().isEmpty() || (ci && state == RequestState.CANCELLED), what,
        "only a cancelled CI run is superseded");
    require(supersededBy().isEmpty() || !supersededBy().get().equals(id()), what, "cannot supersede itself");
    require(ci || tag().isPresent() || (kind == RequestKind.TRY && startedAt().isEmpty()
            && (state == RequestState.WAITING_FOR_ARTIFACTS || state == RequestState.CANCELLED)),
        what, "needs a tag unless it is a try request that never got its artifacts");
    require(kind != RequestKind.RELEASE || (parentSha().isEmpty() && pr().isEmpty()),
        what, "a release has no parent and no PR number");
    require(kind != RequestKind.TRY || pr().isPresent(), what, "a try request needs a PR number");
    boolean started = state == RequestState.IN_PROGRESS || state == RequestState.COMPLETED;
    require(!started || startedAt().isPresent(), what, "needs a start instant");
    require(startedAt().isEmpty() || started || state == RequestState.CANCELLED,
        what, "has a start instant but was never started");
    require(state.isTerminal() == finishedAt().isPresent(), what, "has a finish instant exactly when terminal");
    require((state == RequestState.COMPLETED) == outcome().isPresent(), what,
        "has an outcome exactly when completed");
    require((state == RequestState.CANCELLED) == cancelReason().isPresent(), what,
        "has a cancellation reason exactly when cancelled");
    require(tag().isEmpty() || !tag().equals(parentSha()), what, "its tag cannot be its own parent SHA");
    require(parentRequest().isEmpty() || startedAt().isPresent(), what,
        "records its parent request only once started");
    require(parentRequest().isEmpty() || !parentRequest().get().equals(id()), what,
        "cannot be its own parent request");
  }

  private static void require(boolean condition, String what, String rule) {
    if (!condition) {
      throw new InvalidQueueInputException(what + ": " + rule);
    }
  }

  /**
   * A request as a store creates it: the initial state fixed by the kind and the tag.
   *
   * @param id the id the store gives it
   * @param request the submitted request
   * @param now the submission instant
   * @return the stored request, waiting for artifacts or ready
   */
  public static Request created(RequestId id, NewRequest request, Instant now) {
    Builder b = builder().id(id).kind(request.kind()).state(request.initialState())
        .tag(request.tag()).parentSha(request.parentSha()).pr(request.pr())
        .addAllBenchmarkGroups(request.benchmarkGroups()).createdAt(Checks.present(now, "submission instant"))
        .ciRun(request.ciRun());
    if (request.initialState() == RequestState.IN_PROGRESS) {
      b.startedAt(now); // a CI run starts at its submission
    }
    return b.build();
  }

  /**
   * This waiting try request with its artifacts attached.
   *
   * @param sha the head SHA, the new tag
   * @param parentSha the SHA it is compared with
   * @return the ready request
   * @throws IllegalStateException when the request is not waiting for artifacts (a store fault)
   */
  public Request withArtifacts(String sha, String parentSha) {
    expect(RequestState.WAITING_FOR_ARTIFACTS, "attach artifacts");
    return base(Checks.token(sha, "try SHA"), Checks.token(parentSha, "try parent SHA"))
        .state(RequestState.ARTIFACTS_READY).build();
  }

  /**
   * This ready request, started.
   *
   * @param now the start instant
   * @param parent the parent request whose jobs were backfilled, or null
   * @return the request in progress
   * @throws IllegalStateException when the request is not ready (a store fault)
   */
  public Request started(Instant now, @Nullable RequestId parent) {
    expect(RequestState.ARTIFACTS_READY, "start");
    Builder b = base(tag().orElse(null), parentSha().orElse(null))
        .state(RequestState.IN_PROGRESS).startedAt(now);
    if (parent != null) {
      b.parentRequest(parent);
    }
    return b.build();
  }

  /**
   * This request in progress, completed.
   *
   * @param outcome how it went
   * @param now the completion instant
   * @return the completed request
   * @throws IllegalStateException when the request is not in progress (a store fault)
   */
  public Request completed(Outcome outcome, Instant now) {
    expect(RequestState.IN_PROGRESS, "complete");
    return lifecycle(RequestState.COMPLETED).finishedAt(now).outcome(outcome).build();
  }

  /**
   * This open request, cancelled.
   *
   * @param reason why, e.g. {@code PR closed}
   * @param now the cancellation instant
   * @return the cancelled request
   * @throws IllegalStateException when the request is already terminal (a store fault)
   */
  public Request cancelled(String reason, Instant now) {
    if (state().isTerminal()) {
      throw new IllegalStateException("cannot cancel " + this + ": it is " + state().documentName());
    }
    return lifecycle(RequestState.CANCELLED).finishedAt(now).cancelReason(reason).build();
  }

  /**
   * This open CI run, cancelled because a newer run of its repository and concurrency group supersedes it: the
   * reason is rendered from the newer run ({@link CiRun#supersedingReason()}).
   *
   * @param newer the superseding request, a CI run
   * @param now the cancellation instant
   * @return the cancelled request
   * @throws IllegalStateException when the request is terminal or the newer one does not supersede it
   */
  public Request superseded(Request newer, Instant now) {
    CiRun run = ciRun().orElse(null);
    CiRun by = newer.ciRun().orElse(null);
    if (run == null || by == null || !by.supersedes(run)) {
      throw new IllegalStateException(label() + " is not superseded by " + newer.label());
    }
    return builder().from(cancelled(by.supersedingReason(), now)).supersededBy(newer.id()).build();
  }

  /**
   * This completed request, in progress again because an operator retried one of its jobs (or a job
   * backfilled to it): no finish instant, no outcome; its start instant and parent request are kept. It
   * completes again once its required jobs are all terminal.
   *
   * @return the request in progress
   * @throws IllegalStateException when the request is not completed (a store fault)
   */
  public Request reopened() {
    expect(RequestState.COMPLETED, "reopen");
    return lifecycle(RequestState.IN_PROGRESS).build();
  }

  private Builder lifecycle(RequestState state) {
    Builder b = base(tag().orElse(null), parentSha().orElse(null)).state(state)
        .startedAt(startedAt());
    return b.parentRequest(parentRequest());
  }

  private Builder base(@Nullable String tag, @Nullable String parentSha) {
    return builder().id(id()).kind(kind()).tag(Optional.ofNullable(tag))
        .parentSha(Optional.ofNullable(parentSha)).pr(pr()).addAllBenchmarkGroups(benchmarkGroups())
        .createdAt(createdAt()).ciRun(ciRun());
  }

  private void expect(RequestState state, String transition) {
    if (state() != state) {
      throw new IllegalStateException("cannot " + transition + " " + id() + " (" + label() + "): it is "
          + state().documentName() + ", expected " + state.documentName());
    }
  }

  /**
   * A new builder, for stores that rebuild a request from a row.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Request}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableRequest.Builder {
    Builder() {}
  }
}
