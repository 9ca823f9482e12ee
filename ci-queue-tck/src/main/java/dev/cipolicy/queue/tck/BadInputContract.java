package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.InvalidQueueInputException;
import dev.cipolicy.queue.spi.JobSpec;
import dev.cipolicy.queue.spi.NewRequest;
import dev.cipolicy.queue.spi.RequestId;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for bad input: the project's exception types with precise messages.
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
    assertRejected(() -> new StartCommand(RequestId.of(1), List.of(JobSpec.required("g", "t"),
        JobSpec.optionalJob("g", "t")), false, 1, START), "list g@t twice");
    assertRejected(() -> new ClaimCommand("c1", START, Duration.ZERO, LEASE, 1, 1), "lease duration is PT0S");
  }
}
