package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for reservations: when the oldest GPU job of a pool fits on no host now, the host that
 * frees enough devices soonest (by its holders' estimated ends) is kept for it, and smaller jobs run there only
 * if their estimate ends by then, so the large job is not starved by a stream of small ones. A reservation is
 * sticky: the job keeps its host until it starts, even when an older job becomes eligible meanwhile (released
 * back to the queue, or admitted again by its fleet share); that job waits for the next reservation.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Reservations" group.
 */
abstract class ReservationsContract extends GpuKitGroup {

  private static final Duration LONG_LEASE = Duration.ofHours(4);

  ReservationsContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Override
  Duration lease() {
    return LONG_LEASE;
  }

  @Test
  @DisplayName("on the reserved host only jobs whose estimate ends before the reservation backfill")
  void backfillOnlyWhenItEndsInTime() {
    host("h0", Devices.count(8));
    Job holder = gpuJobs(Duration.ofMinutes(30), 5).get(0);
    assertThat(claimDevices("h0", holder)).containsExactly(0, 1, 2, 3, 4);
    Job head = gpuJobs(Duration.ofHours(1), 8).get(0);
    Job longer = gpuJobs(Duration.ofMinutes(60), 3).get(0);
    Job unknown = gpuJobs(Duration.ZERO, 2).get(0);
    Job shorter = gpuJobs(Duration.ofMinutes(10), 1).get(0);
    // The head needs 8 and 3 are free: h0 is reserved until the holder's end, 30 minutes from now. The
    // 60-minute job would delay the head, the job without an estimate might; the 10-minute one backfills.
    assertThat(claimDevices("h0", shorter)).containsExactly(5);
    assertThat(claim("h0", 4)).isEmpty();
    assertThat(reload(longer).state()).isEqualTo(JobState.QUEUED);
    assertThat(reload(unknown).state()).isEqualTo(JobState.QUEUED);
    clock.advance(Duration.ofMinutes(30));
    complete(holder);
    complete(shorter);
    assertThat(claimDevices("h0", head)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
  }

  @Test
  @DisplayName("the host that frees enough devices soonest is reserved; other hosts run anything that fits")
  void soonestHostReserved() {
    host("h0", Devices.count(8));
    host("h1", Devices.count(8));
    Job slow = gpuJobs(Duration.ofMinutes(50), 6).get(0);
    assertThat(claimDevices("h0", slow)).hasSize(6);
    Job fast = gpuJobs(Duration.ofMinutes(20), 6).get(0);
    assertThat(claimDevices("h1", fast)).hasSize(6);
    Job head = gpuJobs(Duration.ofHours(1), 8).get(0);
    Job small = gpuJobs(Duration.ofMinutes(30), 2).get(0);
    // h1 frees its devices in 20 minutes, h0 in 50: h1 is kept for the head, and the 30-minute job would
    // overrun that, so h1 takes nothing while h0 runs it.
    assertThat(claim("h1", 2)).isEmpty();
    assertThat(claimDevices("h0", small)).containsExactly(6, 7);
    clock.advance(Duration.ofMinutes(20));
    complete(fast);
    assertThat(claimDevices("h1", head)).hasSize(8);
    assertThat(reload(slow).state()).isEqualTo(JobState.LEASED);
  }

  @Test
  @DisplayName("a head job starts within its reserved host's longest remaining estimate plus one claim interval,"
      + " under small jobs arriving twice as fast as they complete")
  void noStarvation() {
    host("h0", Devices.count(8));
    Duration interval = Duration.ofMinutes(1);
    Duration small = Duration.ofMinutes(10);
    // Four 2-GPU jobs fill the host in 10 minutes: 0.4 completions a minute; 4 arrive every 5 minutes.
    Map<Long, Instant> ends = new HashMap<>();
    Job head = null;
    Instant bound = null;
    Instant started = null;
    int queuedSmall = 0;
    for (int minute = 0; minute <= 120 && started == null; minute++) {
      Instant now = clock.instant();
      for (Map.Entry<Long, Instant> e : new ArrayList<>(ends.entrySet())) {
        if (!e.getValue().isAfter(now)) {
          Job done = store.job(dev.cipolicy.queue.model.JobId.of(e.getKey())).orElseThrow();
          assertThat(store.complete(LeaseRef.of(done.lease().orElseThrow())).status()).isEqualTo(LeaseStatus.OK);
          ends.remove(e.getKey());
        }
      }
      if (minute < 8 && minute % 2 == 0) {
        gpuJobs(small, 2);
        queuedSmall++;
      } else if (minute >= 8 && minute % 5 == 0) {
        gpuJobs(small, 2, 2, 2, 2);
        queuedSmall += 4;
      }
      if (minute == 7) {
        head = gpuJobs(Duration.ofMinutes(30), 8).get(0);
        Instant latest = now;
        for (Instant end : ends.values()) {
          latest = end.isAfter(latest) ? end : latest;
        }
        bound = latest.plus(interval);
      }
      for (Claim c : claim("h0", 8, LONG_LEASE)) {
        if (head != null && c.job().id().equals(head.id())) {
          started = now;
        } else {
          queuedSmall--;
          ends.put(c.job().id().value(), now.plus(small));
        }
      }
      if (minute >= 10 && started == null) {
        assertThat(queuedSmall).as("small jobs keep waiting at minute %s", minute).isPositive();
      }
      clock.advance(interval);
    }
    assertThat(started).as("the 8-GPU job started").isNotNull();
    assertThat(started).as("the 8-GPU job starts by its bound").isBeforeOrEqualTo(bound);
    assertThat(bound).isEqualTo(START.plus(Duration.ofMinutes(17)));
  }

  private WaitReason reasonOf(Job job) {
    for (JobWait w : store.waitingJobs("gpu", LONG_LEASE)) {
      if (w.job().id().equals(job.id())) {
        return w.reason();
      }
    }
    throw new AssertionError("job " + job.id() + " does not wait in pool gpu");
  }

  @Test
  @DisplayName("an older job its share held back, admitted again, does not take the host reserved for a younger"
      + " job")
  void readmittedOlderJobWaits() {
    host("h0", Devices.count(8));
    store.setShares(FleetShares.of(FleetShares.Share.runners("weekly", "gpu", 1)));
    Job weekly = gpuJobs("weekly", Duration.ofMinutes(30), 2).get(0);
    assertThat(claimDevices("h0", weekly)).containsExactly(0, 1);
    Job older = gpuJobs("weekly", Duration.ofHours(1), 8).get(0);
    Job head = gpuJobs("nightly", Duration.ofHours(1), 8).get(0);
    // The weekly share holds the older 8-GPU job back: the nightly one is the head, and h0 is reserved for it.
    assertThat(claim("h0", 4)).isEmpty();
    assertThat(reasonOf(older).kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    assertThat(reasonOf(head)).isEqualTo(WaitReason.of(WaitReason.Kind.RESERVED_FOR_IT, "gpu", 8).host("h0")
        .free(6).size(8).expectedFree(START.plus(Duration.ofMinutes(30))).build());
    clock.advance(Duration.ofMinutes(30));
    complete(weekly);
    // The weekly job is admitted again and is older, but the reservation stays with the nightly job.
    assertThat(reasonOf(head).kind()).isEqualTo(WaitReason.Kind.RESERVED_FOR_IT);
    assertThat(reasonOf(older)).isEqualTo(WaitReason.of(WaitReason.Kind.HOST_RESERVED, "gpu", 8).host("h0")
        .otherJob(head.id()).expectedFree(clock.instant()).build());
    assertThat(claimDevices("h0", head)).hasSize(8);
    assertThat(reload(older).state()).isEqualTo(JobState.QUEUED);
    // Now the older job holds the next reservation.
    assertThat(claim("h0", 4)).isEmpty();
    assertThat(reasonOf(older).kind()).isEqualTo(WaitReason.Kind.RESERVED_FOR_IT);
    clock.advance(Duration.ofHours(1));
    complete(head);
    assertThat(claimDevices("h0", older)).hasSize(8);
  }

  @Test
  @DisplayName("an older job released back to the queue does not take the host reserved for a younger job, and"
      + " its wait reason names the reservation")
  void releasedOlderJobWaits() {
    host("h0", Devices.count(8));
    Job older = gpuJobs(Duration.ofHours(1), 4).get(0);
    Job shorter = gpuJobs(Duration.ofMinutes(30), 4).get(0);
    assertThat(claimDevices("h0", older)).containsExactly(0, 1, 2, 3);
    assertThat(claimDevices("h0", shorter)).containsExactly(4, 5, 6, 7);
    Job head = gpuJobs(Duration.ofHours(1), 8).get(0);
    assertThat(claim("h0", 4)).isEmpty();
    assertThat(store.release(ref(this, older)).status()).isEqualTo(LeaseStatus.OK);
    // Four devices are free and the released job is the oldest; it would end after the reservation, so h0
    // stays reserved for the 8-GPU job (until the 30-minute holder ends).
    Instant until = START.plus(Duration.ofMinutes(30));
    assertThat(reasonOf(head)).isEqualTo(WaitReason.of(WaitReason.Kind.RESERVED_FOR_IT, "gpu", 8).host("h0")
        .free(4).size(8).expectedFree(until).build());
    assertThat(reasonOf(older)).isEqualTo(WaitReason.of(WaitReason.Kind.HOST_RESERVED, "gpu", 4).host("h0")
        .otherJob(head.id()).expectedFree(until).build());
    assertThat(claim("h0", 4)).isEmpty();
    clock.advance(Duration.ofMinutes(30));
    complete(shorter);
    assertThat(claimDevices("h0", head)).hasSize(8);
    assertThat(reload(older).state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  @DisplayName("a reserved job keeps its host when an older job of its GPU count is admitted again; the older"
      + " one takes another host that frees up, or says the reservation stays")
  void olderJobOfTheSameCountTakesAnotherHost() {
    host("h0", Devices.count(8));
    host("h1", Devices.count(8));
    store.setShares(FleetShares.of(FleetShares.Share.runners("weekly", "gpu", 1)));
    Job weekly = gpuJobs("weekly", Duration.ofMinutes(20), 2).get(0);
    assertThat(claimDevices("h0", weekly)).containsExactly(0, 1);
    Job busy = gpuJobs(Duration.ofMinutes(40), 6).get(0);
    assertThat(claimDevices("h1", busy)).hasSize(6);
    Job filler = gpuJobs(Duration.ofMinutes(50), 6).get(0);
    assertThat(claimDevices("h0", filler)).hasSize(6);
    Job older = gpuJobs("weekly", Duration.ofHours(1), 8).get(0);
    Job head = gpuJobs(Duration.ofHours(1), 8).get(0);
    // h1 frees its devices in 40 minutes, h0 in 50: h1 is reserved for the head (the weekly job is held back).
    assertThat(claim("h1", 2)).isEmpty();
    assertThat(reasonOf(head)).isEqualTo(WaitReason.of(WaitReason.Kind.RESERVED_FOR_IT, "gpu", 8).host("h1")
        .free(2).size(8).expectedFree(START.plus(Duration.ofMinutes(40))).build());
    clock.advance(Duration.ofMinutes(20));
    complete(weekly);
    assertThat(claim("h0", 2)).isEmpty();
    assertThat(reasonOf(older)).isEqualTo(WaitReason.of(WaitReason.Kind.NO_FREE_DEVICES, "gpu", 8).mostFree(2)
        .host("h1").otherJob(head.id()).build());
    assertThat(reasonOf(head).kind()).isEqualTo(WaitReason.Kind.RESERVED_FOR_IT);
    clock.advance(Duration.ofMinutes(20));
    complete(busy);
    assertThat(claimDevices("h1", head)).hasSize(8);
    clock.advance(Duration.ofMinutes(10));
    complete(filler);
    assertThat(claimDevices("h0", older)).hasSize(8);
  }

  /** The 6-GPU holder of host h0 and the 4-GPU weekly job reserved for h0 beside it (weekly share: 4 GPUs). */
  private record ReservedWeekly(Job holder, Job weekly) {}

  private ReservedWeekly reservedWeekly() {
    host("h0", Devices.count(8));
    store.setShares(FleetShares.of(FleetShares.Share.gpus("weekly", "gpu", 4)));
    Job holder = gpuJobs(Duration.ofMinutes(30), 6).get(0);
    assertThat(claimDevices("h0", holder)).containsExactly(0, 1, 2, 3, 4, 5);
    Job weekly = gpuJobs("weekly", Duration.ofHours(1), 4).get(0);
    assertThat(claim("h0", 4)).isEmpty();
    assertThat(reasonOf(weekly).kind()).isEqualTo(WaitReason.Kind.RESERVED_FOR_IT);
    return new ReservedWeekly(holder, weekly);
  }

  @Test
  @DisplayName("a reserved job that its own share refuses keeps its reservation dormant: the head among the others"
      + " is reserved for meanwhile, and the job takes its reservation back once admitted again")
  void refusedJobKeepsItsReservationDormant() {
    ReservedWeekly r = reservedWeekly();
    Job holder = r.holder();
    Job weekly = r.weekly();
    // A short weekly job backfills: the weekly share (4 GPUs) now refuses the reserved weekly job, which keeps
    // its reservation, dormant; meanwhile the 8-GPU job is the head among the others and h0 is reserved for it.
    Job shortWeekly = gpuJobs("weekly", Duration.ofMinutes(10), 2).get(0);
    Job head = gpuJobs(Duration.ofHours(1), 8).get(0);
    assertThat(claimDevices("h0", shortWeekly)).containsExactly(6, 7);
    assertThat(reasonOf(weekly).kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    assertDormant(reasonOf(weekly), "h0");
    assertThat(claim("h0", 4)).isEmpty();
    assertDormant(reasonOf(weekly), "h0");
    assertThat(reasonOf(head)).isEqualTo(WaitReason.of(WaitReason.Kind.RESERVED_FOR_IT, "gpu", 8).host("h0")
        .free(0).size(8).expectedFree(START.plus(Duration.ofMinutes(30))).build());
    clock.advance(Duration.ofMinutes(10));
    complete(shortWeekly);
    // Admitted again, the weekly job holds its reservation again, before and after the next claim.
    Instant until = START.plus(Duration.ofMinutes(30));
    assertThat(reasonOf(weekly)).isEqualTo(WaitReason.of(WaitReason.Kind.RESERVED_FOR_IT, "gpu", 4).host("h0")
        .free(2).size(8).expectedFree(until).build());
    assertThat(reasonOf(head).kind()).isEqualTo(WaitReason.Kind.NO_FREE_DEVICES);
    assertThat(claim("h0", 4)).isEmpty();
    assertThat(reasonOf(weekly).kind()).isEqualTo(WaitReason.Kind.RESERVED_FOR_IT);
    clock.advance(Duration.ofMinutes(20));
    complete(holder);
    assertThat(claimDevices("h0", weekly)).hasSize(4);
    assertThat(reload(head).state()).isEqualTo(JobState.QUEUED);
    assertThat(reasonOf(head).kind()).isEqualTo(WaitReason.Kind.RESERVED_FOR_IT);
  }

  @Test
  @DisplayName("a dormant reservation restricts nothing: while its job waits for its share, another job may take"
      + " the host's free devices")
  void dormantReservationRestrictsNothing() {
    ReservedWeekly r = reservedWeekly();
    Job holder = r.holder();
    Job weekly = r.weekly();
    Job shortWeekly = gpuJobs("weekly", Duration.ofMinutes(10), 2).get(0);
    assertThat(claimDevices("h0", shortWeekly)).containsExactly(6, 7);
    clock.advance(Duration.ofMinutes(30));
    complete(holder);
    // Six devices free, the weekly job still refused: a 6-GPU job without an estimate takes them.
    Job unknown = gpuJobs(Duration.ZERO, 6).get(0);
    assertThat(reasonOf(weekly).kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    assertThat(claimDevices("h0", unknown)).hasSize(6);
    assertDormant(reasonOf(weekly), "h0");
  }

  /** Asserts that a job's share refuses it while it keeps the reservation of {@code host}, dormant. */
  private static void assertDormant(WaitReason reason, String host) {
    assertThat(reason.kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    assertThat(reason.dormant()).isTrue();
    assertThat(reason.host()).contains(host);
  }
}
