package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for results: a result is kept in the same step that marks its job succeeded, only for
 * the live lease that completes it, never for a stale attempt, never overwritten, and read back per job and
 * per request after the request completed.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Results" group.
 */
abstract class ResultsContract extends KitGroup {

  ResultsContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  private static ResultPayload text(String text) {
    return ResultPayload.ofText(text);
  }

  @Test
  @DisplayName("a completion with a result keeps it with the attempt, the holder and the finish instant")
  void keptWithTheCompletion() {
    register("c1", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    Claim claim = claimOne("c1");
    clock.advance(Duration.ofSeconds(7));
    LeaseResult done = queue.complete(claim.lease(), text("{\"wall\": 12.5}"));
    assertThat(done.status()).isEqualTo(LeaseStatus.OK);
    Job job = done.job().orElseThrow();
    JobResult result = queue.result(job.id()).orElseThrow();
    assertThat(result.payload().text()).isEqualTo("{\"wall\": 12.5}");
    assertThat(result.jobId()).isEqualTo(job.id());
    assertThat(result.requestId()).isEqualTo(job.requestId());
    assertThat(result.attempt()).isEqualTo(claim.lease().attempt());
    assertThat(result.collector()).isEqualTo("c1");
    assertThat(result.storedAt()).isEqualTo(job.finishedAt().orElseThrow());
    assertThat(queue.results(job.requestId())).containsExactly(result);
  }

  @Test
  @DisplayName("a completion without a result keeps none")
  void noResult() {
    register("c1", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    Claim claim = claimOne("c1");
    assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(queue.result(claim.job().id())).isEmpty();
    assertThat(queue.results(claim.job().requestId())).isEmpty();
  }

  @Test
  @DisplayName("a zombie attempt (lease expired, job rescued and won by another) keeps no result and cannot"
      + " overwrite the winner's")
  void zombieCannotOverwrite() {
    register("c1", "x86");
    register("c2", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    Lease zombie = claimOne("c1").lease();
    clock.advance(LEASE.plusSeconds(1));
    queue.tick();
    Lease winner = claimOne("c2").lease();
    assertThat(winner.jobId()).isEqualTo(zombie.jobId());
    LeaseResult early = queue.complete(zombie, text("zombie before"));
    assertThat(early.status()).isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(queue.result(zombie.jobId())).isEmpty();
    assertThat(queue.complete(winner, text("winner")).status()).isEqualTo(LeaseStatus.OK);
    LeaseResult late = queue.complete(zombie, text("zombie after"));
    assertThat(late.status()).isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(queue.completeAll(List.of(zombie), List.of(text("zombie batch"))).get(0).status())
        .isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(queue.complete(winner, text("winner again")).status()).isEqualTo(LeaseStatus.STALE_LEASE);
    JobResult kept = queue.result(winner.jobId()).orElseThrow();
    assertThat(kept.payload().text()).isEqualTo("winner");
    assertThat(kept.attempt()).isEqualTo(winner.attempt());
    assertThat(kept.collector()).isEqualTo("c2");
  }

  @Test
  @DisplayName("a wrong token or attempt keeps no result")
  void staleFenceKeepsNothing() {
    register("c1", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    Lease lease = claimOne("c1").lease();
    assertThat(store.complete(new LeaseRef(lease.jobId(), lease.attempt(), lease.token() + 1), text("x"))
        .status()).isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(store.complete(new LeaseRef(lease.jobId(), lease.attempt() + 1, lease.token()), text("y"))
        .status()).isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(store.result(lease.jobId())).isEmpty();
    assertThat(reload(store.job(lease.jobId()).orElseThrow()).state()).isEqualTo(JobState.LEASED);
  }

  @Test
  @DisplayName("completing a job flagged for cancellation cancels it and keeps no result")
  void flaggedKeepsNothing() {
    register("c1", "x86");
    Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    Lease lease = claimOne("c1").lease();
    queue.cancel(r.id(), "PR closed");
    assertThat(queue.complete(lease, text("late")).status()).isEqualTo(LeaseStatus.CANCELLED);
    assertThat(queue.result(lease.jobId())).isEmpty();
  }

  @Test
  @DisplayName("results stay readable per job and per request after the request completed")
  void readableAfterCompletion() {
    register("c1", "x86");
    register("a1", "arm");
    Request r = running(NewRequest.master("m1", null));
    for (String collector : List.of("c1", "a1")) {
      for (int i = 0; i < 10; i++) {
        List<Claim> claims = queue.claim(collector).claims();
        if (claims.isEmpty()) {
          break;
        }
        Claim claim = claims.get(0);
        assertThat(queue.complete(claim.lease(), text(claim.job().spec().benchmarkGroup() + "@"
            + claim.job().spec().collectorTag())).status()).isEqualTo(LeaseStatus.OK);
      }
    }
    assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(r.id());
    assertThat(reload(r).state()).isEqualTo(RequestState.COMPLETED);
    List<JobResult> results = queue.results(r.id());
    assertThat(results).hasSize(4);
    assertThat(results).extracting(JobResult::jobId).isSorted();
    for (JobResult result : results) {
      Job job = store.job(result.jobId()).orElseThrow();
      assertThat(result.payload().text()).isEqualTo(job.spec().benchmarkGroup() + "@" + job.spec().collectorTag());
      assertThat(queue.result(job.id())).contains(result);
    }
  }

  @Test
  @DisplayName("a batch completion keeps each live item's result and none for a stale item")
  void batchWithResults() {
    register("c1", "x86");
    register("c2", "x86");
    running(NewRequest.master("m1", null));
    List<Claim> claims = queue.claim("c1", 2).claims();
    assertThat(claims).hasSize(2);
    Lease live = claims.get(0).lease();
    Lease stale = Lease.builder().from(claims.get(1).lease()).token(claims.get(1).lease().token() + 7)
        .collector("c1").devices(List.of()).build();
    List<LeaseResult> out = queue.completeAll(List.of(live, stale), List.of(text("first"), text("second")));
    assertThat(out).extracting(LeaseResult::status).containsExactly(LeaseStatus.OK, LeaseStatus.STALE_LEASE);
    assertThat(queue.result(live.jobId()).orElseThrow().payload().text()).isEqualTo("first");
    assertThat(queue.result(stale.jobId())).isEmpty();
    assertThatThrownBy(() -> queue.completeAll(List.of(claims.get(1).lease()), List.of()))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("expected one result per lease");
    assertThat(store.job(stale.jobId()).orElseThrow().state()).isEqualTo(JobState.LEASED);
  }

  @Test
  @DisplayName("payloads are opaque bytes up to 1 MiB, kept exactly; one byte more is refused before any store")
  void payloadBytesAndSize() {
    register("c1", "x86");
    running(NewRequest.master("m1", null));
    byte[] every = new byte[256];
    for (int i = 0; i < every.length; i++) {
      every[i] = (byte) i;
    }
    Lease first = claimOne("c1").lease();
    assertThat(queue.complete(first, ResultPayload.ofBytes(every)).status()).isEqualTo(LeaseStatus.OK);
    assertThat(queue.result(first.jobId()).orElseThrow().payload().bytes()).isEqualTo(every);
    byte[] max = new byte[ResultPayload.MAX_BYTES];
    Arrays.fill(max, (byte) 'x');
    Lease second = claimOne("c1").lease();
    assertThat(queue.complete(second, ResultPayload.ofBytes(max)).status()).isEqualTo(LeaseStatus.OK);
    assertThat(queue.result(second.jobId()).orElseThrow().payload().size()).isEqualTo(ResultPayload.MAX_BYTES);
    assertThatThrownBy(() -> ResultPayload.ofBytes(new byte[ResultPayload.MAX_BYTES + 1]))
        .isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("the result payload has 1048577 bytes; expected at most 1048576 bytes (1 MiB)");
  }
}
