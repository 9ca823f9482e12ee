package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Request;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@code fleet submit --wait} prints when a job's host dies: on the in-memory store, with the store's clock
 * moved by hand, a job whose lease expired and that another host took (or even finished) between two polls.
 */
class FleetFollowerTest {
  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-06T10:00:00Z"));
  private final JobQueue queue = JobQueue.inMemory(now::get, QueueSettings.withoutJobs());
  private final List<String> lines = new ArrayList<>();
  private Request request;
  private FleetFollower follower;

  @BeforeEach
  void submit() {
    queue.registerHost("host-a", "gpu", Devices.count(4));
    queue.registerHost("host-b", "gpu", Devices.count(4));
    request = queue.submitCiRun(CiRun.of("acme/trainer", 7, 1, "c0ffee", "pull_request").withPr(3)
        .withCadence("regular"), List.of(JobSpec.required("stage-c-4-gpu-0of1", "gpu").withGpus(4,
            Duration.ofMinutes(1)))).request();
    follower = new FleetFollower(queue.store(), request.id(), Set.of(), new StoreBudget(Duration.ofSeconds(1),
        millis -> { }, System::nanoTime), millis -> { }, 0, lines::add, id -> null);
  }

  /** The job's lease on host-a runs out and host-b claims it, all between two polls. */
  private Claim diesOnAThenBTakesIt() throws InterruptedException {
    queue.claim("host-a");
    follower.poll();
    now.set(now.get().plus(queue.settings().leaseDuration()).plusSeconds(1));
    queue.collectorHeartbeat("host-b");
    queue.tick(); // expires host-a's lease: the job is queued again
    return queue.claim("host-b").claims().get(0);
  }

  @Test
  void aJobRequeuedAndClaimedAgainBetweenTwoPollsIsReportedAsRequeuedThenStartedOnItsNewHost() throws Exception {
    diesOnAThenBTakesIt();
    follower.poll();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).startsWith("started stage-c-4-gpu-0of1 on host-a");
    assertThat(lines.get(1)).startsWith("requeued stage-c-4-gpu-0of1 (it ran on host-a)").endsWith(
        "it will run again");
    assertThat(lines.get(2)).startsWith("started stage-c-4-gpu-0of1 on host-b");
  }

  @Test
  void aJobThatEndedOnItsNewHostBetweenTwoPollsIsReportedOnThatHostNotOnTheDeadOne() throws Exception {
    Claim onB = diesOnAThenBTakesIt();
    queue.complete(onB.lease()); // no result: where it ran is the store's record of its attempts
    assertThat(follower.poll()).isTrue();
    assertThat(lines.get(1)).startsWith("requeued stage-c-4-gpu-0of1 (it ran on host-a)");
    assertThat(lines.get(2)).startsWith("started stage-c-4-gpu-0of1 on host-b devices 0,1,2,3");
    assertThat(lines.get(3)).startsWith("succeeded stage-c-4-gpu-0of1 on host-b");
    assertThat(follower.report()).singleElement().satisfies(j -> {
      assertThat(j.host()).isEqualTo("host-b");
      assertThat(j.devices()).containsExactly(0, 1, 2, 3);
      assertThat(j.outcome()).isEqualTo(FleetReport.Outcome.SUCCEEDED);
    });
  }

  @Test
  void aJobThatRanAndEndedBeforeTheStepFollowedItIsReportedWithItsHostDevicesAndTimes() throws Exception {
    Claim claim = queue.claim("host-a").claims().get(0);
    now.set(now.get().plusSeconds(90));
    queue.complete(claim.lease());
    assertThat(follower.poll()).isTrue();
    // its start line too, from the store's record: the step's log says where it ran and on which devices
    assertThat(lines).containsExactly("started stage-c-4-gpu-0of1 on host-a devices 0,1,2,3 after waiting 0s",
        "succeeded stage-c-4-gpu-0of1 on host-a in 1m 30s");
    assertThat(follower.report()).singleElement().satisfies(j -> {
      assertThat(j.devices()).containsExactly(0, 1, 2, 3);
      assertThat(j.waited()).isEqualTo(Duration.ZERO);
    });
  }

  @Test
  void aStartSeenLateIsTimedByItsAttemptNotByThePollThatSawIt() throws Exception {
    // the step's first poll comes 30 s after the job started (a slow runner): it waited 0 s and ran 1m 30s
    now.set(now.get().plusSeconds(5));
    Claim claim = queue.claim("host-a").claims().get(0);
    now.set(now.get().plusSeconds(30));
    follower.poll();
    now.set(now.get().plusSeconds(60));
    queue.complete(claim.lease());
    assertThat(follower.poll()).isTrue();
    assertThat(lines).containsExactly("started stage-c-4-gpu-0of1 on host-a devices 0,1,2,3 after waiting 5s",
        "succeeded stage-c-4-gpu-0of1 on host-a in 1m 30s");
  }

  @Test
  void theCancellingHooksSnapshotReadsTheJobsAsTheyStandNow() throws Exception {
    queue.claim("host-a");
    List<FleetReport.Job> jobs = follower.snapshot(100).orElseThrow();
    assertThat(jobs).singleElement().satisfies(j -> {
      assertThat(j.host()).isEqualTo("host-a");
      assertThat(j.outcome()).isEqualTo(FleetReport.Outcome.RUNNING);
    });
  }
}
