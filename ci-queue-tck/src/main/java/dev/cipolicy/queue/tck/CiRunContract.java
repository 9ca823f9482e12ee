package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.CiRunKey;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for CI run requests: created in progress with their jobs, attached by key, two runs of one
 * commit, outside the in-progress cap, never a backfill parent, superseded by a newer run of their concurrency
 * group, completed with an outcome and no comparison, job args kept exactly, bad input refused with nothing
 * written.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "CI runs" group.
 */
abstract class CiRunContract extends KitGroup {

  private static final String REPO = "acme/gpu-lib";

  CiRunContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  private static CiRun run(long runId, int attempt) {
    return CiRun.of(REPO, runId, attempt, "c0ffee", "pull_request").withPr(7).withCadence("regular")
        .withLabels(List.of("run-ci-gpu", "run-ci-e2e")).withWorkflow("GPU CI");
  }

  private static List<JobSpec> jobs() {
    return List.of(JobSpec.required("unit", "ci").withArgs("pytest tests/unit"),
        JobSpec.required("e2e", "ci").withArgs("pytest tests/e2e"));
  }

  private Request created(CiRun run, List<JobSpec> jobs) {
    SubmitResult result = queue.submitCiRun(run, jobs);
    assertThat(result.status()).isEqualTo(SubmitResult.Status.CREATED);
    return result.request();
  }

