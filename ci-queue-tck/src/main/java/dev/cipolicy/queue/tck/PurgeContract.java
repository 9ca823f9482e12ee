package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.QueueOrder;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.PurgeResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for purging an artifact: a closed request goes with its jobs and results and nothing
 * else changes; an open request, a leased job and an unknown tag are reported and change nothing.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Purge" group.
 */
abstract class PurgeContract extends KitGroup {

  PurgeContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  /** Runs a master request to completion through the engine, each x86 job with a result. */
  private Request completedWithResults(String tag, String parent) {
    Request r = running(NewRequest.master(tag, parent));
    while (true) {
      List<Claim> claims = queue.claim("c1").claims();
      if (claims.isEmpty()) {
        break;
      }
      for (Claim claim : claims) {
        assertThat(queue.complete(claim.lease(), ResultPayload.ofText(tag + " " + claim.job().spec()
            .benchmarkGroup())).status()).isEqualTo(LeaseStatus.OK);
      }
    }
    clock.advance(Duration.ofSeconds(1));
    assertThat(store.completeIfDone(r.id()).status()).isEqualTo(CompletionResult.Status.COMPLETED);
    return reload(r);
  }

  @Test
  @DisplayName("a purged request is gone with its jobs and results; other requests are untouched")
  void purgedWithItsJobsAndResults() {
    register("c1", "x86");
    Request keep = completedWithResults("p1", "p0");
    Request gone = completedWithResults("p2", "p1");
    Request after = completedWithResults("p3", "p2");
    List<Job> goneJobs = store.jobs(gone.id());
    assertThat(goneJobs).hasSize(4); // two required x86 jobs with results, two optional arm jobs still queued
    assertThat(store.results(gone.id())).hasSize(2);
    List<Job> keptJobs = store.jobs(keep.id());
    var keptResults = store.results(keep.id());
    Request afterBefore = reload(after);
    List<Job> afterJobs = store.jobs(after.id());

    PurgeResult purged = store.purge("p2");
    assertThat(purged.status()).isEqualTo(PurgeResult.Status.PURGED);
    assertThat(purged.request()).contains(gone);
    assertThat(purged.jobsRemoved()).isEqualTo(4);
    assertThat(purged.resultsRemoved()).isEqualTo(2);

    assertThat(store.requestByTag("p2")).isEmpty();
    assertThat(store.request(gone.id())).isEmpty();
    assertThat(store.jobs(gone.id())).isEmpty();
    assertThat(store.results(gone.id())).isEmpty();
    for (Job job : goneJobs) {
      assertThat(store.job(job.id())).as("job %s", job.id()).isEmpty();
      assertThat(store.result(job.id())).as("result of %s", job.id()).isEmpty();
    }
    assertThat(store.knownTags(List.of("p1", "p2", "p3"))).containsExactlyInAnyOrder("p1", "p3");
    assertThat(store.history(10, null).entries()).extracting(e -> e.request().id())
        .containsExactly(after.id(), keep.id());

    assertThat(reload(keep)).isEqualTo(keep);
    assertThat(store.jobs(keep.id())).isEqualTo(keptJobs);
    assertThat(store.results(keep.id())).isEqualTo(keptResults);
    assertThat(reload(after)).isEqualTo(afterBefore);
    assertThat(store.jobs(after.id())).isEqualTo(afterJobs);
    // The purged request's queued optional jobs are no longer claimable.
    register("a1", "arm");
    List<Job> armJobs = new java.util.ArrayList<>();
    for (List<Claim> claims = queue.claim("a1").claims(); !claims.isEmpty(); claims = queue.claim("a1").claims()) {
      for (Claim claim : claims) {
        armJobs.add(claim.job());
        assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
      }
    }
    assertThat(armJobs).extracting(Job::requestId).hasSize(4).containsOnly(keep.id(), after.id());
  }

