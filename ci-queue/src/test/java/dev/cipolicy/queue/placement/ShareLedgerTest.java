package dev.cipolicy.queue.placement;

import dev.cipolicy.queue.model.FleetShares.Share;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.WaitReason;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

/** The borrowing rule of {@link ShareLedger}, on hand-made counts. */
class ShareLedgerTest {

  private static final FleetShares NIGHTLY_BORROWS = FleetShares.of(Share.gpus("nightly", "g", 4).borrowing());

  private static JobSpec gpuJob(String cadence, int gpus) {
    return JobSpec.required("j", "g").withGpus(gpus, Duration.ofMinutes(10)).withCadence(cadence);
  }

  @Test
  void aWaitingJobThatFitsNoHostDoesNotStopBorrowingDevices() {
    ShareLedger ledger = ShareLedger.of("g", List.of(gpuJob("nightly", 4)), List.of(gpuJob("pr", 8)));
    JobSpec next = gpuJob("nightly", 2);
    // The roomiest host has 4 free: the 8-GPU job cannot use them, so the nightly borrows.
    assertThat(ledger.othersWaiting(NIGHTLY_BORROWS, "nightly", 4)).isFalse();
    assertThat(ledger.admits(NIGHTLY_BORROWS, next, 4)).isTrue();
    // A host with 8 free could run it: the nightly borrows no more.
    assertThat(ledger.admits(NIGHTLY_BORROWS, next, 8)).isFalse();
    assertThat(ledger.refusal(NIGHTLY_BORROWS, next, 8)).contains(WaitReason.of(WaitReason.Kind.SHARE_FULL, "g", 2)
        .share(NIGHTLY_BORROWS.share("nightly", "g").orElseThrow()).held(4).build());
    // The two-argument forms count every waiting job, as before.
    assertThat(ledger.admits(NIGHTLY_BORROWS, next)).isFalse();
    assertThat(ledger.othersWaiting(NIGHTLY_BORROWS, "nightly")).isTrue();
  }

  @Test
  void aWaitingJobWithoutGpusAlwaysCountsAndAJobWithoutGpusCountsEveryWaiter() {
    // A waiting job that needs no GPU could run on any host: it stops the borrowing even with no device free.
    ShareLedger lint = ShareLedger.of("g", List.of(gpuJob("nightly", 4)),
        List.of(JobSpec.required("lint", "g").withCadence("pr")));
    assertThat(lint.admits(NIGHTLY_BORROWS, gpuJob("nightly", 2), 0)).isFalse();
    // A borrowing job that needs no GPU counts every waiting job, whatever mostFree says: here the 8-GPU one.
    FleetShares runners = FleetShares.of(Share.runners("nightly", "g", 1).borrowing());
    JobSpec cpu = JobSpec.required("cpu", "g").withCadence("nightly");
    ShareLedger wide = ShareLedger.of("g", List.of(cpu), List.of(gpuJob("pr", 8)));
    assertThat(wide.admits(runners, cpu, 0)).isFalse();
    assertThat(wide.admits(NIGHTLY_BORROWS, gpuJob("nightly", 6), 0)).isTrue();
  }

  @Test
  void theCountsByGpusFollowQueueingAndClaims() {
    ShareLedger ledger = new ShareLedger("g");
    ledger.leased(gpuJob("nightly", 4));
    JobSpec narrow = gpuJob("pr", 2);
    JobSpec wide = gpuJob("pr", 8);
    ledger.queued(narrow);
    ledger.queued(wide);
    assertThat(ledger.othersWaiting(NIGHTLY_BORROWS, "nightly", 2)).isTrue();
    ledger.claimed(narrow);
    // Only the 8-GPU job is left: it fits on no host with 2 free.
    assertThat(ledger.othersWaiting(NIGHTLY_BORROWS, "nightly", 2)).isFalse();
    assertThat(ledger.othersWaiting(NIGHTLY_BORROWS, "nightly", 8)).isTrue();
    ledger.unqueued(wide);
    assertThat(ledger.othersWaiting(NIGHTLY_BORROWS, "nightly", Integer.MAX_VALUE)).isFalse();
    ledger.queued(narrow);
    assertThat(ledger.othersWaiting(NIGHTLY_BORROWS, "nightly", 2)).isTrue();
  }

  @Test
  void aCadenceAtItsOwnFullShareDoesNotCountAsWaiting() {
    FleetShares both = FleetShares.of(Share.gpus("nightly", "g", 4).borrowing(), Share.gpus("pr", "g", 2));
    ShareLedger ledger = ShareLedger.of("g", List.of(gpuJob("nightly", 4), gpuJob("pr", 2)),
        List.of(gpuJob("pr", 2)));
    assertThat(ledger.admits(both, gpuJob("nightly", 2), 8)).isTrue();
  }
}
