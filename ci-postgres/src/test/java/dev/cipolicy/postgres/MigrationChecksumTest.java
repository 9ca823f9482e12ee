package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.gate.MetricStoreException;
import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.QueueStoreException;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The migrators' checksum rule: each applied version is recorded with the SHA-256 of its normalized script;
 * at start every recorded version is compared with the shipped script, and a schema whose migration was edited,
 * whose versions have a gap, or which the pre-release chain built is refused with one line naming the
 * migration, the schema, both checksums and the way out, changing nothing. An unchanged schema starts, and a
 * later version still applies on top of version 1. Each test uses its own table prefix (queue) or schema
 * (metric history).
 */
class MigrationChecksumTest {

  private static @Nullable PgTestDatabase database;
  private static final String FAKE = "0".repeat(64);

  private static PgTestDatabase db() {
    return Objects.requireNonNull(database);
  }

  @BeforeAll
  static void open() {
    database = PgTestDatabase.open("checksum", 2);
  }

  @AfterAll
  static void close() {
    PgTestDatabase d = database;
    if (d != null) {
      for (String suffix : List.of("_h_same", "_h_edited", "_h_later", "_h_pre1", "_h_pre2")) {
        d.exec("DROP SCHEMA IF EXISTS " + d.schema + suffix + " CASCADE");
      }
      d.close();
    }
  }

  private static PostgresQueueOptions prefixed(String prefix) {
    return PostgresQueueOptions.inSchema(db().schema).withTablePrefix(prefix);
  }

  private static String shipped(String path) {
    return SqlMigrationSet.checksum(LegacyChains.load(path));
  }

  @Test
  void theChecksumIgnoresLineEndsTrailingBlanksAndAByteOrderMarkButNotComments() {
    String sql = "-- a comment\nCREATE TABLE t (id int);\n";
    String same = SqlMigrationSet.checksum(sql);
    assertThat(same).matches("[0-9a-f]{64}");
    assertThat(SqlMigrationSet.checksum("\uFEFF-- a comment  \r\nCREATE TABLE t (id int);\t\r\n\r\n")).isEqualTo(same);
    assertThat(SqlMigrationSet.checksum("-- a comment\rCREATE TABLE t (id int);")).isEqualTo(same);
    assertThat(SqlMigrationSet.checksum("-- a comment!\nCREATE TABLE t (id int);\n")).isNotEqualTo(same);
    assertThat(SqlMigrationSet.checksum("-- a comment\nCREATE TABLE t (id  int);\n")).isNotEqualTo(same);
    assertThat(PostgresMigrations.SET.checksum(1)).isEqualTo(shipped("migrations/V1__queue.sql"));
  }

  @Test
  void anUnchangedSchemaStartsAndKeepsTheShippedChecksum() {
    PostgresQueueOptions options = prefixed("same_");
    assertThat(PostgresMigrations.migrate(db().dataSource, options)).isZero();
    assertThat(db().strings("SELECT version || ' ' || script || ' ' || checksum FROM " + options.sql("schema_version")))
        .containsExactly("1 V1__queue.sql " + shipped("migrations/V1__queue.sql"));
    assertThat(PostgresMigrations.migrate(db().dataSource, options)).isEqualTo(1);
    PostgresQueueStore.create(db().dataSource, options);

    String gate = db().schema + "_h_same";
    assertThat(PostgresHistoryMigrations.migrate(db().dataSource, gate)).isZero();
    assertThat(db().strings("SELECT version || ' ' || script || ' ' || checksum FROM " + gate + ".gate_schema_version"))
        .containsExactly("1 V1__metric_history.sql " + shipped("history-migrations/V1__metric_history.sql"));
    assertThat(PostgresHistoryMigrations.migrate(db().dataSource, gate)).isEqualTo(1);
  }