  @Test
  @DisplayName("purging an unknown tag is a reported no-op; a purged tag can be submitted again")
  void unknownTagAndResubmission() {
    register("c1", "x86");
    completedWithResults("q1", "q0");
    assertThat(store.purge("nobody")).isEqualTo(PurgeResult.unchanged(PurgeResult.Status.NOT_FOUND,
        java.util.Optional.empty()));
    assertThat(store.purge("q1").status()).isEqualTo(PurgeResult.Status.PURGED);
    assertThat(store.purge("q1").status()).isEqualTo(PurgeResult.Status.NOT_FOUND);
    SubmitResult again = queue.submit(NewRequest.master("q1", "q0"));
    assertThat(again.status()).isEqualTo(SubmitResult.Status.CREATED);
    assertThatThrownBy(() -> store.purge("has space")).isInstanceOf(InvalidQueueInputException.class);
  }

  @Test
  @DisplayName("an open request is refused (cancel it first); a cancelled one can then be purged")
  void openRequestsAreRefused() {
    register("c1", "x86");
    Request inProgress = running(NewRequest.master("o1", "o0"));
    Request ready = submit(NewRequest.master("o2", "o1"));
    Claim leased = claimOne("c1");
    List<Job> jobsBefore = store.jobs(inProgress.id());
    for (Request open : List.of(inProgress, ready)) {
      PurgeResult refused = store.purge(open.tag().orElseThrow());
      assertThat(refused.status()).isEqualTo(PurgeResult.Status.REQUEST_OPEN);
      assertThat(refused.request()).contains(reload(open));
      assertThat(refused.jobsRemoved()).isZero();
    }
    assertThat(store.jobs(inProgress.id())).isEqualTo(jobsBefore);
    assertThat(reload(inProgress).state()).isEqualTo(RequestState.IN_PROGRESS);

    // Cancelled, its leased job is flagged and still leased: refused until the lease ends.
    queue.cancel(inProgress.id(), "superseded");
    assertThat(store.purge("o1").status()).isEqualTo(PurgeResult.Status.JOB_LEASED);
    assertThat(store.request(inProgress.id())).isPresent();
    assertThat(queue.heartbeat(leased.lease()).status()).isEqualTo(LeaseStatus.CANCELLED);
    assertThat(store.job(leased.job().id()).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    PurgeResult purged = store.purge("o1");
    assertThat(purged.status()).isEqualTo(PurgeResult.Status.PURGED);
    assertThat(purged.jobsRemoved()).isEqualTo(jobsBefore.size());
    // The request that named it as its parent now has an unknown parent.
    assertThat(queue.order().placed()).extracting(QueueOrder.Placed::basis)
        .containsExactly(QueueOrder.Basis.PARENT_UNKNOWN);
    assertThat(reload(ready).state()).isEqualTo(RequestState.ARTIFACTS_READY);
  }

  @Test
  @DisplayName("a completed request with a leased optional job waits for it; its child completes as before")
  void leasedOptionalJob() {
    register("c1", "x86");
    register("a1", "arm");
    Request parent = running(NewRequest.master("l1", "l0"));
    completeAll("c1");
    Claim optional = claimOne("a1");
    assertThat(store.completeIfDone(parent.id()).status()).isEqualTo(CompletionResult.Status.COMPLETED);
    assertThat(store.purge("l1").status()).isEqualTo(PurgeResult.Status.JOB_LEASED);
    assertThat(queue.complete(optional.lease()).status()).isEqualTo(LeaseStatus.OK);
    Request child = running(NewRequest.master("l2", "l1"));
    assertThat(reload(child).parentRequest()).contains(parent.id());
    PurgeResult purged = store.purge("l1");
    assertThat(purged.status()).as("its other optional job is queued, not leased, and goes with it")
        .isEqualTo(PurgeResult.Status.PURGED);
    completeAll("c1");
    assertThat(store.completeIfDone(child.id()).status()).isEqualTo(CompletionResult.Status.COMPLETED);
    assertThat(reload(child).parentRequest()).contains(parent.id());
  }
}
