package dev.cipolicy.postgres;

import dev.cipolicy.gate.MetricHistoryStore;
import dev.cipolicy.gate.tck.MetricHistoryStoreCompatibilityKit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;

/** The metric history compatibility kit, unchanged, against {@link PostgresMetricHistoryStore} on a real server. */
class PostgresMetricHistoryStoreCompatibilityTest extends MetricHistoryStoreCompatibilityKit {

  private static @Nullable PgTestDatabase db;

  @Override
  protected MetricHistoryStore newStore() {
    if (db == null) {
      db = PgTestDatabase.open("gatecompat", 4);
      return PostgresMetricHistoryStore.create(db.dataSource, db.schema);
    }
    PgHistoryTables.truncate(db);
    return PostgresMetricHistoryStore.attach(db.dataSource, db.schema);
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
      db = null;
    }
  }
}
