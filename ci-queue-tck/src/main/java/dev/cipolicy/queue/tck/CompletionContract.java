package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.ComparisonEvent;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CompletionResult;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for the completion of requests: required and optional jobs, outcomes, the parent's
 * backfilled jobs, comparison events, completion once.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Completion" group.
 */
abstract class CompletionContract extends KitGroup {

  CompletionContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void registerCollectors() {
    register("c1", "x86");
    register("a1", "arm");
  }

  @Test
  @DisplayName("a request completes when its required jobs are terminal; optional jobs never block")
  void requiredOnly() {
    Request r = running(NewRequest.master("m1", null));
    Claim first = claimOne("c1");
    queue.complete(first.lease());
    assertThat(store.completeIfDone(r.id()).pendingJobs()).isEqualTo(1);
    assertThat(queue.tick().completed()).isEmpty();
    completeAll("c1");
    clock.advance(Duration.ofMinutes(2));
    TickResult tick = queue.tick();
    assertThat(tick.completed()).extracting(Request::id).containsExactly(r.id());
    Request done = reload(r);
    assertThat(done.state()).isEqualTo(RequestState.COMPLETED);
    assertThat(done.outcome()).contains(Outcome.SUCCESS);
    assertThat(done.finishedAt()).contains(START.plus(Duration.ofMinutes(2)));
    assertThat(jobsOn(r, "arm")).allSatisfy(j -> assertThat(j.state()).isEqualTo(JobState.QUEUED));
  }

  @Test
  @DisplayName("the outcome is partial failure when some jobs failed and failure when no required job succeeded")
  void outcomes() {
    Request partial = running(NewRequest.master("m1", null));
    queue.fail(claimOne("c1").lease(), Failure.permanent("boom"));
    completeAll("c1");
    assertThat(queue.tick().completed().get(0).outcome()).contains(Outcome.PARTIAL_FAILURE);
    assertThat(reload(partial).outcome()).contains(Outcome.PARTIAL_FAILURE);

    running(NewRequest.master("m2", "m1"));
    for (int i = 0; i < 2; i++) {
      queue.fail(claimOne("c1").lease(), Failure.permanent("boom " + i));
    }
    assertThat(queue.tick().completed().get(0).outcome()).contains(Outcome.FAILURE);
  }

  @Test
  @DisplayName("a failed optional job makes the outcome a partial failure, never a silent success")
  void optionalFailure() {
    running(NewRequest.master("m1", null));
    queue.fail(claimOne("a1").lease(), Failure.permanent("arm broke"));
    completeAll("c1");
    assertThat(queue.tick().completed().get(0).outcome()).contains(Outcome.PARTIAL_FAILURE);
  }

  @Test
  @DisplayName("a request waits for the required jobs backfilled to its parent")
  void waitsForParent() {
    Request parent = running(NewRequest.master("m1", null).withBenchmarkGroups("a"));
    completeAll("c1");
    queue.tick();
    assertThat(reload(parent).state()).isEqualTo(RequestState.COMPLETED);
    Request child = submit(NewRequest.master("m2", "m1").withBenchmarkGroups("a", "b"));
    queue.tick();
    ClaimResult claims = queue.claim("c1", 1);
    Claim own = claims.claims().get(0);
    assertThat(own.job().requestId()).isEqualTo(child.id());
    queue.complete(own.lease());
    queue.complete(claimOne("c1").lease());
    CompletionResult pending = store.completeIfDone(child.id());
    assertThat(pending.status()).isEqualTo(CompletionResult.Status.NOT_DONE);
    assertThat(pending.pendingJobs()).isEqualTo(1);
    completeAll("c1");
    assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(child.id());
  }

  @Test
  @DisplayName("master and try completions emit one comparison event; releases emit none")
  void events() {
    JobQueue bare = JobQueue.of(store, QueueSettings.withoutJobs());
    Request release = submit(NewRequest.release("1.0"));
    TickResult first = bare.tick();
    assertThat(first.completed()).extracting(Request::id).containsExactly(release.id());
    assertThat(first.events()).isEmpty();
    Request t = submit(NewRequest.tryWithArtifacts(42, "t1", "m0"));
    TickResult second = bare.tick();
    assertThat(second.events()).containsExactly(new ComparisonEvent(t.id(), RequestKind.TRY, "t1",
        Optional.of("m0"), t.pr(), Outcome.SUCCESS, START));
  }

  @Test
  @DisplayName("completion happens once: another site sees the request already completed")
  void once() {
    Request r = running(NewRequest.master("m1", null));
    completeAll("c1");
    JobQueue other = JobQueue.of(store, settings());
    int completions = queue.tick().completed().size() + other.tick().completed().size();
    assertThat(completions).isEqualTo(1);
    assertThat(store.completeIfDone(r.id()).status())
        .isEqualTo(CompletionResult.Status.NOT_IN_PROGRESS);
    assertThat(store.completeIfDone(RequestId.of(999)).status())
        .isEqualTo(CompletionResult.Status.NOT_FOUND);
  }

  @Test
  @DisplayName("a completed request is absorbing: late results of its jobs do not change it")
  void absorbing() {
    Request r = running(NewRequest.master("m1", null));
    completeAll("c1");
    queue.tick();
    Request done = reload(r);
    completeAll("a1");
    assertThat(reload(r)).isEqualTo(done);
    assertThat(queue.cancel(r.id(), "too late").status()).isEqualTo(CancelResult.Status.ALREADY_FINISHED);
    assertThat(reload(r)).isEqualTo(done);
  }
}
