package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What only the PostgreSQL store has: migrations, schema names, a missing control row (impossible rows: {@link ImpossibleRowTest}). */
class PostgresQueueStoreTest {

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
    Request r = store.submit(NewRequest.master("a1", null)).request();
    StartResult started = store.startRequest(StartCommand.builder().requestId(r.id())
        .jobs(List.of(JobSpec.required("compile", "x86"))).build());
    assertThat(started.jobs()).hasSize(1);
    assertThat(store.jobs(r.id())).hasSize(1);
  }

  @Test
  void aBatchOfLiveLeasesCompletesWithOneStatementAndOnlyTheOthersFallBack() {
    Request r = store.submit(NewRequest.master("c1", null)).request();
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      specs.add(JobSpec.required("g" + i, "x86"));
    }
    store.startRequest(StartCommand.builder().requestId(r.id()).jobs(specs).build());
    store.registerCollector("c1", "x86", true);
    Duration lease = Duration.ofMinutes(1);
    List<LeaseRef> refs = store.claim(ClaimCommand.builder().collector("c1").leaseDuration(lease).limit(6).build())
        .claims().stream()
        .map(Claim::lease).map(LeaseRef::of).toList();
    assertThat(refs).hasSize(6);
    AtomicInteger connections = new AtomicInteger();
    AtomicInteger statements = new AtomicInteger();
    PostgresQueueStore counted = PostgresQueueStore.attach(counting(db.dataSource, connections, statements),
        db.schema);
    List<LeaseResult> live = counted.completeAll(refs.subList(0, 4));
    assertThat(live).extracting(LeaseResult::status).containsOnly(LeaseStatus.OK);
    assertThat(live).extracting(x -> x.job().orElseThrow().state()).containsOnly(JobState.SUCCEEDED);
    assertThat(connections.get()).as("connections for four live leases").isEqualTo(1);
    // One statement: it reads the server's clock itself (statement_timestamp()).
    assertThat(statements.get()).as("statements for four live leases").isEqualTo(1);

    connections.set(0);
    LeaseRef wrong = new LeaseRef(refs.get(5).jobId(), refs.get(5).attempt(), refs.get(5).token() + 7);
    List<LeaseResult> mixed = counted.completeAll(List.of(refs.get(4), wrong, refs.get(0)));
    assertThat(mixed).extracting(LeaseResult::status).containsExactly(LeaseStatus.OK, LeaseStatus.STALE_LEASE,
        LeaseStatus.STALE_LEASE);
    assertThat(connections.get()).as("one statement for the batch, one fallback transaction per other item")
        .isEqualTo(3);
    assertThat(store.job(refs.get(5).jobId()).orElseThrow().state()).isEqualTo(JobState.LEASED);
  }

  /** A DataSource that counts connections handed out and statements prepared on them. */
  private static DataSource counting(DataSource target, AtomicInteger connections, AtomicInteger statements) {
    return (DataSource) Proxy.newProxyInstance(PostgresQueueStoreTest.class.getClassLoader(),
        new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
          Object result = invoke(target, method, args);
          if (method.getName().equals("getConnection")) {
            connections.incrementAndGet();
            Connection c = (Connection) result;
            return Proxy.newProxyInstance(PostgresQueueStoreTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> {
                  if (m.getName().equals("prepareStatement")) {
                    statements.incrementAndGet();
                  }
                  return invoke(c, m, a);
                });
          }
          return result;
        });
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void aMissingControlRowIsReportedClearly() {
    Request r = store.submit(NewRequest.master("b1", null)).request();
    db.exec("DELETE FROM " + db.schema + ".queue_control");
    try {
      assertThatThrownBy(() -> store.startRequest(StartCommand.builder().requestId(r.id()).build()))
          .isInstanceOf(QueueStoreException.class).hasMessageContaining("control row");
    } finally {
      db.exec("INSERT INTO " + db.schema + ".queue_control (id) VALUES (1)");
    }
  }
}