  @Test
  @DisplayName("a CI run is created in progress with its jobs queued, and found by its key")
  void createdInProgress() {
    clock.advance(Duration.ofSeconds(5));
    Request r = created(run(100, 1), jobs());
    assertThat(r.kind()).isEqualTo(RequestKind.CI_RUN);
    assertThat(r.state()).isEqualTo(RequestState.IN_PROGRESS);
    assertThat(r.startedAt()).contains(START.plusSeconds(5));
    assertThat(r.tag()).isEmpty();
    assertThat(r.parentRequest()).isEmpty();
    assertThat(r.ciRun()).contains(run(100, 1));
    assertThat(reload(r)).isEqualTo(r);
    assertThat(queue.ciRun(REPO, 100, 1)).contains(r);
    assertThat(queue.ciRun(REPO, 100, 2)).isEmpty();
    assertThat(store.ciRun(new CiRunKey("acme/other", 100, 1))).isEmpty();
    assertThat(store.inProgressRequests()).containsExactly(r);
    assertThat(store.jobs(r.id())).extracting(j -> j.spec().benchmarkGroup(), Job::state)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("unit", JobState.QUEUED),
            org.assertj.core.groups.Tuple.tuple("e2e", JobState.QUEUED));
  }

  @Test
  @DisplayName("the same repository, run id and attempt again attaches and changes nothing")
  void resubmitAttaches() {
    Request r = created(run(100, 1), jobs());
    SubmitResult again = queue.submitCiRun(run(100, 1).withCadence("nightly"),
        List.of(JobSpec.required("other", "ci")));
    assertThat(again.status()).isEqualTo(SubmitResult.Status.ATTACHED);
    assertThat(again.request()).isEqualTo(r);
    assertThat(store.jobs(r.id())).hasSize(2);
    assertThat(store.openRequests()).containsExactly(r);
    // A new attempt of the run is a new request.
    assertThat(queue.submitCiRun(run(100, 2), jobs()).status()).isEqualTo(SubmitResult.Status.CREATED);
  }

  @Test
  @DisplayName("two runs of one commit are two requests, and tags of other kinds stay unique")
  void sameCommitTwice() {
    Request first = created(run(100, 1), jobs());
    Request second = created(CiRun.of(REPO, 101, 1, "c0ffee", "schedule").withCadence("nightly"), jobs());
    assertThat(second.id()).isNotEqualTo(first.id());
    assertThat(submit(NewRequest.master("c0ffee", null)).tag()).contains("c0ffee");
    assertThat(queue.submit(NewRequest.release("c0ffee")).status()).isEqualTo(SubmitResult.Status.DUPLICATE_TAG);
    assertThat(store.openRequests()).hasSize(3);
  }

  @Test
  @DisplayName("a CI run is not capped by K: with K = 1 and a master in progress its jobs are claimable")
  void notCapped() {
    register("bench", "x86");
    register("gpu-0", "ci");
    Request master = running(NewRequest.master("m1", null));
    Request ci = created(run(100, 1), jobs());
    Claim claim = claimOne("gpu-0");
    assertThat(claim.job().requestId()).isEqualTo(ci.id());
    // The CI run does not take the master's place either: a ready master starts once the first completes.
    submit(NewRequest.master("m2", "m1"));
    assertThat(queue.tick().started()).isEmpty();
    completeAll("bench");
    TickResult tick = queue.tick();
    assertThat(tick.completed()).extracting(Request::id).containsExactly(master.id());
    assertThat(tick.started()).hasSize(1);
    assertThat(store.inProgressRequests()).hasSize(2);
  }

  @Test
  @DisplayName("a CI run is never a backfill parent: a master whose parent SHA is its commit adds no job to it")
  void neverABackfillParent() {
    assertThat(settings().backfill()).isTrue();
    Request ci = created(run(100, 1), jobs());
    // The benchmark site's master of the commit the CI run tests: its parent SHA is the run's commit, but a CI
    // run has no tag, so the start finds no parent (a nightly faked as a release took a PR's jobs this way).
    submit(NewRequest.master("beef", "c0ffee"));
    TickResult tick = queue.tick();
    assertThat(tick.started()).singleElement().satisfies(s -> {
      assertThat(s.backfill().status()).isEqualTo(Backfill.Status.PARENT_UNKNOWN);
      assertThat(s.backfill().created()).isEmpty();
      assertThat(s.request().orElseThrow().parentRequest()).isEmpty();
    });
    assertThat(store.jobs(ci.id())).extracting(j -> j.spec().benchmarkGroup()).containsExactly("unit", "e2e");
    assertThat(reload(ci)).isEqualTo(ci);
  }

  @Test
  @DisplayName("a newer run of the concurrency group cancels the older one's queued jobs and flags its leased one")
  void supersede() {
    register("gpu-0", "ci");
    Request older = created(run(100, 1).withConcurrencyGroup("ci-pr-7"), jobs());
    Request otherGroup = created(run(90, 1).withConcurrencyGroup("ci-main"), jobs());
    Request noGroup = created(run(80, 1), jobs());
    Claim leased = claimOne("gpu-0");
    assertThat(leased.job().requestId()).isEqualTo(older.id());
    clock.advance(Duration.ofSeconds(2));
    CiRun newerRun = run(100, 2).withConcurrencyGroup("ci-pr-7");
    SubmitResult result = queue.submitCiRun(newerRun, jobs());
    assertThat(result.status()).isEqualTo(SubmitResult.Status.CREATED);
    Request newer = result.request();
    Request cancelled = reload(older);
    assertThat(result.superseded()).containsExactly(cancelled);
    assertThat(cancelled.state()).isEqualTo(RequestState.CANCELLED);
    assertThat(cancelled.supersededBy()).contains(newer.id());
    assertThat(cancelled.cancelReason()).contains(newerRun.supersedingReason());
    assertThat(cancelled.cancelReason()).contains("superseded by acme/gpu-lib run 100 attempt 2 (concurrency"
        + " group ci-pr-7)");
    assertThat(cancelled.finishedAt()).contains(START.plusSeconds(2));
    List<Job> olderJobs = store.jobs(older.id());
    assertThat(olderJobs).filteredOn(j -> !j.id().equals(leased.job().id())).extracting(Job::state)
        .containsExactly(JobState.CANCELLED);
    assertThat(reload(leased.job()).cancelRequested()).isTrue();
    assertThat(queue.heartbeat(leased.lease()).status()).isEqualTo(LeaseStatus.CANCELLED);
    assertThat(reload(otherGroup).state()).isEqualTo(RequestState.IN_PROGRESS);
    assertThat(reload(noGroup).state()).isEqualTo(RequestState.IN_PROGRESS);
    assertThat(store.jobs(newer.id())).extracting(Job::state).containsOnly(JobState.QUEUED);
  }

  @Test
  @DisplayName("a run older than an open run of its group is created cancelled, without jobs, and attaches after")
  void olderSubmissionIsCreatedSuperseded() {
    Request newer = created(run(200, 1).withConcurrencyGroup("g"), jobs());
    SubmitResult late = queue.submitCiRun(run(199, 3).withConcurrencyGroup("g"), jobs());
    assertThat(late.status()).isEqualTo(SubmitResult.Status.SUPERSEDED);
    assertThat(late.request().state()).isEqualTo(RequestState.CANCELLED);
    assertThat(late.request().supersededBy()).contains(newer.id());
    assertThat(late.superseded()).isEmpty();
    assertThat(store.jobs(late.request().id())).isEmpty();
    assertThat(reload(newer).state()).isEqualTo(RequestState.IN_PROGRESS);
    assertThat(queue.submitCiRun(run(199, 3).withConcurrencyGroup("g"), jobs()).status())
        .isEqualTo(SubmitResult.Status.ATTACHED);
    assertThat(store.openRequests()).containsExactly(reload(newer));
  }

  @Test
  @DisplayName("a CI run completes with its outcome and no comparison event when its required jobs are terminal")
  void completion() {
    register("gpu-0", "ci");
    Request mixed = created(run(100, 1), List.of(JobSpec.required("a", "ci"), JobSpec.required("b", "ci"),
        JobSpec.optionalJob("c", "ci")));
    Request good = created(run(101, 1), List.of(JobSpec.required("a", "ci")));
    queue.complete(claimOne("gpu-0").lease());
    assertThat(queue.tick().completed()).isEmpty();
    queue.fail(claimOne("gpu-0").lease(), Failure.permanent("exit 1"));
    // The optional job c is still queued and does not block.
    TickResult tick = queue.tick();
    assertThat(tick.completed()).extracting(Request::id).containsExactly(mixed.id());
    claimOne("gpu-0"); // c
    queue.complete(claimOne("gpu-0").lease());
    tick = queue.tick();
    assertThat(tick.completed()).extracting(Request::id).containsExactly(good.id());
    assertThat(tick.events()).isEmpty();
    assertThat(reload(mixed).outcome()).contains(Outcome.PARTIAL_FAILURE);
    assertThat(reload(good).outcome()).contains(Outcome.SUCCESS);
    assertThat(store.inProgressRequests()).isEmpty();
  }

  @Test
  @DisplayName("job args are kept exactly, up to 64 KiB, and come with the claim")
  void argsRoundTrip() {
    register("gpu-0", "ci");
    String text = "{\"cmd\": \"pytest -k 'gpu and not slow'\",\n \"env\": {\"EMOJI\": \"\uD83D\uDE80\"}}\t";
    String largest = "x".repeat(JobSpec.MAX_ARGS_BYTES);
    Request r = created(run(100, 1), List.of(JobSpec.required("a", "ci").withArgs(text),
        JobSpec.required("b", "ci").withArgs(largest), JobSpec.required("c", "ci")));
    List<Job> stored = store.jobs(r.id());
    assertThat(stored).extracting(j -> j.spec().args().orElse(null)).containsExactly(text, largest, null);
    Claim claim = claimOne("gpu-0");
    assertThat(claim.job().spec().args()).contains(text);
    assertThat(claim.args()).contains(text);
    assertThat(store.job(claim.job().id()).orElseThrow().spec().args()).contains(text);
  }

  @Test
  @DisplayName("a run without its key fields, or args too large, is refused with nothing written")
  void badInput() {
    assertThatThrownBy(() -> CiRun.of("no-slash", 1, 1, "c0ffee", "push"))
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("owner/name");
    assertThatThrownBy(() -> CiRun.of(REPO, 0, 1, "c0ffee", "push"))
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("run id");
    assertThatThrownBy(() -> CiRun.of(REPO, 1, 0, "c0ffee", "push"))
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("attempt");
    assertThatThrownBy(() -> CiRun.of(REPO, 1, 1, null, "push"))
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("commit SHA");
    assertThatThrownBy(() -> queue.submitCiRun(null, jobs()))
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("CI run");
    assertThatThrownBy(() -> store.submit(NewRequest.builder().kind(RequestKind.CI_RUN).build()))
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("needs its CI run");
    assertThatThrownBy(() -> JobSpec.required("a", "ci").withArgs("x".repeat(JobSpec.MAX_ARGS_BYTES + 1)))
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("expected at most 65536");
    // 32,768 two-byte characters are 65,536 bytes; one more is too many.
    assertThatThrownBy(() -> JobSpec.required("a", "ci").withArgs("\u00e9".repeat(JobSpec.MAX_ARGS_BYTES / 2 + 1)))
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("bytes in UTF-8");
    assertThatThrownBy(() -> JobSpec.required("a", "ci").withArgs("nul\u0000"))
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("NUL");
    assertThatThrownBy(() -> JobSpec.required("a", "ci").withArgs("half\uD800"))
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("unpaired surrogate");
    assertThatThrownBy(() -> queue.submitCiRun(run(1, 1), List.of(JobSpec.required("a", "ci"),
        JobSpec.required("a", "ci")))).isExactlyInstanceOf(InvalidQueueInputException.class)
        .hasMessageContaining("twice");
    assertThatThrownBy(() -> NewRequest.builder().kind(RequestKind.MASTER).tag("m1").ciRun(run(1, 1)).build())
        .isExactlyInstanceOf(InvalidQueueInputException.class).hasMessageContaining("carries no CI run");
    assertThat(store.openRequests()).isEmpty();
    assertThat(store.ciRun(new CiRunKey(REPO, 1, 1))).isEmpty();
  }
}
