package dev.cipolicy.benchmarks.postgres;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drains db-scheduler: lead + N one-time task instances with a no-op handler are scheduled in the past (outside the
 * measurement); then one {@link Scheduler} with {@code threads} executor threads and lock-and-fetch polling
 * ({@code SELECT ... FOR UPDATE SKIP LOCKED} in one {@code UPDATE ... RETURNING}) runs until every instance
 * has completed, i.e. its completion handler has deleted the row. The first {@code lead} completions are not
 * measured (see {@link Window}).
 */
final class DbSchedulerRun {
  private static final String TASK = "bench-noop";

  private DbSchedulerRun() {
  }

  /**
   * Creates db-scheduler's table in the schema: the PostgreSQL definition its project publishes for the 16.x
   * line (with the {@code priority} column and its indexes).
   */
  static void createTable(BenchDatabase db, String schema) {
    String t = schema + ".scheduled_tasks";
    db.exec("CREATE SCHEMA " + schema);
    db.exec("CREATE TABLE " + t + " (task_name text NOT NULL, task_instance text NOT NULL, task_data bytea,"
        + " execution_time timestamptz NOT NULL, picked boolean NOT NULL, picked_by text,"
        + " last_success timestamptz, last_failure timestamptz, consecutive_failures int,"
        + " last_heartbeat timestamptz, version bigint NOT NULL, priority smallint,"
        + " PRIMARY KEY (task_name, task_instance))");
    db.exec("CREATE INDEX execution_time_idx ON " + t + " (execution_time)");
    db.exec("CREATE INDEX last_heartbeat_idx ON " + t + " (last_heartbeat)");
    db.exec("CREATE INDEX priority_execution_time_idx ON " + t + " (priority DESC, execution_time ASC)");
  }

  static RunResult run(BenchDatabase db, String system, int threads, double lowerLimit, double upperLimit, int lead,
      int jobs, int round) {
    int total = lead + jobs;
    String schema = BenchDatabase.freshSchema("bench_dbsched");
    String table = schema + ".scheduled_tasks";
    try {
      createTable(db, schema);
      CountDownLatch done = new CountDownLatch(total);
      Window[] window = new Window[1];
      AtomicLong failed = new AtomicLong();
      OneTimeTask<Void> task = Tasks.oneTime(TASK).execute((instance, context) -> { });
      try (HikariDataSource setup = db.pool("setup", 2)) {
        SchedulerClient client = SchedulerClient.Builder.create(setup, task).tableName(table).build();
        Instant due = Instant.now().minusSeconds(1);
        List<TaskInstance<?>> batch = new ArrayList<>(1000);
        for (int i = 0; i < total; i++) {
          batch.add(task.instance("j" + i));
          if (batch.size() == 1000 || i == total - 1) {
            client.scheduleBatch(batch, due);
            batch.clear();
          }
        }
        db.closeAndAwaitGone(setup);
      }
      long queued = db.queryLong("SELECT count(*) FROM " + table);
      if (queued != total) {
        throw new IllegalStateException("scheduled " + queued + " task instances, expected " + total);
      }
      HikariDataSource pool = db.pool("dbsched", threads + 2);
      CountingDataSource counting = new CountingDataSource(pool);
      window[0] = new Window(lead, total, counting);
      Scheduler scheduler = Scheduler.create(counting, task)
          .tableName(table)
          .threads(threads)
          .pollUsingLockAndFetch(lowerLimit, upperLimit)
          .pollingInterval(Duration.ofMillis(100))
          .schedulerName(new SchedulerName.Fixed("bench"))
          .addSchedulerListener(new AbstractSchedulerListener() {
            @Override
            public void onExecutionComplete(ExecutionComplete complete) {
              if (complete.getResult() == ExecutionComplete.Result.OK) {
                window[0].completed(1);
                done.countDown();
              } else {
                failed.incrementAndGet();
              }
            }
          })
          .build();
      BenchDatabase.ServerStats serverBefore = db.stats(schema);
      double loadBefore = Load.now();
      window[0].open();
      scheduler.start();
      boolean finished = await(done);
      double loadAfter = Load.now();
      scheduler.stop();
      db.closeAndAwaitGone(pool);
      BenchDatabase.ServerStats server = db.stats(schema).minus(serverBefore);
      long left = db.queryLong("SELECT count(*) FROM " + table);
      if (!finished || failed.get() != 0 || left != 0) {
        throw new IllegalStateException(system + ": " + (total - done.getCount()) + " completions, " + failed.get()
            + " failures, " + left + " rows left; expected " + total + ", 0, 0");
      }
      return new RunResult(system, threads, round, window[0].jobs(), window[0].seconds(), total, window[0].client(),
          server, loadBefore, loadAfter);
    } finally {
      db.dropSchema(schema);
    }
  }

  private static boolean await(CountDownLatch done) {
    try {
      return done.await(30, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