  @Test
  void anEditedMigrationIsRefusedWithOneLineNamingItTheSchemaBothChecksumsAndTheWayOut() {
    PostgresQueueOptions options = prefixed("edited_");
    PostgresMigrations.migrate(db().dataSource, options);
    String table = options.display("schema_version");
    db().exec("UPDATE " + table + " SET checksum = '" + FAKE + "' WHERE version = 1");
    String checksum = shipped("migrations/V1__queue.sql");
    String way = "UPDATE " + table + " SET script = 'V1__queue.sql', checksum = '" + checksum + "' WHERE version = 1";
    String message = "migration 1 (V1__queue.sql) of tables " + db().schema + ".edited_* was applied with checksum "
        + FAKE + " (recorded in " + table + ") but this ci-postgres ships it with checksum " + checksum
        + ": a migration was edited after it was applied, and the schema may not be what this version expects;"
        + " use the ci-postgres that applied it, or drop them (DROP SCHEMA " + db().schema + " CASCADE when the"
        + " schema holds nothing else; otherwise drop its edited_* tables, domains, function and sequence) and"
        + " let the store create them again, or, if you have made the schema match the shipped script, record its"
        + " checksum: " + way;
    assertThatThrownBy(() -> PostgresMigrations.migrate(db().dataSource, options))
        .isExactlyInstanceOf(QueueStoreException.class).hasMessage(message);
    assertThatThrownBy(() -> PostgresQueueStore.create(db().dataSource, options))
        .isExactlyInstanceOf(QueueStoreException.class).hasMessage(message);
    assertThat(db().strings("SELECT checksum FROM " + table)).containsExactly(FAKE);

    // The way out the message names: the schema is the shipped one, so recording its checksum lets it start.
    db().exec(way);
    assertThat(PostgresMigrations.migrate(db().dataSource, options)).isEqualTo(1);
  }

  @Test
  void tablesMigratedByAnotherVersionOneAreRefused() {
    PostgresQueueOptions options = prefixed("altered_");
    SqlMigrationSet altered = new SqlMigrationSet("altered-migrations", List.of("V1__queue.sql"), 13);
    assertThat(PostgresMigrations.migrate(db().dataSource, options, altered)).isZero();
    assertThatThrownBy(() -> PostgresMigrations.migrate(db().dataSource, options))
        .isExactlyInstanceOf(QueueStoreException.class)
        .hasMessageStartingWith("migration 1 (V1__queue.sql) of tables " + db().schema + ".altered_* was applied"
            + " with checksum " + shipped("altered-migrations/V1__queue.sql") + " (recorded in " + db().schema
            + ".altered_schema_version) but this ci-postgres ships it with checksum "
            + shipped("migrations/V1__queue.sql") + ": a migration was edited after it was applied")
        .message().doesNotContain("\n");
    // A recorded script name that is not the shipped one is named on both sides.
    db().exec("UPDATE " + options.sql("schema_version") + " SET script = E'V1__mine\\n.sql'");
    assertThatThrownBy(() -> PostgresMigrations.migrate(db().dataSource, options))
        .hasMessageContaining("was applied as V1__mine?.sql with checksum ")
        .hasMessageContaining("but this ci-postgres ships it as V1__queue.sql with checksum ")
        .message().doesNotContain("\n");
  }

  @Test
  void aLaterMigrationAppliesOnTopOfVersionOneAndAnOlderJarRefusesTheResult() {
    PostgresQueueOptions options = prefixed("later_");
    SqlMigrationSet later = PostgresMigrations.SET.plus("later-migrations/V2__jobs_by_creation.sql");
    assertThat(PostgresMigrations.migrate(db().dataSource, options)).isZero();
    assertThat(PostgresMigrations.migrate(db().dataSource, options, later)).isEqualTo(1);
    assertThat(db().strings("SELECT version || ' ' || script || ' ' || checksum FROM " + options.sql("schema_version")
        + " ORDER BY version")).containsExactly("1 V1__queue.sql " + shipped("migrations/V1__queue.sql"),
            "2 V2__jobs_by_creation.sql " + shipped("later-migrations/V2__jobs_by_creation.sql"));
    assertThat(db().strings("SELECT indexname FROM pg_indexes WHERE schemaname = '" + db().schema
        + "' AND indexname = 'later_jobs_by_creation'")).hasSize(1);
    assertThat(PostgresMigrations.migrate(db().dataSource, options, later)).isEqualTo(2);
    assertThatThrownBy(() -> PostgresMigrations.migrate(db().dataSource, options))
        .isExactlyInstanceOf(QueueStoreException.class).hasMessage("tables " + db().schema + ".later_* are at"
            + " version 2, newer than this ci-postgres (1); upgrade the library");

    // A gap in the recorded versions is refused too.
    db().exec("DELETE FROM " + options.sql("schema_version") + " WHERE version = 1");
    assertThatThrownBy(() -> PostgresMigrations.migrate(db().dataSource, options, later))
        .isExactlyInstanceOf(QueueStoreException.class).hasMessageStartingWith(db().schema + ".later_schema_version"
            + " records version 2 but not version 1, so the migrations of tables " + db().schema + ".later_* were not"
            + " applied by this migrator; drop them");
  }

