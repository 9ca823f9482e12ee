package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The squash of the pre-release chains into version 1 changed nothing: a schema built by the shipped version 1
 * of both sets has exactly the catalog of one built by the pre-release chains (queue versions 1 to 13 plus the
 * blocks version 1 gained after the squash, metric history versions 1 and 2, {@link LegacyChains}), read from {@code pg_catalog}: relations with their kind and
 * storage options, columns in order with types, defaults, nullability, identity and collation, constraints of
 * tables and domains (names and definitions), indexes, types and domains, functions (whole definitions),
 * triggers, sequences and their owners, rules, policies and comments — and the control row. Each schema holds
 * the queue twice, with the default prefix and with another one, so that a misplaced placeholder shows. The
 * blocks of version 1 added after the squash (job logs) are applied on top of the chain. Only the
 * version tables differ, by design: they are the migrator's, not the migrations'.
 */
class SquashedSchemaTest {

  private static @Nullable PgTestDatabase database;
  private static final List<String> PREFIXES = List.of("queue_", "alpha_");

  private static PgTestDatabase db() {
    PgTestDatabase d = database;
    assertThat(d).isNotNull();
    return java.util.Objects.requireNonNull(d);
  }

  @BeforeAll
  static void open() {
    database = PgTestDatabase.open("squash", 2);
  }

  @AfterAll
  static void close() {
    PgTestDatabase d = database;
    if (d != null) {
      for (String suffix : List.of("_chain", "_v1", "_edited")) {
        d.exec("DROP SCHEMA IF EXISTS " + d.schema + suffix + " CASCADE");
      }
      d.close();
    }
  }

  @Test
  void versionOneBuildsExactlyTheSchemaOfThePreReleaseChains() {
    String chain = db().schema + "_chain";
    String squashed = db().schema + "_v1";
    for (String prefix : PREFIXES) {
      LegacyChains.applyQueue(db().dataSource, PostgresQueueOptions.inSchema(chain).withTablePrefix(prefix),
          LegacyChains.QUEUE.size());
      LegacyChains.applyAddedAfterSquash(db().dataSource, PostgresQueueOptions.inSchema(chain).withTablePrefix(prefix));
      assertThat(PostgresMigrations.migrate(db().dataSource, PostgresQueueOptions.inSchema(squashed)
          .withTablePrefix(prefix))).isZero();
    }
    LegacyChains.applyHistory(db().dataSource, chain, LegacyChains.HISTORY.size());
    assertThat(PostgresHistoryMigrations.migrate(db().dataSource, squashed)).isZero();

    List<String> expected = catalog(chain);
    List<String> actual = catalog(squashed);
    // The snapshot sees every kind of object both sets create, so an equal snapshot says something.
    assertThat(expected).anyMatch(l -> l.startsWith("domain queue_plain_name"))
        .anyMatch(l -> l.startsWith("domain alpha_micros"))
        .anyMatch(l -> l.startsWith("constraint domain alpha_plain_name name_plain"))
        .anyMatch(l -> l.startsWith("constraint queue_jobs job_finished_at_iff_terminal c CHECK"))
        .anyMatch(l -> l.startsWith("constraint queue_held_devices queue_held_devices_job_id_fkey f FOREIGN KEY"))
        .anyMatch(l -> l.startsWith("constraint gate_runs gate_runs_identity_complete"))
        .anyMatch(l -> l.startsWith("column queue_jobs 20 timeout_micros <schema>.queue_micros notnull default 0"))
        .anyMatch(l -> l.startsWith("index gate_runs_ci_identity CREATE UNIQUE INDEX"))
        .anyMatch(l -> l.startsWith("index alpha_requests_history"))
        .anyMatch(l -> l.startsWith("function alpha_list_queued_job CREATE OR REPLACE FUNCTION"))
        .anyMatch(l -> l.startsWith("trigger alpha_jobs_list_requeued CREATE TRIGGER"))
        .anyMatch(l -> l.startsWith("sequence queue_lease_tokens bigint"))
        .anyMatch(l -> l.startsWith("owned queue_jobs_id_seq by queue_jobs.id"))
        .anyMatch(l -> l.equals("relation queue_leases kind r persistence p options fillfactor=70,"
            + "autovacuum_vacuum_scale_factor=0,autovacuum_vacuum_threshold=5000,autovacuum_vacuum_cost_delay=0"))
        .anyMatch(l -> l.equals("row alpha_control 1"))
        .noneMatch(l -> l.contains("schema_version"));
    assertThat(actual).containsExactlyElementsOf(expected);
  }

