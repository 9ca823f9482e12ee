package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.spi.InvalidQueueInputException;
import dev.cipolicy.queue.spi.JobSpec;
import dev.cipolicy.queue.spi.NewRequest;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.Request;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What only the PostgreSQL store has: migrations, schema names, a missing control row (impossible rows: {@link ImpossibleRowTest}). */
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
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("not a plain PostgreSQL identifier");
    assertThatThrownBy(() -> PostgresQueueStore.create(db.dataSource, "Upper"))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("'Upper'");
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
}
