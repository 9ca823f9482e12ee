package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for completing several leases in one call: one result per item, each what completing it
 * alone would give.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Batch completion" group.
 */
abstract class BatchCompletionContract extends KitGroup {

  /** An engine with room for two requests in progress, so that one of them can be cancelled. */
  private JobQueue two;

  BatchCompletionContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void twoInProgress() {
    two = JobQueue.of(store, QueueSettings.builder().from(settings()).maxInProgress(2).build());
  }

  /** A job's state with its request named by tag (ids and tokens are the store's own). */
  private String render(LeaseResult result) {
    return QueueModelCheck.render(result, id -> store.request(id).orElseThrow().label());
  }

  private String renderJobs(Request... requests) {
    StringBuilder sb = new StringBuilder();
    for (Request r : requests) {
      store.jobs(r.id()).forEach(j -> sb.append(QueueModelCheck.render(j, id -> store.request(id).orElseThrow()
          .label())).append('\n'));
    }
    return sb.toString();
  }

  /**
   * Builds, on the current store, two requests in progress with leases of every kind, and returns the
   * batch in this order: live, expired (and flagged), flagged for cancellation, wrong token, already
   * completed, live, unknown job.
   */
  private List<Lease> mixedBatch() {
    register("c1", "x86");
    Request m1 = submit(NewRequest.master("m1", null).withBenchmarkGroups("a", "b"));
    submit(NewRequest.master("m2", null).withBenchmarkGroups("c", "d", "e", "f"));
    assertThat(two.tick().started()).hasSize(2);
    Lease expiring = two.claim("c1", 1).claims().get(0).lease();
    clock.advance(Duration.ofSeconds(40));
    List<Claim> claims = two.claim("c1", 5).claims();
    assertThat(claims).hasSize(5);
    assertThat(claims.get(0).job().requestId()).isEqualTo(m1.id());
    clock.advance(Duration.ofSeconds(30));
    assertThat(two.cancel(m1.id(), "PR closed").status()).isEqualTo(CancelResult.Status.CANCELLED);
    Lease flagged = claims.get(0).lease();
    Lease live = claims.get(1).lease();
    Lease wrong = claims.get(2).lease();
    Lease completed = claims.get(3).lease();
    assertThat(two.complete(completed).status()).isEqualTo(LeaseStatus.OK);
    Lease other = claims.get(4).lease();
    Lease unknown = Lease.builder().jobId(JobId.of(999_999)).attempt(1).token(1)
        .expiresAt(clock.instant().plus(LEASE)).collector("c1").build();
    Lease badToken = Lease.builder().from(wrong).token(wrong.token() + 1_000_003).devices(java.util.List.of())
        .build();
    clock.advance(Duration.ofSeconds(5));
    return List.of(live, expiring, flagged, badToken, completed, other, unknown);
  }