  @Test
  void theSnapshotSeesAChangedConstraintDefaultOrFunction() {
    String edited = db().schema + "_edited";
    PostgresMigrations.migrate(db().dataSource, PostgresQueueOptions.inSchema(edited));
    List<String> before = catalog(edited);
    db().exec("ALTER TABLE " + edited + ".queue_jobs DROP CONSTRAINT job_attempt_not_negative,"
        + " ADD CONSTRAINT job_attempt_not_negative CHECK (attempt >= -1)");
    List<String> constraint = catalog(edited);
    assertThat(constraint).isNotEqualTo(before);
    db().exec("ALTER TABLE " + edited + ".queue_jobs ALTER COLUMN gpus SET DEFAULT 1");
    assertThat(catalog(edited)).isNotEqualTo(constraint);
    List<String> defaulted = catalog(edited);
    db().exec("ALTER TABLE " + edited + ".queue_leases RESET (autovacuum_vacuum_cost_delay)");
    assertThat(catalog(edited)).isNotEqualTo(defaulted);
    List<String> reset = catalog(edited);
    db().exec("CREATE OR REPLACE FUNCTION " + edited + ".queue_list_queued_job() RETURNS trigger LANGUAGE plpgsql"
        + " AS $fn$ BEGIN RETURN NULL; END $fn$");
    assertThat(catalog(edited)).isNotEqualTo(reset);
  }