  @Test
  void tablesOfTheWholePreReleaseChainAreRefusedAndCanBeAdoptedAsDocumented() {
    PostgresQueueOptions options = prefixed("pre13_");
    LegacyChains.applyQueue(db().dataSource, options, 13);
    String table = options.display("schema_version");
    String checksum = shipped("migrations/V1__queue.sql");
    assertThatThrownBy(() -> PostgresMigrations.migrate(db().dataSource, options))
        .isExactlyInstanceOf(QueueStoreException.class).hasMessage("tables " + db().schema + ".pre13_* were created by"
            + " a pre-release schema chain (" + table + " records version 13 of 13 and no checksums), which this"
            + " ci-postgres does not upgrade; drop them (DROP SCHEMA " + db().schema + " CASCADE when the schema holds"
            + " nothing else; otherwise drop its pre13_* tables, domains, function and sequence) and let the store"
            + " create them again, or, since it is at the last pre-release version, adopt it as version 1 as"
            + " docs/postgres.md (\"Schemas from before 0.1.0\") describes, recording checksum " + checksum);
    assertThat(db().longs("SELECT count(*) FROM " + table)).containsExactly(13L);

    // docs/postgres.md, "Schemas from before 0.1.0": the adoption, word for word, after the blocks version 1
    // gained after the squash.
    LegacyChains.applyAddedAfterSquash(db().dataSource, options);
    db().exec("BEGIN;\n"
        + "ALTER TABLE " + table + " ADD COLUMN checksum text;\n"
        + "DELETE FROM " + table + ";\n"
        + "INSERT INTO " + table + " (version, script, checksum) VALUES (1, 'V1__queue.sql', '" + checksum + "');\n"
        + "ALTER TABLE " + table + " ALTER COLUMN checksum SET NOT NULL;\n"
        + "COMMIT;");
    assertThat(PostgresMigrations.migrate(db().dataSource, options)).isEqualTo(1);
    QueueSettings settings = QueueSettings.builder().maxInProgress(1).backfill(false).addBenchmarkGroups("compile")
        .addCollectorTargets(CollectorTarget.required("x86")).build();
    JobQueue queue = JobQueue.of(PostgresQueueStore.create(db().dataSource, options), settings);
    queue.submit(NewRequest.master("sha1", null));
    queue.registerCollector("c1", "x86", true);
    assertThat(queue.tick().started()).hasSize(1);
    assertThat(queue.claim("c1").claims()).hasSize(1);
  }

  @Test
  void tablesOfAnEarlierPreReleaseVersionCanOnlyBeDropped() {
    PostgresQueueOptions options = prefixed("pre3_");
    LegacyChains.applyQueue(db().dataSource, options, 3);
    assertThatThrownBy(() -> PostgresMigrations.migrate(db().dataSource, options))
        .isExactlyInstanceOf(QueueStoreException.class).hasMessage("tables " + db().schema + ".pre3_* were created by"
            + " a pre-release schema chain (" + options.display("schema_version") + " records version 3 of 13 and no"
            + " checksums), which this ci-postgres does not upgrade; drop them (DROP SCHEMA " + db().schema
            + " CASCADE when the schema holds nothing else; otherwise drop its pre3_* tables, domains, function and"
            + " sequence) and let the store create them again");
    assertThat(db().strings("SELECT indexname FROM pg_indexes WHERE schemaname = '" + db().schema
        + "' AND indexname = 'pre3_jobs_affinity'")).hasSize(1); // version 3's index, untouched
    assertThat(db().longs("SELECT count(*) FROM " + options.sql("schema_version"))).containsExactly(3L);
  }

