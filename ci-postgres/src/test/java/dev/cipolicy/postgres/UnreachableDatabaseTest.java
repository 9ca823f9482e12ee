package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.MetricStoreUnavailableException;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.Revocation;
import dev.cipolicy.gate.RunId;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.Sample;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * Both stores of this module against a database that does not exist (a closed local port): every operation
 * and both migrators fail with the port's "unavailable" exception, saying that nothing was committed; and
 * against a connection lost during the commit, where both say the change may have been committed.
 */
class UnreachableDatabaseTest {

  private static final Instant NOW = Instant.parse("2026-01-05T09:00:00Z");
  private static final LeaseRef LEASE = new LeaseRef(JobId.of(1), 1, 1);
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private final DataSource nowhere = PgTestDatabase.closedPort();

  private static void queueUnavailable(String operation, ThrowingCallable call) {
    assertThatThrownBy(call).as(operation).isInstanceOfSatisfying(QueueStoreUnavailableException.class, e -> {
      assertThat(e.operation()).isEqualTo(operation);
      assertThat(e.mayHaveCommitted()).isFalse();
      assertThat(e).hasMessageContaining("could not get a database connection (SQLSTATE 08001")
          .hasMessageEndingWith("nothing was done, retry later");
    });
  }

  @Test
  void theQueueStoreMigrationRaisesQueueStoreUnavailable() {
    queueUnavailable("migrate", () -> PostgresQueueStore.create(nowhere, "ci_queue"));
    assertThatThrownBy(() -> PostgresMigrations.migrate(nowhere, "ci_queue"))
        .isInstanceOf(QueueStoreUnavailableException.class)
        .hasMessageStartingWith("could not migrate tables ci_queue.queue_*: could not get a database connection");
  }

  @Test
  void everyQueueStoreOperationRaisesQueueStoreUnavailable() {
    PostgresQueueStore store = PostgresQueueStore.attach(nowhere, "ci_queue");
    queueUnavailable("submit", () -> store.submit(NewRequest.master("m1", null)));
    queueUnavailable("attachArtifacts", () -> store.attachArtifacts(RequestId.of(1), "t1", "m1"));
    queueUnavailable("request", () -> store.request(RequestId.of(1)));
    queueUnavailable("openRequests", store::openRequests);
    queueUnavailable("scanInProgressRequests", store::scanInProgressRequests);
    queueUnavailable("startRequest", () -> store.startRequest(StartCommand.builder().requestId(RequestId.of(1))
        .build()));
    queueUnavailable("completeIfDone", () -> store.completeIfDone(RequestId.of(1)));
    queueUnavailable("cancel", () -> store.cancel(RequestId.of(1), "gone"));
    queueUnavailable("claim", () -> store.claim(ClaimCommand.builder().collector("c1").leaseDuration(MINUTE).limit(4)
        .build()));
    queueUnavailable("heartbeat", () -> store.heartbeat(LEASE, MINUTE));
    queueUnavailable("complete", () -> store.complete(LEASE));
    queueUnavailable("completeAll", () -> store.completeAll(List.of(LEASE, new LeaseRef(JobId.of(2), 1, 2))));
    queueUnavailable("now", store::now);
    queueUnavailable("result", () -> store.result(JobId.of(1)));
    queueUnavailable("results", () -> store.results(RequestId.of(1)));
    queueUnavailable("fail", () -> store.fail(LEASE, Failure.permanent("x"), 2));
    queueUnavailable("release", () -> store.release(LEASE));
    queueUnavailable("expireLeases", () -> store.expireLeases(2));
    queueUnavailable("job", () -> store.job(JobId.of(1)));
    queueUnavailable("registerCollector", () -> store.registerCollector("c1", "x86", true));
    queueUnavailable("collectorHeartbeat", () -> store.collectorHeartbeat("c1"));
    queueUnavailable("collectors", store::collectors);
    assertThat(store.vacuumIfNeeded()).isFalse();
    assertThat(store.maintenanceProblem()).hasValueSatisfying(problem -> assertThat(problem)
        .contains("could not get a database connection").endsWith("autovacuum still does it"));
  }

