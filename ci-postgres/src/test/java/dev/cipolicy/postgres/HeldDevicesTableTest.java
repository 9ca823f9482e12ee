package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.tck.SettableClock;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The held-devices table: the database, not the store's code, keeps two leases from holding the same device
 * of a collector (its primary key) and a lease from holding a device its collector never advertised (its
 * foreign key), and ending a lease deletes its rows.
 */
class HeldDevicesTableTest {

  private final SettableClock clock = SettableClock.at("2026-01-05T09:00:00Z");
  private @Nullable PgTestDatabase db;
  private PostgresQueueStore store;
  private String t;

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("devices", 2);
    store = PostgresQueueStore.createOnClock(db.dataSource, db.schema, clock);
    t = db.schema + ".queue_";
  }

  @AfterEach
  void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  private List<Claim> twoLeases() {
    store.registerCollector("h0", "gpu", true, Devices.count(8));
    Request r = store.submit(NewRequest.master("m1", null)).request();
    store.startRequest(StartCommand.builder().requestId(r.id()).jobs(List.of(JobSpec.required("a", "gpu")
        .withGpus(2, Duration.ofHours(1)), JobSpec.required("b", "gpu").withGpus(4, Duration.ofHours(1)))).build());
    List<Claim> claims = store.claim(ClaimCommand.builder().collector("h0").leaseDuration(Duration.ofMinutes(5))
        .limit(5).build())
        .claims();
    assertThat(claims).extracting(c -> c.lease().devices()).containsExactly(List.of(0, 1), List.of(2, 3, 4, 5));
    return claims;
  }

  @Test
  void aDeviceCannotBeHeldTwice() {
    List<Claim> claims = twoLeases();
    assertThat(db.count("SELECT count(*) FROM " + t + "held_devices")).isEqualTo(6);
    long second = claims.get(1).job().id().value();
    assertThatThrownBy(() -> db.exec("UPDATE " + t + "held_devices SET device = 0 WHERE job_id = " + second
        + " AND device = 2")).hasMessageContaining("held_devices_once");
    assertThatThrownBy(() -> db.exec("INSERT INTO " + t + "held_devices (collector, device, job_id, estimated_end)"
        + " VALUES ('h0', 1, " + second + ", now())")).hasMessageContaining("held_devices_once");
  }

  @Test
  void onlyAdvertisedDevicesCanBeHeld() {
    List<Claim> claims = twoLeases();
    long first = claims.get(0).job().id().value();
    assertThatThrownBy(() -> db.exec("INSERT INTO " + t + "held_devices (collector, device, job_id, estimated_end)"
        + " VALUES ('h0', 9, " + first + ", now())")).hasMessageContaining("foreign key");
  }

  @Test
  void endingALeaseDeletesItsRows() {
    List<Claim> claims = twoLeases();
    assertThat(store.complete(LeaseRef.of(claims.get(0).lease())).status()).isEqualTo(LeaseStatus.OK);
    assertThat(db.count("SELECT count(*) FROM " + t + "held_devices")).isEqualTo(4);
    assertThat(store.release(LeaseRef.of(claims.get(1).lease())).status()).isEqualTo(LeaseStatus.OK);
    assertThat(db.count("SELECT count(*) FROM " + t + "held_devices")).isZero();
    assertThat(db.count("SELECT count(*) FROM " + t + "gpu_queued")).isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM " + t + "queued")).isZero();
  }
}
