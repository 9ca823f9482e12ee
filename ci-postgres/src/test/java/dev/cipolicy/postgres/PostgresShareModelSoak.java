package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.tck.QueueStoreCompatibilityKit;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fleet-share model check against {@link PostgresQueueStore} at full length: a million operations by
 * default ({@code -Dcipolicy.soak.operations=N} for another count), each scenario of 100 on an emptied
 * schema. Not part of the build (its name matches none of the test patterns; the kit's own run in
 * {@code PostgresQueueStoreCompatibilityTest} is 3,000 operations); run it by name:
 *
 * <pre>{@code
 * CI_POLICY_PG_REQUIRED=true ./mvnw -pl ci-postgres -am test -Dtest=PostgresShareModelSoak \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * }</pre>
 */
class PostgresShareModelSoak {

  private @Nullable PgTestDatabase db;

  @Test
  void aMillionModelOperationsKeepTheStoreEqualToTheReference() {
    long operations = Long.getLong("cipolicy.soak.operations", 1_000_000L);
    long started = System.nanoTime();
    long ran = QueueStoreCompatibilityKit.checkShareModel(clock -> {
      if (db == null) {
        db = PgTestDatabase.open("soak", 8);
        return PostgresQueueStore.createOnClock(db.dataSource, db.schema, clock);
      }
      db.truncate();
      return PostgresQueueStore.attachOnClock(db.dataSource, db.schema, clock);
    }, operations);
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.printf(Locale.ROOT, "share model soak: %d operations in %.0f s (%.0f operations/s)%n", ran, seconds,
        ran / seconds);
    assertThat(ran).isGreaterThanOrEqualTo(operations);
  }

  @AfterEach
  void drop() {
    if (db != null) {
      db.close();
      db = null;
    }
  }
}
