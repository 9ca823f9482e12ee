package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for the site tick: starting requests, the in-progress cap the store enforces, and
 * backfill to the parent. Which jobs a started request gets is the "Fan-out" group ({@link FanOutContract}).
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Site tick" group.
 */
abstract class SiteTickContract extends KitGroup {

  SiteTickContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("with K = 1 a tick starts nothing while a request is in progress")
  void capOfOne() {
    running(NewRequest.master("m1", null));
    submit(NewRequest.master("m2", "m1"));
    TickResult tick = queue.tick();
    assertThat(tick.started()).isEmpty();
    assertThat(tick.explanation().sentence()).contains("1 of at most 1 requests in progress");
    assertThat(inProgress()).isEqualTo(1);
  }

  @Test
  @DisplayName("with K = 2 two requests run at once, never three")
  void capOfTwo() {
    JobQueue two = JobQueue.of(store, QueueSettings.builder().from(settings()).maxInProgress(2).build());
    for (int i = 1; i <= 4; i++) {
      submit(NewRequest.master("m" + i, null).withPr(i));
    }
    assertThat(two.tick().started()).hasSize(2);
    assertThat(two.tick().started()).isEmpty();
    assertThat(inProgress()).isEqualTo(2);
  }

  @Test
  @DisplayName("the store enforces the cap: a start beyond K changes nothing and says so")
  void storeEnforcesCap() {
    Request a = submit(NewRequest.master("a", null));
    Request b = submit(NewRequest.master("b", null).withPr(2));
    List<JobSpec> jobs = List.of(JobSpec.required("g", "x86"));
    assertThat(store.startRequest(StartCommand.builder().requestId(a.id()).jobs(jobs).build()).status())
        .isEqualTo(StartResult.Status.STARTED);
    StartResult refused = store.startRequest(StartCommand.builder().requestId(b.id()).jobs(jobs).build());
    assertThat(refused.status()).isEqualTo(StartResult.Status.CAP_REACHED);
    assertThat(refused.inProgress()).isEqualTo(1);
    assertThat(reload(b).state()).isEqualTo(RequestState.ARTIFACTS_READY);
    assertThat(store.jobs(b.id())).isEmpty();
  }

  @Test
  @DisplayName("two sites ticking the same store never exceed K")
  void twoSites() {
    JobQueue other = JobQueue.of(store, settings());
    submit(NewRequest.master("m1", null));
    submit(NewRequest.master("m2", null).withPr(2));
    TickResult first = queue.tick();
    TickResult second = other.tick();
    assertThat(first.started().size() + second.started().size()).isEqualTo(1);
    assertThat(inProgress()).isEqualTo(1);
  }

  @Test
  @DisplayName("starting a request that is not ready, or unknown, changes nothing and says so")
  void startNotReady() {
    Request waiting = submit(NewRequest.tryAwaitingArtifacts(3));
    StartCommand command = StartCommand.builder().requestId(waiting.id()).jobs(List.of(JobSpec.required("g", "x86")))
        .backfillParent(true).build();
    assertThat(store.startRequest(command).status()).isEqualTo(StartResult.Status.NOT_READY);
    assertThat(store.jobs(waiting.id())).isEmpty();
    Request started = running(NewRequest.master("m1", null));
    assertThat(store.startRequest(StartCommand.builder().requestId(started.id()).maxInProgress(5).build()).status())
        .isEqualTo(StartResult.Status.NOT_READY);
    assertThat(store.startRequest(StartCommand.builder().requestId(RequestId.of(999)).maxInProgress(5).build())
        .status())
        .isEqualTo(StartResult.Status.NOT_FOUND);
  }

  @Test
  @DisplayName("a request with no jobs completes in the tick that starts it")
  void noJobs() {
    JobQueue bare = JobQueue.of(store, QueueSettings.withoutJobs());
    Request r = submit(NewRequest.master("m1", null));
    TickResult tick = bare.tick();
    assertThat(tick.started()).hasSize(1);
    assertThat(tick.completed()).extracting(Request::id).containsExactly(r.id());
    assertThat(reload(r).state()).isEqualTo(RequestState.COMPLETED);
    assertThat(reload(r).outcome()).contains(Outcome.SUCCESS);
    assertThat(tick.events()).hasSize(1);
  }

  @Test
  @DisplayName("backfill: jobs the completed parent has are no-ops, new ones run without changing its status")
  void backfill() {
    register("c1", "x86");
    register("a1", "arm");
    Request parent = running(NewRequest.master("m1", null));
    completeAll("c1");
    completeAll("a1");
    assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(parent.id());
    Request completedParent = reload(parent);

    Request child = submit(NewRequest.tryWithArtifacts(5, "t1", "m1").withBenchmarkGroups("compile", "extra"));
    StartResult start = queue.tick().started().get(0);
    assertThat(start.backfill().status()).isEqualTo(Backfill.Status.ENQUEUED);
    assertThat(start.backfill().parent()).contains(parent.id());
    assertThat(start.backfill().existing()).isEqualTo(2);
    assertThat(start.backfill().created()).extracting(Job::spec)
        .containsExactly(JobSpec.required("extra", "x86"), JobSpec.optionalJob("extra", "arm"));
    assertThat(start.backfill().created()).allSatisfy(j -> assertThat(j.requestId()).isEqualTo(parent.id()));
    assertThat(start.request().orElseThrow().parentRequest()).contains(parent.id());
    assertThat(reload(parent)).isEqualTo(completedParent);

    completeAll("c1");
    assertThat(reload(parent)).isEqualTo(completedParent);
    assertThat(store.jobs(parent.id())).hasSize(6);
    assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(child.id());
  }

  @Test
  @DisplayName("backfill to an unknown or unstarted parent is reported, not an error")
  void backfillParentMissing() {
    submit(NewRequest.master("m1", "unknown"));
    assertThat(queue.tick().started().get(0).backfill().status()).isEqualTo(Backfill.Status.PARENT_UNKNOWN);
    Request r = submit(NewRequest.release("1.0"));
    Request ready = submit(NewRequest.master("m3", null).withPr(50));
    Request t = submit(NewRequest.tryWithArtifacts(6, "t6", "m3"));
    StartCommand command = StartCommand.builder().requestId(t.id()).jobs(List.of(JobSpec.required("g", "x86")))
        .backfillParent(true).maxInProgress(9).build();
    StartResult start = store.startRequest(command);
    assertThat(start.backfill().status()).isEqualTo(Backfill.Status.PARENT_NOT_STARTED);
    assertThat(start.backfill().parent()).contains(ready.id());
    assertThat(start.request().orElseThrow().parentRequest()).isEmpty();
    StartResult release = store.startRequest(StartCommand.builder().requestId(r.id()).backfillParent(true)
        .maxInProgress(9).build());
    assertThat(release.backfill().status()).isEqualTo(Backfill.Status.NO_PARENT);
  }

  @Test
  @DisplayName("backfill to a cancelled parent is reported and creates nothing")
  void backfillCancelledParent() {
    Request parent = submit(NewRequest.master("m1", null));
    queue.cancel(parent.id(), "reverted");
    submit(NewRequest.master("m2", "m1"));
    StartResult start = queue.tick().started().get(0);
    assertThat(start.backfill().status()).isEqualTo(Backfill.Status.PARENT_CANCELLED);
    assertThat(store.jobs(parent.id())).isEmpty();
  }
}
