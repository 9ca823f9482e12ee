package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.SubmitResult;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Several sites submitting the same commits at the same moment on the real server: for each commit exactly
 * one submission creates the request and every other one reports the duplicate tag, never the open request
 * of the PR, because the tag is checked first and both checks see the same committed state.
 */
class PostgresSubmitRaceTest {

  private static final int SITES = 4;
  private static final int COMMITS = 300;

  private static @Nullable PgTestDatabase db;

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
      db = null;
    }
  }

  @Test
  void identicalSubmissionsRacingReportTheDuplicateTag() throws Exception {
    PgTestDatabase database = PgTestDatabase.open("submitrace", SITES + 1);
    db = database;
    PostgresQueueStore created = PostgresQueueStore.create(database.dataSource, database.schema);
    List<PostgresQueueStore> sites = new ArrayList<>();
    sites.add(created);
    for (int i = 1; i < SITES; i++) {
      sites.add(PostgresQueueStore.attach(database.dataSource, database.schema));
    }
    CyclicBarrier barrier = new CyclicBarrier(SITES);
    ExecutorService pool = Executors.newFixedThreadPool(SITES);
    try {
      List<Future<List<SubmitResult.Status>>> futures = new ArrayList<>();
      for (PostgresQueueStore site : sites) {
        futures.add(pool.submit(() -> {
          List<SubmitResult.Status> seen = new ArrayList<>();
          for (int commit = 1; commit <= COMMITS; commit++) {
            barrier.await(30, TimeUnit.SECONDS);
            seen.add(site.submit(NewRequest.master("c" + commit, "c" + (commit - 1)).withPr(commit)).status());
          }
          return seen;
        }));
      }
      List<List<SubmitResult.Status>> bySite = new ArrayList<>();
      for (Future<List<SubmitResult.Status>> f : futures) {
        bySite.add(f.get(120, TimeUnit.SECONDS));
      }
      Map<SubmitResult.Status, Integer> totals = new EnumMap<>(SubmitResult.Status.class);
      for (int commit = 0; commit < COMMITS; commit++) {
        Map<SubmitResult.Status, Integer> counts = new EnumMap<>(SubmitResult.Status.class);
        for (List<SubmitResult.Status> site : bySite) {
          counts.merge(site.get(commit), 1, Integer::sum);
          totals.merge(site.get(commit), 1, Integer::sum);
        }
        assertThat(counts).as("statuses of the %d submissions of commit c%d", SITES, commit + 1)
            .containsExactlyInAnyOrderEntriesOf(Map.of(SubmitResult.Status.CREATED, 1,
                SubmitResult.Status.DUPLICATE_TAG, SITES - 1));
      }
      assertThat(totals).as("all statuses").containsOnlyKeys(SubmitResult.Status.CREATED,
          SubmitResult.Status.DUPLICATE_TAG);
      assertThat(database.count("SELECT count(*) FROM " + database.schema + ".queue_requests")).isEqualTo(COMMITS);
    } finally {
      pool.shutdownNow();
    }
  }
}
