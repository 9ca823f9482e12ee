package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL store on its production clock, the database server's: leases, heartbeats and every
 * recorded instant come from {@code clock_timestamp()}, so engines in processes whose clocks disagree (or
 * run hours ahead) cannot expire a live lease. An engine has no clock of its own to be wrong with; this test
 * runs several engines on separate stores against one schema, hammers the store during a live lease, and
 * checks every instant against the server's clock.
 */
class ServerClockTest {

  private static PgTestDatabase db;

  @BeforeAll
  static void open() {
    db = PgTestDatabase.open("serverclock", 8);
    PostgresQueueStore.create(db.dataSource, db.schema);
  }

  @AfterAll
  static void close() {
    db.close();
  }

  private static Instant serverNow() throws SQLException {
    try (Connection c = db.dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
      rs.next();
      return rs.getObject(1, OffsetDateTime.class).toInstant();
    }
  }

  private static JobQueue engine(Duration lease) {
    return JobQueue.of(PostgresQueueStore.attach(db.dataSource, db.schema), QueueSettings.builder()
        .maxInProgress(1).backfill(false).leaseDuration(lease).collectorTimeout(lease).maxCrashRescues(1)
        .addBenchmarkGroups("g", "h").addCollectorTargets(CollectorTarget.required("x86")).build());
  }

  @Test
  void leasesAreMeasuredOnTheServersClockAndBusyEnginesCannotExpireThem() throws Exception {
    db.truncate();
    JobQueue site = engine(Duration.ofSeconds(30));
    JobQueue otherSite = engine(Duration.ofSeconds(30));
    JobQueue fastCollector = engine(Duration.ofSeconds(30));
    site.registerCollector("c1", "x86", true);
    site.registerCollector("c2", "x86", true);
    site.submit(NewRequest.master("m1", null));
    site.tick();

    Instant before = serverNow();
    Claim held = site.claim("c1").claims().get(0);
    Instant after = serverNow();
    assertThat(held.lease().expiresAt()).as("expiry is the server's claim instant plus the lease")
        .isBetween(before.plusSeconds(30), after.plusSeconds(30));
    assertThat(site.store().now()).isBetween(before, serverNow());

    for (int round = 0; round < 20; round++) {
      assertThat(otherSite.tick().expired().isEmpty()).isTrue();
      assertThat(fastCollector.store().expireLeases(0).isEmpty()).isTrue();
      List<Claim> stolen = fastCollector.claim("c2", 4).claims();
      stolen.forEach(c -> assertThat(c.job().id()).isNotEqualTo(held.job().id()));
      stolen.forEach(c -> fastCollector.complete(c.lease()));
    }
    Job job = site.store().job(held.job().id()).orElseThrow();
    assertThat(job.crashRescues()).isZero();
    assertThat(job.lease()).contains(held.lease());
    assertThat(site.heartbeat(held.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(site.complete(held.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(site.store().job(held.job().id()).orElseThrow().finishedAt().orElseThrow())
        .isBetween(before, serverNow());
  }

  @Test
  void aLeaseExpiresWhenTheServersClockPassesIt() throws Exception {
    db.truncate();
    JobQueue site = engine(Duration.ofMillis(300));
    site.registerCollector("c1", "x86", true);
    site.submit(NewRequest.master("m2", null).withBenchmarkGroups("g"));
    site.tick();
    Claim held = site.claim("c1").claims().get(0);
    while (serverNow().isBefore(held.lease().expiresAt())) {
      Thread.sleep(50);
    }
    assertThat(site.tick().expired().rescued()).extracting(Job::id).containsExactly(held.job().id());
    assertThat(site.complete(held.lease()).status()).isEqualTo(LeaseStatus.STALE_LEASE);
  }
}
