package dev.cipolicy.queue.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.WaitReason.Kind;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one place that asserts the wording of every wait reason; every other test asserts fields. */
class WaitReasonTest {

  private static final Instant AT = Instant.parse("2026-12-06T05:02:30.771312Z");
  private static final JobId OTHER = JobId.of(17);

  @Test
  void everyKindRendersItsSentenceFromItsFields() {
    Set<Kind> seen = EnumSet.noneOf(Kind.class);
    List<Object[]> cases = List.of(
        new Object[] {WaitReason.of(Kind.CLAIMABLE, "cpu", 0).liveCollectors(2).build(),
            "claimable by the 2 live collectors of pool cpu; waits for the next claim"},
        new Object[] {WaitReason.of(Kind.CLAIMABLE, "cpu", 0).liveCollectors(1).build(),
            "claimable by the 1 live collector of pool cpu; waits for the next claim"},
        new Object[] {WaitReason.of(Kind.CLAIMABLE, "cpu", 0).liveCollectors(2).host("c1").build(),
            "held for collector c1, its previous one, while it is live; waits for its next claim"},
        new Object[] {WaitReason.of(Kind.CLAIMABLE, "gpu", 1).host("h0").free(2).size(8).build(),
            "needs 1 GPU; host h0 has 2 of 8 free; waits for its next claim"},
        new Object[] {WaitReason.of(Kind.NO_LIVE_COLLECTOR, "cpu", 0).build(), "no live collector of pool cpu"},
        new Object[] {WaitReason.of(Kind.NO_LIVE_COLLECTOR, "gpu", 2).build(),
            "needs 2 GPUs; no live collector of pool gpu advertises devices"},
        new Object[] {WaitReason.of(Kind.NO_HOST_LARGE_ENOUGH, "gpu", 16).largestHost(8).build(),
            "needs 16 GPUs; no live host of pool gpu has that many devices (the largest has 8)"},
        new Object[] {WaitReason.of(Kind.RESERVED_FOR_IT, "gpu", 8).host("b200-0").free(3).size(8).expectedFree(AT)
            .build(), "needs 8 GPUs; host b200-0 reserved for it, 3 of 8 free, expected free at 2026-12-06T05:02:30Z"},
        new Object[] {WaitReason.of(Kind.BEHIND_OLDER_JOB, "gpu", 2).otherJob(OTHER).build(),
            "needs 2 GPUs; waits behind job 17, the oldest 2-GPU job of pool gpu"},
        new Object[] {WaitReason.of(Kind.HOST_RESERVED, "gpu", 2).host("h0").otherJob(OTHER).expectedFree(AT).build(),
            "needs 2 GPUs; host h0 reserved for job 17 until 2026-12-06T05:02:30Z, and this job would end after that"},
        new Object[] {WaitReason.of(Kind.HOST_RESERVED, "gpu", 2).host("h0").otherJob(OTHER).expectedFree(AT)
            .noEstimate(true).build(),
            "needs 2 GPUs; host h0 reserved for job 17 until 2026-12-06T05:02:30Z, and this job has no estimate"},
        new Object[] {WaitReason.of(Kind.NO_FREE_DEVICES, "gpu", 1).mostFree(0).build(),
            "needs 1 GPU; no host of pool gpu has 1 free device (the most free on one host: 0)"},
        new Object[] {WaitReason.of(Kind.NO_FREE_DEVICES, "gpu", 8).mostFree(2).host("h1").otherJob(OTHER).build(),
            "needs 8 GPUs; no host of pool gpu has 8 free devices (the most free on one host: 2); the reservation"
                + " of host h1 stays with job 17 until it starts"},
        new Object[] {WaitReason.of(Kind.SHARE_FULL, "r", 0).share(FleetShares.Share.runners("weekly", "r", 1))
            .held(1).build(), "cadence weekly holds 1 of 1 runner of pool r"},
        new Object[] {WaitReason.of(Kind.SHARE_FULL, "g", 4)
            .share(new FleetShares.Share("weekly", "g", FleetShares.Unit.GPUS, 4, true)).held(4).host("h0")
            .dormant(true).build(), "cadence weekly holds 4 of 4 GPUs of pool g; this job needs 4; it borrows no more"
                + " while another cadence waits for the pool; keeps the reservation of host h0 for when its share"
                + " admits it"},
        new Object[] {WaitReason.of(Kind.POOL_PAUSED, "cpu", 0).build(),
            "pool cpu is paused by an operator; its collectors claim nothing until it is resumed"},
        new Object[] {WaitReason.of(Kind.POOL_PAUSED, "gpu", 2).build(),
            "needs 2 GPUs; pool gpu is paused by an operator; its collectors claim nothing until it is resumed"},
        new Object[] {WaitReason.builder().kind(Kind.NEXT_TO_START).build(), "next to start, at the site's next tick"},
        new Object[] {WaitReason.builder().kind(Kind.CAP_REACHED).cap(1).addInProgress("master m0").build(),
            "cap of 1 request in progress reached (master m0); starts when one completes"},
        new Object[] {WaitReason.builder().kind(Kind.WAITING_FOR_PARENT).parentSha("m1").level(1).ahead(2).build(),
            "waiting for its parent m1, a ready request placed before it (level 1); 2 ahead"},
        new Object[] {WaitReason.builder().kind(Kind.BEHIND_OLDER_REQUEST).ahead(1).nextToStart("release 1.0")
            .build(), "behind 1 ready request (next to start: release 1.0)"},
        new Object[] {WaitReason.builder().kind(Kind.WAITING_FOR_ARTIFACTS).label("try #3").build(),
            "waiting for its artifacts (try #3)"});
    for (Object[] c : cases) {
      WaitReason reason = (WaitReason) c[0];
      seen.add(reason.kind());
      assertThat(reason.sentence()).as("%s", reason.kind()).isEqualTo(c[1]);
    }
    assertThat(seen).as("every kind rendered").isEqualTo(EnumSet.allOf(Kind.class));
  }

  @Test
  void aReasonWithoutTheFieldsOfItsKindCannotBeBuilt() {
    assertThatThrownBy(() -> WaitReason.of(Kind.RESERVED_FOR_IT, "gpu", 8).host("h0").build())
        .isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("wait reason RESERVED_FOR_IT needs its host, free, size and expected free");
    assertThatThrownBy(() -> WaitReason.of(Kind.SHARE_FULL, "g", 1).share(FleetShares.Share.gpus("w", "g", 1))
        .held(1).host("h0").build()).isInstanceOf(InvalidQueueInputException.class)
        .hasMessageContaining("a host exactly when dormant");
    assertThatThrownBy(() -> WaitReason.builder().kind(Kind.CLAIMABLE).liveCollectors(1).build())
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("needs its pool");
    assertThatThrownBy(() -> WaitReason.builder().kind(Kind.NEXT_TO_START).pool("p").build())
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("names no pool");
  }
}