  /**
   * The catalog of a schema as sorted lines, the schema's name replaced by {@code <schema>}, the version tables
   * left out.
   */
  private static List<String> catalog(String schema) {
    List<String> lines = new ArrayList<>();
    String notVersion = " NOT LIKE '%schema_version%'";
    lines.addAll(query(schema, "SELECT 'relation ' || c.relname || ' kind ' || c.relkind::text || ' persistence '"
        + " || c.relpersistence::text || ' options ' || coalesce(array_to_string(c.reloptions, ','), '-')"
        + " || CASE WHEN c.relrowsecurity THEN ' row security' ELSE '' END"
        + " FROM pg_class c WHERE c.relnamespace = ?::regnamespace AND c.relname" + notVersion));
    lines.addAll(query(schema, "SELECT 'column ' || c.relname || ' ' || a.attnum || ' ' || a.attname || ' '"
        + " || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' notnull' ELSE '' END"
        + " || ' default ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '-') || ' identity ' || a.attidentity::text"
        + " || ' generated ' || a.attgenerated::text || ' storage ' || a.attstorage::text || ' collation '"
        + " || coalesce((SELECT collname FROM pg_collation WHERE oid = a.attcollation), '-')"
        + " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
        + " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
        + " WHERE c.relnamespace = ?::regnamespace AND a.attnum > 0 AND NOT a.attisdropped AND c.relname"
        + notVersion));
    lines.addAll(query(schema, "SELECT 'constraint ' || coalesce(c.relname, 'domain ' || t.typname) || ' '"
        + " || k.conname || ' ' || k.contype::text || ' ' || pg_get_constraintdef(k.oid)"
        + " || ' deferrable ' || k.condeferrable || ' deferred ' || k.condeferred || ' validated ' || k.convalidated"
        + " || ' local ' || k.conislocal || ' noinherit ' || k.connoinherit"
        + " || ' index ' || coalesce((SELECT relname FROM pg_class WHERE oid = k.conindid), '-')"
        + " FROM pg_constraint k LEFT JOIN pg_class c ON c.oid = k.conrelid LEFT JOIN pg_type t ON t.oid = k.contypid"
        + " WHERE k.connamespace = ?::regnamespace AND coalesce(c.relname, '')" + notVersion));
    lines.addAll(query(schema, "SELECT 'index ' || c.relname || ' ' || pg_get_indexdef(i.indexrelid)"
        + " || ' primary ' || i.indisprimary || ' immediate ' || i.indimmediate || ' clustered ' || i.indisclustered"
        + " || ' valid ' || i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
        + " WHERE c.relnamespace = ?::regnamespace AND c.relname" + notVersion));
    lines.addAll(query(schema, "SELECT CASE WHEN t.typtype = 'd' THEN 'domain ' ELSE 'type ' END || t.typname"
        + " || ' ' || t.typtype::text || ' base ' || CASE WHEN t.typbasetype = 0 THEN '-'"
        + " ELSE format_type(t.typbasetype, t.typtypmod) END || CASE WHEN t.typnotnull THEN ' notnull' ELSE '' END"
        + " || ' default ' || coalesce(t.typdefault, '-') || ' collation '"
        + " || coalesce((SELECT collname FROM pg_collation WHERE oid = t.typcollation), '-')"
        + " FROM pg_type t WHERE t.typnamespace = ?::regnamespace AND t.typname" + notVersion));
    lines.addAll(query(schema, "SELECT 'function ' || p.proname || ' ' || pg_get_functiondef(p.oid)"
        + " FROM pg_proc p WHERE p.pronamespace = ?::regnamespace"));
    lines.addAll(query(schema, "SELECT 'trigger ' || t.tgname || ' ' || pg_get_triggerdef(t.oid) || ' enabled '"
        + " || t.tgenabled::text FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
        + " WHERE c.relnamespace = ?::regnamespace AND NOT t.tgisinternal"));
    lines.addAll(query(schema, "SELECT 'sequence ' || c.relname || ' ' || format_type(s.seqtypid, NULL) || ' start '"
        + " || s.seqstart || ' increment ' || s.seqincrement || ' min ' || s.seqmin || ' max ' || s.seqmax"
        + " || ' cache ' || s.seqcache || ' cycle ' || s.seqcycle"
        + " FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid WHERE c.relnamespace = ?::regnamespace"));
    lines.addAll(query(schema, "SELECT 'owned ' || c.relname || ' by ' || r.relname || '.' || a.attname"
        + " || ' ' || d.deptype::text FROM pg_depend d JOIN pg_class c ON c.oid = d.objid"
        + " JOIN pg_class r ON r.oid = d.refobjid JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum = d.refobjsubid"
        + " WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND c.relkind = 'S'"
        + " AND c.relnamespace = ?::regnamespace"));
    lines.addAll(query(schema, "SELECT 'rule ' || rulename || ' ' || definition FROM pg_rules"
        + " WHERE schemaname = ?"));
    lines.addAll(query(schema, "SELECT 'policy ' || tablename || ' ' || policyname || ' ' || cmd || ' '"
        + " || coalesce(qual, '-') || ' ' || coalesce(with_check, '-') FROM pg_policies WHERE schemaname = ?"));
    lines.addAll(query(schema, "SELECT 'comment ' || c.relname || ' ' || d.objsubid || ' ' || d.description"
        + " FROM pg_description d JOIN pg_class c ON c.oid = d.objoid AND d.classoid = 'pg_class'::regclass"
        + " WHERE c.relnamespace = ?::regnamespace"));
    for (String prefix : PREFIXES) {
      if (!query(schema, "SELECT c.relname FROM pg_class c WHERE c.relnamespace = ?::regnamespace AND c.relname = '"
          + prefix + "control'").isEmpty()) {
        lines.addAll(query(schema, "SELECT 'row " + prefix + "control ' || id FROM \"" + schema + "\"." + prefix
            + "control WHERE ?::text IS NOT NULL"));
      }
    }
    return lines.stream().map(l -> l.replace(schema, "<schema>")).sorted().toList();
  }

  private static List<String> query(String schema, String sql) {
    List<String> out = new ArrayList<>();
    try (Connection c = db().dataSource.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
      st.setString(1, schema);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
    return out;
  }
}