  @Test
  void aSiteTickOnAnUnreachableDatabaseEndsWithQueueStoreUnavailable() {
    JobQueue site = JobQueue.of(PostgresQueueStore.attach(nowhere, "ci_queue"),
        QueueSettings.withoutJobs());
    assertThatThrownBy(site::tick).isInstanceOf(QueueStoreUnavailableException.class);
  }

  private static void historyUnavailable(String operation, Supplier<?> call) {
    assertThatThrownBy(call::get).as(operation).isInstanceOfSatisfying(MetricStoreUnavailableException.class, e -> {
      assertThat(e.operation()).startsWith(operation);
      assertThat(e.mayHaveCommitted()).isFalse();
      assertThat(e).hasMessageStartingWith("could not " + operation)
          .hasMessageContaining(" in schema ci_gate (SQLSTATE 08001)")
          .hasMessageEndingWith("(the database cannot be reached)");
    });
  }

  @Test
  void theHistoryStoreRaisesMetricStoreUnavailable() {
    assertThatThrownBy(() -> PostgresMetricHistoryStore.create(nowhere, "ci_gate"))
        .isInstanceOfSatisfying(MetricStoreUnavailableException.class, e -> {
          assertThat(e.operation()).isEqualTo("migrate the metric history");
          assertThat(e.mayHaveCommitted()).isFalse();
          assertThat(e).hasMessageStartingWith("could not migrate the metric history in schema ci_gate"
              + " (SQLSTATE 08001): Connection to 127.0.0.1:");
        });
    PostgresMetricHistoryStore store = PostgresMetricHistoryStore.attach(nowhere, "ci_gate");
    SeriesKey series = new SeriesKey("tests/a.py", "cuda", "stage-a");
    Coordinate loss = new Coordinate("loss", "all", "{}", 0);
    historyUnavailable("read the history", () -> store.read(series, Set.of(loss), 20, 20));
    historyUnavailable("write a run", () -> store.write(new RunRecord(series, Provenance.none(), NOW, true,
        List.of(new Sample(loss, 1.0, true)))));
    historyUnavailable("revoke", () -> store.revoke(new Revocation.ByCommit("abc")));
    historyUnavailable("read the full history", () -> store.history(series, loss));
    historyUnavailable("list the coordinates", () -> store.coordinates(series));
    historyUnavailable("accept a level shift", () -> store.acceptLevelShift(series, loss, List.of(new RunId(1))));
  }

  @Test
  void aConnectionLostDuringTheCommitMayHaveCommittedInBothStores() {
    try (PgTestDatabase db = PgTestDatabase.open("unreachable", 2)) {
      PostgresQueueStore.create(db.dataSource, db.schema);
      PostgresMetricHistoryStore.create(db.dataSource, db.schema);
      DataSource lostCommit = PgTestDatabase.commitFailsWith(db.dataSource, "08006");

      PostgresQueueStore queue = PostgresQueueStore.attach(lostCommit, db.schema);
      assertThatThrownBy(() -> queue.submit(NewRequest.master("m1", null)))
          .isInstanceOfSatisfying(QueueStoreUnavailableException.class, e -> {
            assertThat(e.mayHaveCommitted()).isTrue();
            assertThat(e).hasMessageStartingWith("submit on " + db.schema + ".queue_*: the database connection was"
                + " lost during the commit (SQLSTATE 08006").hasMessageContaining("the outcome is unknown");
          });

      PostgresMetricHistoryStore history = PostgresMetricHistoryStore.attach(lostCommit, db.schema);
      SeriesKey series = new SeriesKey("tests/a.py", "cuda", "stage-a");
      RunRecord run = new RunRecord(series, Provenance.none(), NOW, true,
          List.of(new Sample(new Coordinate("loss", "all", "{}", 0), 1.0, true)));
      assertThatThrownBy(() -> history.write(run))
          .isInstanceOfSatisfying(MetricStoreUnavailableException.class, e -> {
            assertThat(e.mayHaveCommitted()).isTrue();
            assertThat(e).hasMessageStartingWith("could not write a run of " + series + " in schema " + db.schema
                + " (SQLSTATE 08006)").hasMessageEndingWith("(the database cannot be reached: the database"
                    + " connection was lost during the commit, so the change may have been committed; re-read"
                    + " before writing again, a run written twice is stored twice)");
          });
    }
  }
}
