package dev.cipolicy.queue.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidValueException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ValuesTest {
  private static final Instant T0 = Instant.parse("2026-01-05T09:00:00Z");

  @Test
  void factoriesFixTheInitialState() {
    assertThat(NewRequest.master("m", null).initialState()).isEqualTo(RequestState.ARTIFACTS_READY);
    assertThat(NewRequest.release("1.0").initialState()).isEqualTo(RequestState.ARTIFACTS_READY);
    assertThat(NewRequest.tryAwaitingArtifacts(3).initialState()).isEqualTo(RequestState.WAITING_FOR_ARTIFACTS);
    assertThat(NewRequest.tryWithArtifacts(3, "t", "m").initialState()).isEqualTo(RequestState.ARTIFACTS_READY);
  }

  @Test
  void aBuilderCannotMakeAnUnreachableRequest() {
    assertThatThrownBy(() -> Request.builder().id(RequestId.of(1)).kind(RequestKind.MASTER)
        .state(RequestState.WAITING_FOR_ARTIFACTS).tag("m").createdAt(T0).build())
        .isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("request 1 (master, waiting_for_artifacts): only a try request without a tag waits for"
            + " artifacts");
    assertThatThrownBy(() -> Request.builder().id(RequestId.of(2)).kind(RequestKind.MASTER)
        .state(RequestState.COMPLETED).tag("m").createdAt(T0).startedAt(T0).finishedAt(T0).build())
        .hasMessage("request 2 (master, completed): has an outcome exactly when completed");
    assertThatThrownBy(() -> Request.builder().id(RequestId.of(3)).kind(RequestKind.TRY).pr(1)
        .state(RequestState.ARTIFACTS_READY).createdAt(T0).build())
        .hasMessageContaining("needs a tag unless it is a try request that never got its artifacts");
    assertThatThrownBy(() -> Request.builder().kind(RequestKind.TRY).build())
        .isInstanceOf(InvalidValueException.class)
        .hasMessage("Request: required fields 'id', 'state', 'createdAt' are not set");
  }

  @Test
  void requestTransitionsFollowTheLifecycle() {
    Request waiting = Request.created(RequestId.of(1), NewRequest.tryAwaitingArtifacts(9), T0);
    Request ready = waiting.withArtifacts("t", "m");
    Request started = ready.started(T0.plusSeconds(1), RequestId.of(7));
    Request done = started.completed(Outcome.PARTIAL_FAILURE, T0.plusSeconds(2));
    assertThat(done.state()).isEqualTo(RequestState.COMPLETED);
    assertThat(done.parentRequest()).contains(RequestId.of(7));
    assertThat(done.label()).isEqualTo("try #9 t");
    assertThatThrownBy(() -> done.cancelled("x", T0)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> waiting.started(T0, null)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("it is waiting_for_artifacts, expected artifacts_ready");
  }

  @Test
  void jobTransitionsKeepCountersAndAffinity() {
    Job queued = Job.created(JobId.of(4), RequestId.of(1), JobSpec.required("g", "x"), T0);
    Lease lease = queued.nextLease(11, T0.plusSeconds(60), "c1");
    Job leased = queued.claimed(lease);
    assertThat(leased.attempt()).isEqualTo(1);
    assertThat(leased.affinity()).contains("c1");
    Job retried = leased.retriedAfterTransientFailure("net");
    assertThat(retried.transientRetries()).isEqualTo(1);
    assertThat(retried.affinity()).contains("c1");
    Job again = retried.claimed(retried.nextLease(12, T0.plusSeconds(120), "c2"));
    Job rescued = again.rescued();
    assertThat(rescued.crashRescues()).isEqualTo(1);
    assertThat(rescued.affinity()).contains("c2");
    assertThat(rescued.claimed(rescued.nextLease(13, T0, "c1")).released().affinity()).isEmpty();
    assertThatThrownBy(() -> queued.claimed(lease.renewedUntil(T0).renewedUntil(T0)).claimed(lease))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> queued.succeeded(T0)).isInstanceOf(IllegalStateException.class)
        .hasMessage("cannot complete job 4: it is queued, expected leased");
  }

  @Test
  void outcomeIsNeverASilentSuccess() {
    assertThat(Outcome.of(3, 0, 0)).isEqualTo(Outcome.SUCCESS);
    assertThat(Outcome.of(0, 0, 0)).isEqualTo(Outcome.SUCCESS);
    assertThat(Outcome.of(3, 0, 1)).isEqualTo(Outcome.PARTIAL_FAILURE);
    assertThat(Outcome.of(2, 1, 1)).isEqualTo(Outcome.PARTIAL_FAILURE);
    assertThat(Outcome.of(0, 2, 2)).isEqualTo(Outcome.FAILURE);
  }

  @Test
  void leaseLivenessIsExclusiveOfTheExpiry() {
    Lease lease = Lease.builder().jobId(JobId.of(1)).attempt(1).token(5).expiresAt(T0).collector("c").build();
    assertThat(lease.isLiveAt(T0.minusMillis(1))).isTrue();
    assertThat(lease.isLiveAt(T0)).isFalse();
    assertThat(lease.fences(JobId.of(1), 1, 5)).isTrue();
    assertThat(lease.fences(JobId.of(1), 2, 5)).isFalse();
    assertThatThrownBy(() -> Lease.builder().from(lease).attempt(0).build()).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("lease attempt is 0; expected at least 1");
  }
}
