package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for bad input: the project's exception types with precise messages, and the same
 * refusals from every store for text a store cannot keep (NUL, unpaired surrogates).
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Bad input" group.
 */
abstract class BadInputContract extends KitGroup {

  BadInputContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  private void assertRejected(Runnable call, String message) {
    assertThatThrownBy(call::run).isInstanceOf(InvalidQueueInputException.class)
        .isInstanceOf(CiPolicyException.class).hasMessageContaining(message);
  }

  @Test
  @DisplayName("requests: a try without a PR, a SHA with white space, a release with a parent")
  void requests() {
    assertRejected(() -> NewRequest.tryWithArtifacts(0, "t", "m"), "a try request: PR number is 0");
    assertRejected(() -> NewRequest.master("has space", null), "a master request: tag 'has space' contains"
        + " white space");
    assertRejected(() -> NewRequest.builder().from(NewRequest.release("1.0")).parentSha("m1").build(),
        "a release request has no parent");
    assertRejected(() -> NewRequest.master("m1", "m1"), "tag 'm1' cannot be its own parent");
    assertRejected(() -> NewRequest.master("m1", null).withBenchmarkGroups("a", "a"), "lists a twice");
  }

  @Test
  @DisplayName("engine calls: blank collector names, a missing cancel reason, a zero claim limit")
  @SuppressWarnings("NullAway") // passes null on purpose: the refusal is what is tested
  void engine() {
    assertRejected(() -> queue.registerCollector(" ", "x86", true), "collector name ' ' contains white space");
    assertRejected(() -> queue.collectorHeartbeat(null), "collector name is missing");
    assertRejected(() -> queue.cancel(RequestId.of(1), ""), "needs a reason");
    assertRejected(() -> queue.claim("c1", 0), "claim limit is 0; expected at least 1");
    assertRejected(() -> queue.attachArtifacts(RequestId.of(1), "s", "s"), "cannot be its own parent SHA");
    assertRejected(() -> RequestId.of(0), "request id is 0; expected a positive number");
  }

  @Test
  @DisplayName("settings and commands: a zero cap, a negative lease, duplicate jobs")
  void settingsAndCommands() {
    assertRejected(() -> QueueSettings.builder().maxInProgress(0).build(), "maxInProgress is 0");
    assertRejected(() -> QueueSettings.builder().leaseDuration(Duration.ofSeconds(-1)).build(),
        "leaseDuration is PT-1S; expected a positive duration");
    assertRejected(() -> StartCommand.builder().requestId(RequestId.of(1))
        .jobs(List.of(JobSpec.required("g", "t"), JobSpec.optionalJob("g", "t"))).build(), "list g@t twice");
    assertRejected(() -> ClaimCommand.builder().collector("c1").leaseDuration(Duration.ZERO).collectorTimeout(LEASE)
        .maxCrashRescues(1).build(), "lease duration is PT0S");
  }

  /** Texts no store can keep: a NUL character, and unpaired high and low surrogates. */
  static final List<String> HOSTILE = List.of("a\u0000b", "\u0000", "tag\uD800", "\uDC00x", "x\uD800\uD800y",
      "\uDE00\uD83D");

  @Test
  @DisplayName("text a store cannot keep (NUL, unpaired surrogates) is refused the same way by every store, and"
      + " nothing is written")
  void unstorableText() {
    register("c1", "x86");
    Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    Claim claim = claimOne("c1");
    for (String hostile : HOSTILE) {
      assertRejected(() -> store.cancel(r.id(), hostile), "cancellation reason");
      assertRejected(() -> queue.cancel(r.id(), hostile), "cancellation reason");
      assertRejected(() -> Failure.permanent(hostile), "failure detail");
      assertRejected(() -> Failure.transientFailure(hostile), "failure detail");
      assertRejected(() -> ResultPayload.ofText(hostile), "result text");
      assertRejected(() -> NewRequest.master(hostile, null), "tag");
      assertRejected(() -> NewRequest.master("m9", hostile), "parent SHA");
      assertRejected(() -> NewRequest.master("m9", null).withBenchmarkGroups(hostile), "benchmark group");
      assertRejected(() -> store.registerCollector(hostile, "x86", true), "collector name");
      assertRejected(() -> store.registerCollector("c9", hostile, true), "collector tag");
      assertRejected(() -> queue.registerCollector(hostile, "x86", true), "collector name");
      assertRejected(() -> JobSpec.required(hostile, "x86"), "benchmark group");
      assertRejected(() -> store.collector(hostile), "collector name");
      assertRejected(() -> store.collectorHeartbeat(hostile), "collector name");
      assertRejected(() -> store.setCollectorActive(hostile, false), "collector name");
      assertRejected(() -> store.requestByTag(hostile), "tag");
      assertRejected(() -> store.attachArtifacts(r.id(), hostile, "m1"), "try SHA");
    }
    assertThat(store.collectors()).extracting(c -> c.name()).containsExactly("c1");
    assertThat(reload(r).state()).isEqualTo(RequestState.IN_PROGRESS);
    assertThat(reload(claim.job())).isEqualTo(claim.job());
  }

  @Test
  @DisplayName("the refusal names the character and where it is, on one line")
  void unstorableTextMessages() {
    assertRejected(() -> Failure.permanent("ab\u0000c"), "failure detail 'ab\\u0000c' contains a NUL character"
        + " (U+0000) at index 2; expected text without NUL");
    assertRejected(() -> Failure.permanent("ab\uD800c"), "failure detail 'ab\\ud800c' contains an unpaired"
        + " surrogate (U+D800) at index 2; expected well-formed Unicode text");
    assertRejected(() -> NewRequest.master("m\uDC00", null), "contains an unpaired surrogate (U+DC00) at index 1");
  }

  @Test
  @DisplayName("well-formed text outside the BMP (a surrogate pair) is kept exactly by every store")
  void pairedSurrogatesAreKept() {
    String emoji = "\uD83D\uDE00";
    register("c1", "x86");
    Request r = submit(NewRequest.master("m" + emoji, null).withBenchmarkGroups("g"));
    assertThat(store.requestByTag("m" + emoji)).map(Request::id).contains(r.id());
    assertThat(store.requestByTag("m\uD83D\uDE01")).isEmpty();
    queue.tick();
    Claim claim = claimOne("c1");
    Job failed = queue.fail(claim.lease(), Failure.permanent("broke " + emoji)).job().orElseThrow();
    assertThat(reload(failed).failure().orElseThrow().detail()).endsWith(": broke " + emoji);
    Request other = submit(NewRequest.master("m2", null).withBenchmarkGroups("g"));
    assertThat(queue.cancel(other.id(), "closed " + emoji).request().orElseThrow().cancelReason())
        .contains("closed " + emoji);
    assertThat(reload(other).cancelReason()).contains("closed " + emoji);
  }
}
