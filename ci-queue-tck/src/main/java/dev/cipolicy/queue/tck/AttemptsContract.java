package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.JobAttempt.Outcome;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.CompleteAndClaimResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.PurgeResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for the record of a job's attempts ({@code QueueStore.attempts}): every claim starts one
 * (collector, devices, start), and every way a lease ends completes it (end, outcome, error) in the same step,
 * through the fast paths (completion, batch completion, complete-and-claim) as through the others (failure,
 * release, expiry, cancellation); purging a request deletes its jobs' attempts.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Attempts" group.
 */
abstract class AttemptsContract extends GpuKitGroup {

  AttemptsContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  private List<JobAttempt> attempts(Job job) {
    return store.attempts(job.id());
  }

  private static JobAttempt running(Job job, int attempt, String collector, Instant start) {
    return JobAttempt.builder().jobId(job.id()).attempt(attempt).collector(collector).startedAt(start).build();
  }

  private static JobAttempt ended(JobAttempt started, Outcome outcome, Instant end, @Nullable String error) {
    return started.ended(new JobAttempt.End(started.attempt(), outcome, end, Optional.ofNullable(error)));
  }

  @Test
  @DisplayName("a claim records a running attempt; a completion ends it as succeeded at the completion's instant")
  void claimedThenCompleted() {
    register("c1", "x86");
    running(NewRequest.master("a1", null));
    Instant claimedAt = clock.advance(Duration.ofSeconds(3));
    Claim claim = claimOne("c1");
    Job job = claim.job();
    JobAttempt first = running(job, 1, "c1", claimedAt);
    assertThat(attempts(job)).containsExactly(first);
    assertThat(attempts(job).get(0).running()).isTrue();
    clock.advance(Duration.ofSeconds(10));
    assertThat(queue.heartbeat(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(attempts(job)).containsExactly(first);
    Instant doneAt = clock.advance(Duration.ofSeconds(5));
    assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(attempts(job)).containsExactly(ended(first, Outcome.SUCCEEDED, doneAt, null));
    assertThatThrownBy(() -> attempts(job).add(first)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  @DisplayName("a transient failure, a re-claim and a permanent failure are two attempts with their errors")
  void transientThenPermanent() {
    register("c1", "x86");
    register("c2", "x86");
    running(NewRequest.master("a1", null));
    Instant t1 = clock.instant();
    Claim first = claimOne("c1");
    Instant failedAt = clock.advance(Duration.ofSeconds(7));
    assertThat(queue.fail(first.lease(), Failure.transientFailure("disk full on /tmp")).status())
        .isEqualTo(LeaseStatus.OK);
    Job job = first.job();
    JobAttempt one = ended(running(job, 1, "c1", t1), Outcome.TRANSIENT_FAILURE, failedAt, "disk full on /tmp");
    assertThat(attempts(job)).containsExactly(one);
    Instant t2 = clock.advance(Duration.ofSeconds(1));
    Claim second = claimOne("c1");
    assertThat(second.job().id()).isEqualTo(job.id());
    assertThat(attempts(job)).containsExactly(one, running(job, 2, "c1", t2));
    Instant t3 = clock.advance(Duration.ofSeconds(2));
    assertThat(queue.fail(second.lease(), Failure.permanent("exit code 3")).status()).isEqualTo(LeaseStatus.OK);
    assertThat(reload(job).state()).isEqualTo(JobState.FAILED);
    assertThat(attempts(job)).hasSize(2).first().isEqualTo(one);
    JobAttempt two = attempts(job).get(1);
    assertThat(two.outcome()).contains(Outcome.FAILED);
    assertThat(two.endedAt()).contains(t3);
    assertThat(two.error()).isEqualTo(reload(job).failure().map(f -> f.detail()));
    assertThat(two.error().orElseThrow()).contains("exit code 3");
  }

  @Test
  @DisplayName("a transient failure with the budget spent ends its attempt as a transient failure of a failed job")
  void transientBudgetExhausted() {
    register("c1", "x86");
    running(NewRequest.master("a1", null));
    Claim claim = claimOne("c1");
    Job job = claim.job();
    for (int i = 0; i <= settings().maxTransientRetries(); i++) {
      if (i > 0) {
        claim = claimOne("c1");
        assertThat(claim.job().id()).isEqualTo(job.id());
      }
      assertThat(queue.fail(claim.lease(), Failure.transientFailure("flaky " + i)).status())
          .isEqualTo(LeaseStatus.OK);
    }
    assertThat(reload(job).state()).isEqualTo(JobState.FAILED);
    List<JobAttempt> all = attempts(job);
    assertThat(all).extracting(JobAttempt::attempt).containsExactly(1, 2, 3);
    assertThat(all).extracting(a -> a.outcome().orElseThrow()).containsOnly(Outcome.TRANSIENT_FAILURE);
    assertThat(all.get(0).error()).contains("flaky 0");
    assertThat(all.get(2).error()).isEqualTo(reload(job).failure().map(f -> f.detail()));
    assertThat(all.get(2).error().orElseThrow()).contains("flaky 2");
  }

  @Test
  @DisplayName("a release ends the attempt as released; an expired lease ends at its expiry, rescued or failed")
  void releasedAndExpired() {
    register("c1", "x86");
    running(NewRequest.master("a1", null));
    Claim first = claimOne("c1");
    Job job = first.job();
    Instant releasedAt = clock.advance(Duration.ofSeconds(4));
    assertThat(queue.release(first.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(attempts(job).get(0).outcome()).contains(Outcome.RELEASED);
    assertThat(attempts(job).get(0).endedAt()).contains(releasedAt);
    assertThat(attempts(job).get(0).error()).isEmpty();
    Claim second = claimOne("c1");
    assertThat(second.job().id()).isEqualTo(job.id());
    for (int i = 0; i <= settings().maxCrashRescues(); i++) {
      Instant expiry = reload(job).lease().orElseThrow().expiresAt();
      clock.advance(LEASE.plusSeconds(30));
      store.expireLeases(settings().maxCrashRescues());
      JobAttempt ended = attempts(job).get(attempts(job).size() - 1);
      assertThat(ended.outcome()).as("attempt %s", ended.attempt()).contains(Outcome.EXPIRED);
      assertThat(ended.endedAt()).as("attempt %s", ended.attempt()).contains(expiry);
      assertThat(ended.error()).isPresent();
      if (reload(job).state() == JobState.QUEUED) {
        assertThat(claimOne("c1").job().id()).isEqualTo(job.id());
      }
    }
    assertThat(reload(job).state()).isEqualTo(JobState.FAILED);
    List<JobAttempt> all = attempts(job);
    assertThat(all).extracting(JobAttempt::attempt).containsExactly(1, 2, 3, 4);
    assertThat(all.get(3).error()).isEqualTo(reload(job).failure().map(f -> f.detail()));
    assertThat(all).noneMatch(JobAttempt::running);
  }

  @Test
  @DisplayName("a cancelled request's running attempt ends as cancelled when its holder reports or its lease expires")
  void cancelled() {
    register("c1", "x86");
    Request r = running(NewRequest.master("a1", null));
    List<Claim> claims = queue.claim("c1", 2).claims();
    assertThat(claims).hasSize(2);
    assertThat(queue.cancel(r.id(), "superseded").status()).isNotNull();
    assertThat(attempts(claims.get(0).job()).get(0).running()).isTrue();
    Instant reportedAt = clock.advance(Duration.ofSeconds(2));
    assertThat(queue.heartbeat(claims.get(0).lease()).status()).isEqualTo(LeaseStatus.CANCELLED);
    JobAttempt reported = attempts(claims.get(0).job()).get(0);
    assertThat(reported.outcome()).contains(Outcome.CANCELLED);
    assertThat(reported.endedAt()).contains(reportedAt);
    clock.advance(LEASE.plusSeconds(1));
    store.expireLeases(settings().maxCrashRescues());
    JobAttempt expired = attempts(claims.get(1).job()).get(0);
    assertThat(expired.outcome()).contains(Outcome.CANCELLED);
    assertThat(expired.endedAt()).contains(claims.get(1).lease().expiresAt());
  }

  @Test
  @DisplayName("complete-and-claim and batch completion end their attempts and start the next")
  void fastPaths() {
    register("c1", "x86");
    running(NewRequest.master("a1", null));
    Instant t1 = clock.instant();
    Claim first = claimOne("c1");
    Instant t2 = clock.advance(Duration.ofSeconds(9));
    CompleteAndClaimResult got = store.completeAndClaim(LeaseRef.of(first.lease()), null,
        ClaimCommand.builder().collector("c1").leaseDuration(LEASE).limit(1).build());
    assertThat(got.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(got.claims()).hasSize(1);
    Claim second = got.claims().get(0);
    assertThat(attempts(first.job())).containsExactly(ended(running(first.job(), 1, "c1", t1), Outcome.SUCCEEDED,
        t2, null));
    assertThat(attempts(second.job())).containsExactly(running(second.job(), 1, "c1", t2));
    Instant t3 = clock.advance(Duration.ofSeconds(1));
    assertThat(queue.completeAll(List.of(second.lease())))
        .allSatisfy(res -> assertThat(res.status()).isEqualTo(LeaseStatus.OK));
    assertThat(attempts(second.job())).containsExactly(ended(running(second.job(), 1, "c1", t2),
        Outcome.SUCCEEDED, t3, null));
  }

  @Test
  @DisplayName("a GPU job's attempt records the devices its lease held")
  void devicesRecorded() {
    host("h0", Devices.count(4));
    List<Job> jobs = gpuJobs(2, 2);
    assertThat(claimDevices("h0", jobs.get(0))).containsExactly(0, 1);
    assertThat(claimDevices("h0", jobs.get(1))).containsExactly(2, 3);
    assertThat(attempts(jobs.get(1))).singleElement().satisfies(a -> {
      assertThat(a.collector()).isEqualTo("h0");
      assertThat(a.devices()).containsExactly(2, 3);
    });
    complete(jobs.get(1));
    assertThat(attempts(jobs.get(1)).get(0).devices()).containsExactly(2, 3);
    assertThat(attempts(jobs.get(1)).get(0).outcome()).contains(Outcome.SUCCEEDED);
  }

  @Test
  @DisplayName("an unknown or never claimed job has no attempts; purging a request deletes its jobs' attempts")
  void unknownAndPurged() {
    register("c1", "x86");
    assertThat(store.attempts(JobId.of(999_999))).isEmpty();
    Request r = running(NewRequest.master("p1", null));
    Job armJob = jobsOn(r, "arm").get(0);
    assertThat(attempts(armJob)).isEmpty();
    List<Job> ran = jobsOn(r, "x86");
    completeAll("c1");
    assertThat(attempts(ran.get(0))).hasSize(1);
    clock.advance(Duration.ofSeconds(1));
    assertThat(store.completeIfDone(r.id()).status()).isEqualTo(CompletionResult.Status.COMPLETED);
    assertThat(store.purge("p1").status()).isEqualTo(PurgeResult.Status.PURGED);
    for (Job j : ran) {
      assertThat(store.attempts(j.id())).isEmpty();
    }
  }
}