  @Test
  @DisplayName("live leases complete together: succeeded at the clock's time, stored, the holder's heartbeat"
      + " refreshed")
  void allLive() {
    register("c1", "x86");
    Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
    List<Claim> claims = queue.claim("c1", 3).claims();
    assertThat(claims).hasSize(3);
    clock.advance(Duration.ofSeconds(7));
    List<LeaseResult> results = queue.completeAll(claims.stream().map(Claim::lease).toList());
    assertThat(results).hasSize(3);
    for (int i = 0; i < 3; i++) {
      LeaseResult result = results.get(i);
      assertThat(result.status()).isEqualTo(LeaseStatus.OK);
      Job job = result.job().orElseThrow();
      assertThat(job.id()).as("result %s is for item %s", i, i).isEqualTo(claims.get(i).job().id());
      assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
      assertThat(job.finishedAt()).contains(START.plusSeconds(7));
      assertThat(job.lease()).isEmpty();
      assertThat(reload(job)).isEqualTo(job);
    }
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusSeconds(7));
    assertThat(jobsOn(r, "x86")).allMatch(j -> j.state() == JobState.SUCCEEDED);
  }

  @Test
  @DisplayName("the results follow the order of the batch, not the order of the job ids")
  void order() {
    register("c1", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
    List<Lease> leases = new java.util.ArrayList<>(queue.claim("c1", 3).claims().stream().map(Claim::lease)
        .toList());
    java.util.Collections.reverse(leases);
    List<LeaseResult> results = queue.completeAll(leases);
    assertThat(results).extracting(x -> x.job().orElseThrow().id()).containsExactlyElementsOf(
        leases.stream().map(Lease::jobId).toList());
  }

  @Test
  @DisplayName("a mixed batch: live, expired, flagged, wrong-token, completed and unknown items each get their"
      + " own result, and those results and the stored state equal completing them one by one")
  void mixedEqualsOneByOne() {
    List<Lease> batch = mixedBatch();
    Request m1 = store.requestByTag("m1").orElseThrow();
    Request m2 = store.requestByTag("m2").orElseThrow();
    Job expiredBefore = reload(store.job(batch.get(1).jobId()).orElseThrow());
    List<LeaseResult> together = two.completeAll(batch);
    assertThat(together).extracting(LeaseResult::status).containsExactly(LeaseStatus.OK,
        LeaseStatus.STALE_LEASE, LeaseStatus.CANCELLED, LeaseStatus.STALE_LEASE, LeaseStatus.STALE_LEASE,
        LeaseStatus.OK, LeaseStatus.NOT_FOUND);
    assertThat(together.get(1).job()).as("a stale item changes nothing").contains(expiredBefore);
    assertThat(reload(expiredBefore)).isEqualTo(expiredBefore);
    assertThat(together.get(2).job().orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    List<String> batchResults = together.stream().map(this::render).toList();
    String batchJobs = renderJobs(m1, m2);
    Instant batchHeartbeat = store.collector("c1").orElseThrow().lastHeartbeatAt();

    freshStore();
    twoInProgress();
    List<Lease> again = mixedBatch();
    List<String> oneByOne = again.stream().map(l -> render(two.complete(l))).toList();
    assertThat(batchResults).isEqualTo(oneByOne);
    assertThat(batchJobs).isEqualTo(renderJobs(store.requestByTag("m1").orElseThrow(),
        store.requestByTag("m2").orElseThrow()));
    assertThat(batchHeartbeat).isEqualTo(store.collector("c1").orElseThrow().lastHeartbeatAt());
  }

  @Test
  @DisplayName("completing a batch twice: every item of the second call is stale and changes nothing")
  void twice() {
    register("c1", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b"));
    List<Lease> leases = queue.claim("c1", 2).claims().stream().map(Claim::lease).toList();
    List<LeaseResult> first = queue.completeAll(leases);
    List<LeaseResult> second = queue.completeAll(leases);
    assertThat(second).extracting(LeaseResult::status).containsOnly(LeaseStatus.STALE_LEASE);
    assertThat(second).extracting(LeaseResult::job).isEqualTo(first.stream().map(LeaseResult::job).toList());
  }

  @Test
  @DisplayName("a request whose jobs were completed in batches completes on the next tick")
  void requestCompletes() {
    register("c1", "x86");
    register("c2", "arm");
    Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
    for (String collector : List.of("c1", "c2")) {
      List<Lease> leases = queue.claim(collector, 10).claims().stream().map(Claim::lease).toList();
      assertThat(queue.completeAll(leases)).extracting(LeaseResult::status).containsOnly(LeaseStatus.OK);
    }
    assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(r.id());
    assertThat(reload(r).outcome()).contains(Outcome.SUCCESS);
  }

  @Test
  @DisplayName("an empty batch does nothing")
  void empty() {
    assertThat(queue.completeAll(List.of())).isEmpty();
    assertThat(store.completeAll(List.of())).isEmpty();
  }

  @Test
  @DisplayName("a missing list, a missing item or a job listed twice is refused before anything changes")
  @SuppressWarnings("NullAway") // passes null on purpose: the refusal is what is tested
  void badBatch() {
    register("c1", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b"));
    List<Lease> leases = queue.claim("c1", 2).claims().stream().map(Claim::lease).toList();
    Lease first = leases.get(0);
    assertThatThrownBy(() -> queue.completeAll(null)).isInstanceOf(InvalidQueueInputException.class)
        .hasMessageContaining("the leases to complete are missing");
    assertThatThrownBy(() -> store.completeAll(null))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("the leases to complete are missing");
    assertThatThrownBy(() -> queue.completeAll(java.util.Arrays.asList(first, null)))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("lease 1 of 2 to complete is missing");
    List<Lease> twice = List.of(leases.get(1), first, first);
    assertThatThrownBy(() -> queue.completeAll(twice)).isInstanceOf(InvalidQueueInputException.class)
        .hasMessageContaining("list " + first.jobId() + " twice (items 1 and 2)");
    List<LeaseRef> refs = List.of(LeaseRef.of(first), LeaseRef.of(leases.get(1)),
        new LeaseRef(first.jobId(), first.attempt() + 1, first.token()));
    assertThatThrownBy(() -> store.completeAll(refs))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("twice (items 0 and 2)");
    for (Lease lease : leases) {
      assertThat(reload(store.job(lease.jobId()).orElseThrow()).state()).isEqualTo(JobState.LEASED);
    }
  }
}
