package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.JobId;
import dev.cipolicy.queue.spi.JobSpec;
import dev.cipolicy.queue.spi.NewRequest;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.Request;
import dev.cipolicy.queue.spi.RequestId;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What only the PostgreSQL store has: migrations, schema names, and rows edited by hand into impossible states. */
class PostgresQueueStoreTest {

  private static final Instant NOW = Instant.parse("2026-01-05T09:00:00Z");
  private static @Nullable PgTestDatabase db;
  private PostgresQueueStore store;

  @BeforeEach
  void setUp() {
    if (db == null) {
      db = PgTestDatabase.open("pgstore", 4);
      store = PostgresQueueStore.create(db.dataSource, db.schema);
    } else {
      db.truncate();
      store = PostgresQueueStore.attach(db.dataSource, db.schema);
    }
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
      db = null;
    }
  }

  @Test
  void migrationsAreIdempotentAndRecordTheirVersion() {
    assertThat(PostgresMigrations.migrate(db.dataSource, db.schema)).isEqualTo(PostgresMigrations.latestVersion());
    assertThat(PostgresMigrations.migrate(db.dataSource, db.schema)).isEqualTo(PostgresMigrations.latestVersion());
  }

  @Test
  void schemaNamesMustBePlainIdentifiers() {
    assertThatThrownBy(() -> PostgresQueueStore.create(db.dataSource, "x\"; DROP TABLE y; --"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a plain PostgreSQL identifier");
    assertThatThrownBy(() -> PostgresQueueStore.create(db.dataSource, "Upper"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void duplicateJobKeysAreNoOps() {
    Request r = store.submit(NewRequest.master("a1", null), NOW).request();
    StartResult started = store.startRequest(new StartCommand(r.id(),
        List.of(JobSpec.required("compile", "x86")), false, 1, NOW));
    assertThat(started.jobs()).hasSize(1);
    assertThat(store.jobs(r.id())).hasSize(1);
  }

  @Test
  void aJobRowEditedIntoAnImpossibleStateIsReportedByName() {
    JobId job = startedJob();
    db.exec("UPDATE " + db.schema + ".queue_jobs SET state = 'LEASED' WHERE id = " + job.value());
    assertThatThrownBy(() -> store.job(job)).isInstanceOf(QueueStoreException.class)
        .hasMessageContaining(db.schema + ".queue_jobs (id = " + job.value() + ")")
        .hasMessageContaining("impossible state").hasMessageContaining("has a lease exactly when leased");
    // A claim only reads queued rows: the site and the other collectors go on working.
    assertThat(store.claim(new ClaimCommand("c1", NOW, Duration.ofMinutes(1), Duration.ofMinutes(1), 2, 1))
        .claims()).isEmpty();
  }

  @Test
  void anUnknownStateNameIsReportedByName() {
    Request r = store.submit(NewRequest.release("v1"), NOW).request();
    db.exec("ALTER TABLE " + db.schema + ".queue_requests DROP CONSTRAINT queue_requests_state_check");
    try {
      db.exec("UPDATE " + db.schema + ".queue_requests SET state = 'EXPLODED' WHERE id = " + r.id().value());
      assertThatThrownBy(() -> store.request(r.id())).isInstanceOf(QueueStoreException.class)
          .hasMessageContaining(db.schema + ".queue_requests (id = " + r.id().value() + ")")
          .hasMessageContaining("EXPLODED");
      assertThatThrownBy(() -> store.requestByTag("v1")).isInstanceOf(QueueStoreException.class);
    } finally {
      db.exec("UPDATE " + db.schema + ".queue_requests SET state = 'CANCELLED', finished_at = now(),"
          + " cancel_reason = 'test' WHERE id = " + r.id().value());
      db.exec("ALTER TABLE " + db.schema + ".queue_requests ADD CONSTRAINT queue_requests_state_check CHECK (state IN"
          + " ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'))");
    }
  }

  @Test
  void aMissingControlRowIsReportedClearly() {
    Request r = store.submit(NewRequest.master("b1", null), NOW).request();
    db.exec("DELETE FROM " + db.schema + ".queue_control");
    try {
      assertThatThrownBy(() -> store.startRequest(new StartCommand(r.id(), List.of(), false, 1, NOW)))
          .isInstanceOf(QueueStoreException.class).hasMessageContaining("control row");
    } finally {
      db.exec("INSERT INTO " + db.schema + ".queue_control (id) VALUES (1)");
    }
  }

  private JobId startedJob() {
    Request r = store.submit(NewRequest.master("c1", null), NOW).request();
    store.registerCollector("c1", "x86", true, NOW);
    RequestId id = r.id();
    return store.startRequest(new StartCommand(id, List.of(JobSpec.required("compile", "x86")), false, 1, NOW))
        .jobs().get(0).id();
  }
}
