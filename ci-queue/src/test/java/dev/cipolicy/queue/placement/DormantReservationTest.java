package dev.cipolicy.queue.placement;

import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a pool keeps after a placement ({@link DevicePlacement#keep}): a reservation whose job its share holds
 * back stays kept, dormant, and restricts nothing while it is; otherwise the reservation as it stands.
 */
class DormantReservationTest {

  private static final Instant NOW = Instant.parse("2026-03-02T10:00:00Z");
  private static final DevicePlacement.KeptReservation WEEKLY = new DevicePlacement.KeptReservation(JobId.of(7), "h0");

  private static DevicePlacement.Reservation reservation(long job) {
    return new DevicePlacement.Reservation(JobId.of(job), 8, "h1", NOW.plusSeconds(600), 2, 8);
  }

  @Test
  void aHeldBackJobKeepsItsReservation() {
    assertThat(DevicePlacement.keep(WEEKLY, true, Optional.of(reservation(9)))).isEqualTo(WEEKLY);
    assertThat(DevicePlacement.keep(WEEKLY, true, Optional.empty())).isEqualTo(WEEKLY);
  }

  @Test
  void otherwiseThePoolKeepsTheReservationAsItStands() {
    assertThat(DevicePlacement.keep(WEEKLY, false, Optional.of(reservation(9))))
        .isEqualTo(new DevicePlacement.KeptReservation(JobId.of(9), "h1"));
    assertThat(DevicePlacement.keep(WEEKLY, false, Optional.empty())).isNull();
    assertThat(DevicePlacement.keep(null, true, Optional.of(reservation(9))))
        .isEqualTo(new DevicePlacement.KeptReservation(JobId.of(9), "h1"));
    assertThat(DevicePlacement.keep(null, true, Optional.empty())).isNull();
  }

  @Test
  void aDormantReservationRestrictsNothing() {
    // h0 is kept for job 7, which its share holds back, so it is no candidate: job 8 (4 GPUs, no estimate) takes
    // h0's free devices, and the reservation, if any, is the head's among the offered jobs.
    DevicePlacement.Host h0 = new DevicePlacement.Host("h0", Devices.count(8), List.of(
        new DevicePlacement.Holding(JobId.of(1), List.of(0, 1, 2, 3), NOW.plus(Duration.ofHours(1)))));
    List<DevicePlacement.Candidate> offered = List.of(new DevicePlacement.Candidate(JobId.of(8), 4, Duration.ZERO));
    assertThat(DevicePlacement.place(List.of(h0), "h0", offered, NOW, WEEKLY))
        .contains(new DevicePlacement.Placement(JobId.of(8), List.of(4, 5, 6, 7)));
    assertThat(DevicePlacement.reservation(List.of(h0), offered, NOW, WEEKLY)).isEmpty();
    // Offered again, job 7 holds h0 although it does not fit now, and job 8 may not take h0 past it.
    List<DevicePlacement.Candidate> both = List.of(offered.get(0),
        new DevicePlacement.Candidate(JobId.of(7), 8, Duration.ofHours(2)));
    assertThat(DevicePlacement.reservation(List.of(h0), both, NOW, WEEKLY)).map(DevicePlacement.Reservation::job)
        .contains(JobId.of(7));
    assertThat(DevicePlacement.place(List.of(h0), "h0", both, NOW, WEEKLY)).isEmpty();
  }
}
