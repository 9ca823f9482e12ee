package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.SubmitResult;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Table prefixes: two stores in one schema are isolated; names are checked; migrations follow the prefix. */
class TablePrefixTest {

  private static @Nullable PgTestDatabase db;

  @BeforeAll
  static void open() {
    db = PgTestDatabase.open("prefix", 4);
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
      db = null;
    }
  }

  @Test
  void twoStoresWithDifferentPrefixesInOneSchemaNeverSeeEachOther() throws SQLException {
    PostgresQueueOptions alphaOptions = PostgresQueueOptions.inSchema(db.schema).withTablePrefix("alpha_");
    PostgresQueueOptions betaOptions = PostgresQueueOptions.inSchema(db.schema).withTablePrefix("beta_q_");
    PostgresQueueStore alphaStore = PostgresQueueStore.create(db.dataSource, alphaOptions);
    PostgresQueueStore betaStore = PostgresQueueStore.create(db.dataSource, betaOptions);
    assertThat(alphaStore.options()).isEqualTo(alphaOptions);

    assertThat(strings("SELECT table_name FROM information_schema.tables WHERE table_schema = '" + db.schema
        + "' ORDER BY table_name")).containsExactly("alpha_collector_devices", "alpha_collectors", "alpha_control",
            "alpha_fleet_shares", "alpha_gpu_queued", "alpha_held_devices", "alpha_job_attempts", "alpha_job_logs", "alpha_jobs", "alpha_leases",
            "alpha_operator_actions", "alpha_paused_pools", "alpha_queued", "alpha_requests",
            "alpha_reservations", "alpha_results", "alpha_schema_version", "beta_q_collector_devices", "beta_q_collectors", "beta_q_control",
            "beta_q_fleet_shares", "beta_q_gpu_queued", "beta_q_held_devices", "beta_q_job_attempts", "beta_q_job_logs", "beta_q_jobs", "beta_q_leases",
            "beta_q_operator_actions", "beta_q_paused_pools", "beta_q_queued",
            "beta_q_requests", "beta_q_reservations", "beta_q_results", "beta_q_schema_version");
    assertThat(strings("SELECT indexname FROM pg_indexes WHERE schemaname = '" + db.schema + "'"
        + " AND indexname NOT LIKE '%pkey' AND indexname NOT LIKE '%_key' ORDER BY indexname"))
        .containsExactly("alpha_gpu_queued_claim", "alpha_held_devices_job", "alpha_held_devices_once",
            "alpha_leases_expiry", "alpha_queued_affinity", "alpha_queued_claim", "alpha_requests_ci_run",
            "alpha_requests_history", "alpha_requests_open", "alpha_requests_open_ci_group", "alpha_requests_open_pr",
            "alpha_results_request", "beta_q_gpu_queued_claim",
            "beta_q_held_devices_job", "beta_q_held_devices_once", "beta_q_leases_expiry", "beta_q_queued_affinity",
            "beta_q_queued_claim", "beta_q_requests_ci_run", "beta_q_requests_history",
            "beta_q_requests_open", "beta_q_requests_open_ci_group", "beta_q_requests_open_pr",
            "beta_q_results_request");
    assertThat(strings("SELECT event_object_table || ' ' || trigger_name FROM information_schema.triggers"
        + " WHERE trigger_schema = '" + db.schema + "' GROUP BY 1 ORDER BY 1"))
        .containsExactly("alpha_jobs alpha_jobs_list_inserted", "alpha_jobs alpha_jobs_list_requeued",
            "beta_q_jobs beta_q_jobs_list_inserted", "beta_q_jobs beta_q_jobs_list_requeued");
    assertThat(strings("SELECT proname FROM pg_proc WHERE pronamespace = '" + db.schema + "'::regnamespace"
        + " ORDER BY 1")).containsExactly("alpha_list_queued_job", "beta_q_list_queued_job");
    // The domains are per prefix too: two stores never share a rule.
    assertThat(strings("SELECT typname FROM pg_type WHERE typnamespace = '" + db.schema + "'::regnamespace"
        + " AND typtype = 'd' ORDER BY 1")).containsExactly("alpha_cadence_name", "alpha_gpu_count",
            "alpha_job_args", "alpha_lease_attempt", "alpha_micros", "alpha_plain_name", "beta_q_cadence_name",
            "beta_q_gpu_count", "beta_q_job_args", "beta_q_lease_attempt", "beta_q_micros", "beta_q_plain_name");
    assertThat(strings("SELECT sequencename FROM pg_sequences WHERE schemaname = '" + db.schema + "'"
        + " AND sequencename LIKE '%tokens'")).containsExactlyInAnyOrder("alpha_lease_tokens", "beta_q_lease_tokens");
    assertThat(strings("SELECT version || ' ' || script FROM " + db.schema + ".beta_q_schema_version ORDER BY version"))
        .containsExactly("1 V1__queue.sql");

    QueueSettings settings = QueueSettings.builder().maxInProgress(1).backfill(false).addBenchmarkGroups("compile")
        .addCollectorTargets(CollectorTarget.required("x86")).build();
    JobQueue alpha = JobQueue.of(alphaStore, settings);
    JobQueue beta = JobQueue.of(betaStore, settings);

    // The same tag, collector name and PR in both: no duplicate, no clash.
    Request a = alpha.submit(NewRequest.master("sha1", null).withPr(7)).request();
    SubmitResult b = beta.submit(NewRequest.master("sha1", null).withPr(7));
    assertThat(b.status()).isEqualTo(SubmitResult.Status.CREATED);
    alpha.registerCollector("c1", "x86", true);
    beta.registerCollector("c1", "x86", true);
    // Each has its own cap (K = 1) and control row: both start their request.
    assertThat(alpha.tick().started()).hasSize(1);
    assertThat(beta.tick().started()).hasSize(1);
    // Ids and lease tokens are counted separately, and a claim sees only its own jobs.
    Claim ca = alpha.claim("c1").claims().get(0);
    Claim cb = beta.claim("c1").claims().get(0);
    assertThat(ca.job().id()).isEqualTo(cb.job().id());
    assertThat(ca.lease().token()).isEqualTo(cb.lease().token());
    assertThat(alpha.claim("c1").claims()).isEmpty();
    // Completing in alpha changes nothing in beta.
    assertThat(alpha.complete(ca.lease()).ok()).isTrue();
    assertThat(alpha.tick().completed()).extracting(Request::id).containsExactly(a.id());
    assertThat(beta.tick().completed()).isEmpty();
    assertThat(betaStore.openRequests()).hasSize(1);
    assertThat(betaStore.job(cb.job().id()).orElseThrow().lease()).contains(cb.lease());
    assertThat(beta.complete(cb.lease()).ok()).isTrue();
    assertThat(beta.tick().completed()).hasSize(1);

    // Migrating again is a no-op per prefix; the default prefix is still free in this schema.
    assertThat(PostgresMigrations.migrate(db.dataSource, alphaOptions)).isEqualTo(PostgresMigrations.latestVersion());
    assertThat(PostgresMigrations.migrate(db.dataSource, PostgresQueueOptions.inSchema(db.schema))).isZero();
  }

  @Test
  void namesAreCheckedBeforeAnySqlIsBuilt() {
    PostgresQueueOptions options = PostgresQueueOptions.inSchema("ci");
    assertThat(options.tablePrefix()).isEqualTo(PostgresQueueOptions.DEFAULT_TABLE_PREFIX).isEqualTo("queue_");
    assertThat(options.withTablePrefix("ci_queue_").tablePrefix()).isEqualTo("ci_queue_");
    List<String> bad = new ArrayList<>(List.of("", "Queue_", "1q_", "q-", "q_\"; DROP TABLE x; --", "q ",
        "q".repeat(PostgresQueueOptions.MAX_PREFIX_LENGTH + 1)));
    for (String prefix : bad) {
      assertThatThrownBy(() -> options.withTablePrefix(prefix)).as(prefix)
          .isInstanceOf(InvalidQueueInputException.class)
          .hasMessage("table prefix '" + prefix + "' is not usable: expected lower-case letters, digits and"
              + " underscores, not starting with a digit, 1 to 40 characters (a PostgreSQL identifier that needs no"
              + " quoting), e.g. 'ci_queue_'");
    }
    assertThatThrownBy(() -> options.withTablePrefix(null)).isInstanceOf(InvalidQueueInputException.class)
        .hasMessageStartingWith("table prefix (missing) is not usable");
    assertThat(options.withTablePrefix("q".repeat(PostgresQueueOptions.MAX_PREFIX_LENGTH)).tablePrefix())
        .hasSize(PostgresQueueOptions.MAX_PREFIX_LENGTH);
    assertThatThrownBy(() -> PostgresQueueOptions.inSchema("Ci")).isInstanceOf(InvalidQueueInputException.class)
        .hasMessageStartingWith("schema name 'Ci' is not a plain PostgreSQL identifier");
    assertThatThrownBy(() -> PostgresQueueStore.create(null, options)).isInstanceOf(InvalidQueueInputException.class);
  }

  @Test
  void aStoreAttachedToTablesThatDoNotExistSaysWhichOnes() {
    PostgresQueueStore missing = PostgresQueueStore.attach(db.dataSource,
        PostgresQueueOptions.inSchema(db.schema).withTablePrefix("nowhere_"));
    assertThatThrownBy(() -> missing.submit(NewRequest.release("v1")))
        .isInstanceOf(QueueStoreException.class)
        .hasMessageStartingWith("submit on " + db.schema + ".nowhere_* failed (SQLSTATE 42P01)")
        .hasMessageContaining("nowhere_requests");
  }

  private List<String> strings(String sql) {
    return db.strings(sql);
  }
}