  @Test
  void theMetricHistoryFollowsTheSameRule() {
    String edited = db().schema + "_h_edited";
    PostgresHistoryMigrations.migrate(db().dataSource, edited);
    db().exec("UPDATE " + edited + ".gate_schema_version SET checksum = '" + FAKE + "'");
    String checksum = shipped("history-migrations/V1__metric_history.sql");
    assertThatThrownBy(() -> PostgresMetricHistoryStore.create(db().dataSource, edited))
        .isExactlyInstanceOf(MetricStoreException.class).hasMessage("migration 1 (V1__metric_history.sql) of the"
            + " metric history tables " + edited + ".gate_* was applied with checksum " + FAKE + " (recorded in "
            + edited + ".gate_schema_version) but this ci-postgres ships it with checksum " + checksum
            + ": a migration was edited after it was applied, and the schema may not be what this version expects;"
            + " use the ci-postgres that applied it, or drop them (DROP SCHEMA " + edited + " CASCADE when the schema"
            + " holds nothing else; otherwise drop its gate_* tables) and let the store create them again, or, if"
            + " you have made the schema match the shipped script, record its checksum: UPDATE " + edited
            + ".gate_schema_version SET script = 'V1__metric_history.sql', checksum = '" + checksum
            + "' WHERE version = 1");

    String later = db().schema + "_h_later";
    SqlMigrationSet longer = PostgresHistoryMigrations.SET.plus("later-history-migrations/V2__runs_by_write.sql");
    assertThat(PostgresHistoryMigrations.migrate(db().dataSource, later)).isZero();
    assertThat(PostgresHistoryMigrations.migrate(db().dataSource, later, longer)).isEqualTo(1);
    assertThat(db().strings("SELECT script || ' ' || checksum FROM " + later + ".gate_schema_version WHERE version = 2"))
        .containsExactly("V2__runs_by_write.sql " + shipped("later-history-migrations/V2__runs_by_write.sql"));
    assertThat(PostgresHistoryMigrations.migrate(db().dataSource, later, longer)).isEqualTo(2);
    SqlMigrationSet altered = new SqlMigrationSet("altered-history-migrations", List.of("V1__metric_history.sql"), 2);
    assertThatThrownBy(() -> PostgresHistoryMigrations.migrate(db().dataSource, later, altered.plus(
        "later-history-migrations/V2__runs_by_write.sql"))).isExactlyInstanceOf(MetricStoreException.class)
        .hasMessageContaining("with checksum " + checksum + " (recorded in " + later + ".gate_schema_version) but"
            + " this ci-postgres ships it with checksum " + shipped("altered-history-migrations/V1__metric_history.sql"));

    String pre1 = db().schema + "_h_pre1";
    LegacyChains.applyHistory(db().dataSource, pre1, 1);
    assertThatThrownBy(() -> PostgresHistoryMigrations.migrate(db().dataSource, pre1))
        .isExactlyInstanceOf(MetricStoreException.class).hasMessage("the metric history tables " + pre1 + ".gate_*"
            + " were created by a pre-release schema chain (" + pre1 + ".gate_schema_version records version 1 of 2"
            + " and no checksums), which this ci-postgres does not upgrade; drop them (DROP SCHEMA " + pre1
            + " CASCADE when the schema holds nothing else; otherwise drop its gate_* tables) and let the store"
            + " create them again");

    String pre2 = db().schema + "_h_pre2";
    LegacyChains.applyHistory(db().dataSource, pre2, 2);
    assertThatThrownBy(() -> PostgresHistoryMigrations.migrate(db().dataSource, pre2))
        .hasMessageEndingWith("or, since it is at the last pre-release version, adopt it as version 1 as"
            + " docs/postgres.md (\"Schemas from before 0.1.0\") describes, recording checksum " + checksum);
    String table = pre2 + ".gate_schema_version";
    db().exec("BEGIN;\n"
        + "ALTER TABLE " + table + " ADD COLUMN checksum text;\n"
        + "DELETE FROM " + table + ";\n"
        + "INSERT INTO " + table + " (version, script, checksum) VALUES (1, 'V1__metric_history.sql', '" + checksum
        + "');\n"
        + "ALTER TABLE " + table + " ALTER COLUMN checksum SET NOT NULL;\n"
        + "COMMIT;");
    assertThat(PostgresHistoryMigrations.migrate(db().dataSource, pre2)).isEqualTo(1);
  }
}
