package dev.cipolicy.postgres;

import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.tck.QueueStoreCompatibilityKit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;

/** The compatibility kit, unchanged, against {@link PostgresQueueStore} on a real PostgreSQL server. */
class PostgresQueueStoreCompatibilityTest extends QueueStoreCompatibilityKit {

  private static @Nullable PgTestDatabase db;

  @Override
  protected QueueStore newStore() {
    if (db == null) {
      db = PgTestDatabase.open("compat", 16);
      return PostgresQueueStore.create(db.dataSource, db.schema);
    }
    db.truncate();
    return PostgresQueueStore.attach(db.dataSource, db.schema);
  }

  /** Fewer random scenarios than in memory: each command is a few round trips to the server. */
  @Override
  protected int modelExamples() {
    return 60;
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
      db = null;
    }
  }
}
