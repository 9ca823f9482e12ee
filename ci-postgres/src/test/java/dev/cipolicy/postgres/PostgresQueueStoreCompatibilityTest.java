package dev.cipolicy.postgres;

import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.tck.QueueStoreCompatibilityKit;
import java.time.InstantSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;

/**
 * The compatibility kit, unchanged, against {@link PostgresQueueStore} on a real PostgreSQL server. The kit
 * moves time with its own clock, so the store here reads that clock instead of the server's (the one
 * test-only difference; {@code ServerClockTest} covers the server's clock).
 */
class PostgresQueueStoreCompatibilityTest extends QueueStoreCompatibilityKit {

  private static @Nullable PgTestDatabase db;

  @Override
  protected QueueStore newStore(InstantSource clock) {
    if (db == null) {
      db = PgTestDatabase.open("compat", 16);
      return PostgresQueueStore.createOnClock(db.dataSource, db.schema, clock);
    }
    db.truncate();
    return PostgresQueueStore.attachOnClock(db.dataSource, db.schema, clock);
  }

  /** Fewer random scenarios than in memory: each command is a few round trips to the server. */
  @Override
  protected int modelExamples() {
    return 60;
  }

  /**
   * Fewer fleet-share model operations than in memory (1,000,000 there): 3,000, since each is a few round
   * trips to the server (the whole "Shares" group, this check included, took 61 s on a loaded two-core
   * machine).
   */
  @Override
  protected int shareModelOperations() {
    return 3_000;
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
      db = null;
    }
  }
}
