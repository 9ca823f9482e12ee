package dev.cipolicy.postgres;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.gate.CiRunIdentity;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.CoordinateHistory;
import dev.cipolicy.gate.HistorySample;
import dev.cipolicy.gate.MetricHistoryStore;
import dev.cipolicy.gate.MetricStoreException;
import dev.cipolicy.gate.MetricStoreUnavailableException;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.Revocation;
import dev.cipolicy.gate.RevocationResult;
import dev.cipolicy.gate.RunId;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.Sample;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.gate.WriteResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL {@link MetricHistoryStore}: baseline runs and their values in tables of a host-chosen schema,
 * over plain JDBC on a host-supplied {@link DataSource}. Every method is one transaction of prepared
 * statements, so any number of processes may share a schema.
 *
 * <pre>{@code
 * MetricHistoryStore store = PostgresMetricHistoryStore.create(dataSource, "ci_gate"); // creates/migrates
 * GateHook hook = GateHook.of(store, GateEvaluator.of(GateOptions.defaults()), Clock.systemUTC());
 * }</pre>
 *
 * <ul>
 *   <li>Tables (docs/postgres.md): {@code gate_series}, {@code gate_coordinates}, {@code gate_runs},
 *       {@code gate_values}, {@code gate_level_starts}, versioned by {@link PostgresHistoryMigrations}.
 *   <li>{@link #read} is one statement for all wanted coordinates: per coordinate, a backward scan of the
 *       partial index {@code gate_values_newest_trusted} (trusted values of unrevoked runs) and of
 *       {@code gate_values_newest}, each stopping at its limit and at an accepted level shift.
 *   <li>{@link #write} is all or nothing: series, coordinates, run and values in one transaction. A deadlock
 *       or serialization failure re-runs the whole transaction (the run then gets a later id). A run of an
 *       identified CI run is inserted {@code ON CONFLICT DO NOTHING} against the unique index
 *       {@code gate_runs_ci_identity} (series, repository, run id), so a retried write stores nothing new and
 *       reports the run stored first, even when the first write committed but its acknowledgement was lost.
 *   <li>{@link #revoke} locks the matching runs ({@code FOR UPDATE}, in id order), so two stores revoking at
 *       once count each run once; {@link #acceptLevelShift} locks its runs {@code FOR SHARE}, so a run revoked
 *       meanwhile is refused.
 *   <li>Times keep their nanoseconds (a run: {@code created_at} to the microsecond for operators plus
 *       {@code created_nano}; its values and level starts: epoch seconds plus {@code created_nano}); a run's
 *       time must lie in years 1 to 9999. Strings must be storable as PostgreSQL text (no NUL character, no
 *       unpaired surrogate); such a run is refused, and a read or revocation that names such a string finds
 *       nothing, since nothing can have been stored under it.
 * </ul>
 *
 * <p>Errors: input that names nothing or cannot be stored throws {@link InvalidInputException}; a database
 * that cannot be reached (no connection, or the connection lost) throws {@link MetricStoreUnavailableException},
 * saying whether the change may have been committed; any other database failure throws
 * {@link MetricStoreException} with the operation, schema and SQLSTATE; a row that no sequence of operations
 * produces (edited by hand) throws {@link MetricStoreException} naming the table and row. The store runs on the
 * same transaction runner as {@link PostgresQueueStore}: the same retries (deadlocks and serialization failures
 * re-run the transaction), the same handling of a lost connection.
 */
public final class PostgresMetricHistoryStore implements MetricHistoryStore {

  /** The earliest run time the store keeps. */
  public static final Instant MIN_TIME = Instant.parse("0001-01-01T00:00:00Z");
  /** The latest run time the store keeps. */
  public static final Instant MAX_TIME = Instant.parse("9999-12-31T23:59:59.999999999Z");

  private static final int HISTORY_FETCH_SIZE = 1000;
  /** Newest first: latest time, ties by the later write (the larger id). */
  private static final Comparator<HistorySample> NEWEST_FIRST = Comparator.comparing(HistorySample::createdAt)
      .thenComparingLong(h -> h.runId().value()).reversed();

  private final PgTransactions transactions;
  private final String schema;
  private final String seriesTable;
  private final String coordinatesTable;
  private final String runsTable;
  private final String valuesTable;
  private final String levelStartsTable;
  private final String readSql;

  private PostgresMetricHistoryStore(DataSource dataSource, String schema) {
    need(dataSource, "a PostgreSQL metric history store needs a DataSource");
    this.schema = PostgresHistoryMigrations.validSchema(schema);
    this.transactions = new PgTransactions(dataSource, PgTransactions.Policy.standard(),
        f -> exception(schema, f.operation(), f));
    String s = '"' + schema + '"';
    this.seriesTable = s + ".gate_series";
    this.coordinatesTable = s + ".gate_coordinates";
    this.runsTable = s + ".gate_runs";
    this.valuesTable = s + ".gate_values";
    this.levelStartsTable = s + ".gate_level_starts";
    this.readSql = readSql();
  }

  /**
   * A store on a schema whose metric history tables are migrated to the latest version first (creating the
   * schema if needed).
   *
   * @param dataSource the database; the store borrows one connection per operation and returns it
   * @param schema the schema name, a plain lower-case identifier
   * @return the store
   * @throws InvalidInputException when the schema name is not a plain identifier
   * @throws MetricStoreUnavailableException when the database cannot be reached
   * @throws MetricStoreException when the migration fails otherwise
   */
  public static PostgresMetricHistoryStore create(DataSource dataSource, String schema) {
    PostgresHistoryMigrations.migrate(dataSource, schema);
    return new PostgresMetricHistoryStore(dataSource, schema);
  }

  /**
   * A store on a schema that is already migrated; runs no DDL and does not connect.
   *
   * @param dataSource the database
   * @param schema the schema name
   * @return the store
   * @throws InvalidInputException when the schema name is not a plain identifier
   */
  public static PostgresMetricHistoryStore attach(DataSource dataSource, String schema) {
    return new PostgresMetricHistoryStore(dataSource, schema);
  }

  /**
   * The schema this store works in.
   *
   * @return the schema name
   */
  public String schema() {
    return schema;
  }

  // ----------------------------------------------------------------------------------------------- reading

  /**
   * The read: the wanted coordinates' ids and level starts, then per coordinate two bounded backward index
   * scans. Rows come unordered (ordering ≤ 22 rows per coordinate is the client's cheaper job).
   */
  private String readSql() {
    String lateral = " FROM " + valuesTable + " v WHERE v.coordinate_id = w.id AND NOT v.revoked%s"
        + " AND (v.created_s, v.created_nano, v.run_id) >= (w.from_s, w.from_nano, w.from_run)"
        + " ORDER BY v.created_s DESC, v.created_nano DESC, v.run_id DESC LIMIT ?";
    return "WITH w AS (SELECT c.id, u.ord, coalesce(l.created_s, CAST(" + (Long.MIN_VALUE + 1)
        + " AS bigint)) AS from_s,"
        + " coalesce(l.created_nano, 0) AS from_nano, coalesce(l.run_id, 0) AS from_run"
        + " FROM unnest(?::text[], ?::text[], ?::text[], ?::int[]) WITH ORDINALITY AS u(metric_key, steps_key,"
        + " constraint_key, step, ord)"
        + " JOIN " + coordinatesTable + " c ON c.series_id = (SELECT s.id FROM " + seriesTable + " s"
        + " WHERE s.test_path = ? AND s.backend = ? AND s.suite = ?) AND c.metric_key = u.metric_key"
        + " AND c.steps_key = u.steps_key AND c.constraint_key = u.constraint_key AND c.step = u.step"
        + " LEFT JOIN " + levelStartsTable + " l ON l.coordinate_id = c.id)"
        + " SELECT w.ord, true AS baseline, t.run_id, t.created_s, t.created_nano, t.value, true AS trusted"
        + " FROM w CROSS JOIN LATERAL (SELECT v.run_id, v.created_s, v.created_nano, v.value"
        + String.format(lateral, " AND v.trusted") + ") t"
        + " UNION ALL"
        + " SELECT w.ord, false, r.run_id, r.created_s, r.created_nano, r.value, r.trusted"
        + " FROM w CROSS JOIN LATERAL (SELECT v.run_id, v.created_s, v.created_nano, v.value, v.trusted"
        + String.format(lateral, "") + ") r";
  }

  private void bindRead(Connection c, PreparedStatement st, SeriesKey series, List<Coordinate> wanted,
      int trustedLimit, int recentLimit) throws SQLException {
    st.setArray(1, c.createArrayOf("text", wanted.stream().map(Coordinate::metricKey).toArray()));
    st.setArray(2, c.createArrayOf("text", wanted.stream().map(Coordinate::stepsKey).toArray()));
    st.setArray(3, c.createArrayOf("text", wanted.stream().map(Coordinate::constraintKey).toArray()));
    st.setArray(4, c.createArrayOf("int4", wanted.stream().map(Coordinate::step).toArray()));
    st.setString(5, series.testPath());
    st.setString(6, series.backend());
    st.setString(7, series.suite());
    st.setInt(8, Math.max(0, trustedLimit));
    // at least one row of any trust, so that a coordinate with visible values is reported even at limit 0
    st.setInt(9, Math.max(1, recentLimit));
  }

  @Override
  public Map<Coordinate, CoordinateHistory> read(SeriesKey series, Set<Coordinate> coordinates, int trustedLimit,
      int recentLimit) {
    need(series, "a read needs a series");
    need(coordinates, "a read needs a set of coordinates");
    List<Coordinate> wanted = new ArrayList<>();
    for (Coordinate c : coordinates) {
      need(c, "the coordinates to read must not contain null");
      if (storable(c)) { // anything else cannot have been written
        wanted.add(c);
      }
    }
    if (wanted.isEmpty() || !storable(series)) {
      return new LinkedHashMap<>();
    }
    return tx("read the history of " + series, c -> {
      List<List<HistorySample>> trusted = new ArrayList<>();
      List<@Nullable List<HistorySample>> recent = new ArrayList<>();
      for (int i = 0; i < wanted.size(); i++) {
        trusted.add(new ArrayList<>());
        recent.add(null);
      }
      try (PreparedStatement st = c.prepareStatement(readSql)) {
        bindRead(c, st, series, wanted, trustedLimit, recentLimit);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            int at = rs.getInt(1) - 1;
            HistorySample sample = sample(rs, 3, wanted.get(at));
            if (rs.getBoolean(2)) {
              trusted.get(at).add(sample);
            } else {
              List<HistorySample> r = recent.get(at);
              if (r == null) {
                r = new ArrayList<>();
                recent.set(at, r);
              }
              r.add(sample);
            }
          }
        }
      }
      Map<Coordinate, CoordinateHistory> out = new LinkedHashMap<>();
      for (int i = 0; i < wanted.size(); i++) {
        List<HistorySample> r = recent.get(i);
        if (r != null) { // the coordinate has at least one visible value
          List<HistorySample> t = trusted.get(i);
          t.sort(NEWEST_FIRST);
          r.sort(NEWEST_FIRST);
          out.put(wanted.get(i), new CoordinateHistory(t, r.subList(0, Math.min(r.size(), Math.max(0, recentLimit)))));
        }
      }
      return out;
    });
  }

  /**
   * The plan PostgreSQL chooses for {@link #read} with these arguments ({@code EXPLAIN} of the same
   * statement), for tests and operators.
   *
   * @param series the series
   * @param coordinates the coordinates
   * @param trustedLimit the trusted limit
   * @param recentLimit the recent limit
   * @return the plan, one line per node
   */
  String explainRead(SeriesKey series, List<Coordinate> coordinates, int trustedLimit, int recentLimit) {
    return tx("explain a read", c -> {
      StringBuilder plan = new StringBuilder();
      try (PreparedStatement st = c.prepareStatement("EXPLAIN " + readSql)) {
        bindRead(c, st, series, coordinates, trustedLimit, recentLimit);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            plan.append(rs.getString(1)).append('\n');
          }
        }
      }
      return plan.toString();
    });
  }

  @Override
  public List<HistorySample> history(SeriesKey series, Coordinate coordinate) {
    need(series, "a history needs a series");
    need(coordinate, "a history needs a coordinate");
    if (!storable(series) || !storable(coordinate)) {
      return List.of();
    }
    return tx("read the full history of " + coordinate + " in " + series, c -> {
      List<HistorySample> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement("SELECT v.run_id, v.created_s, v.created_nano, v.value,"
          + " v.trusted FROM " + valuesTable + " v JOIN " + coordinatesTable + " c ON c.id = v.coordinate_id"
          + " JOIN " + seriesTable + " s ON s.id = c.series_id"
          + " WHERE s.test_path = ? AND s.backend = ? AND s.suite = ? AND c.metric_key = ? AND c.steps_key = ?"
          + " AND c.constraint_key = ? AND c.step = ? AND NOT v.revoked"
          + " ORDER BY v.created_s, v.created_nano, v.run_id")) {
        setSeries(st, 1, series);
        setCoordinate(st, 4, coordinate);
        st.setFetchSize(HISTORY_FETCH_SIZE);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            out.add(sample(rs, 1, coordinate));
          }
        }
      }
      return out;
    });
  }

  @Override
  public List<Coordinate> coordinates(SeriesKey series) {
    need(series, "listing coordinates needs a series");
    if (!storable(series)) {
      return List.of();
    }
    return tx("list the coordinates of " + series, c -> {
      List<Coordinate> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement("SELECT c.id, c.metric_key, c.steps_key, c.constraint_key,"
          + " c.step FROM " + coordinatesTable + " c JOIN " + seriesTable + " s ON s.id = c.series_id"
          + " WHERE s.test_path = ? AND s.backend = ? AND s.suite = ? ORDER BY c.first_run_id, c.first_ord, c.id")) {
        setSeries(st, 1, series);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            long id = rs.getLong(1);
            out.add(row("gate_coordinates", "id = " + id, () -> new Coordinate(rs.getString(2), rs.getString(3),
                rs.getString(4), rs.getInt(5))));
          }
        }
      }
      return out;
    });
  }

  // ----------------------------------------------------------------------------------------------- writing

  @Override
  public WriteResult write(RunRecord run) {
    if (run == null) {
      throw new InvalidInputException("a run to write must not be null");
    }
    checkStorable(run);
    List<Sample> samples = run.samples();
    // coordinates are inserted in key order, so that concurrent first writes lock them in one order
    List<Integer> keyOrder = new ArrayList<>();
    for (int i = 0; i < samples.size(); i++) {
      keyOrder.add(i);
    }
    Comparator<Coordinate> byKey = Comparator.comparing(Coordinate::metricKey).thenComparing(Coordinate::stepsKey)
        .thenComparing(Coordinate::constraintKey).thenComparingInt(Coordinate::step);
    keyOrder.sort((a, b) -> byKey.compare(samples.get(a).coordinate(), samples.get(b).coordinate()));
    Instant at = run.createdAt();
    Optional<CiRunIdentity> identity = run.provenance().identity();
    return tx("write a run of " + run.series(), c -> {
      long seriesId = seriesId(c, run.series());
      long runId;
      // ON CONFLICT DO NOTHING: the only unique index a new row can violate is gate_runs_ci_identity, so an
      // identified CI run that already wrote this series (committed, or committing concurrently) inserts nothing
      try (PreparedStatement st = c.prepareStatement("INSERT INTO " + runsTable + " (series_id, ci_run_id,"
          + " commit_sha, cadence, created_at, created_nano, trusted, ci_repository, ci_attempt)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id")) {
        Provenance p = run.provenance();
        st.setLong(1, seriesId);
        PgValues.setText(st, 2, p.ciRunId());
        PgValues.setText(st, 3, p.commit());
        PgValues.setText(st, 4, p.cadence());
        PgValues.setInstant(st, 5, at); // the microseconds; the nano-of-second goes to created_nano
        // created_nano, the nanosecond of the second, orders runs within one microsecond.
        @SuppressWarnings("JavaInstantGetSecondsGetNano")
        int createdNano = at.getNano();
        st.setInt(6, createdNano);
        st.setBoolean(7, run.trusted());
        PgValues.setText(st, 8, identity.flatMap(CiRunIdentity::repository));
        if (identity.isPresent()) {
          st.setInt(9, identity.get().attempt());
        } else {
          st.setNull(9, Types.INTEGER);
        }
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            return duplicate(c, seriesId, identity.orElseThrow());
          }
          runId = rs.getLong(1);
        }
      }
      if (samples.isEmpty()) {
        return WriteResult.stored(new RunId(runId));
      }
      try (PreparedStatement st = c.prepareStatement("INSERT INTO " + coordinatesTable + " (series_id, metric_key,"
          + " steps_key, constraint_key, step, first_run_id, first_ord)"
          + " SELECT ?, u.metric_key, u.steps_key, u.constraint_key, u.step, ?, u.first_ord"
          + " FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::int[]) WITH ORDINALITY"
          + " AS u(metric_key, steps_key, constraint_key, step, first_ord, pos)"
          + " ORDER BY u.pos ON CONFLICT ON CONSTRAINT gate_coordinates_key DO NOTHING")) {
        st.setLong(1, seriesId);
        st.setLong(2, runId);
        st.setArray(3, c.createArrayOf("text", keyOrder.stream().map(i -> samples.get(i).coordinate().metricKey())
            .toArray()));
        st.setArray(4, c.createArrayOf("text", keyOrder.stream().map(i -> samples.get(i).coordinate().stepsKey())
            .toArray()));
        st.setArray(5, c.createArrayOf("text", keyOrder.stream()
            .map(i -> samples.get(i).coordinate().constraintKey()).toArray()));
        st.setArray(6, c.createArrayOf("int4", keyOrder.stream().map(i -> samples.get(i).coordinate().step())
            .toArray()));
        st.setArray(7, c.createArrayOf("int4", keyOrder.toArray()));
        st.executeUpdate();
      }
      try (PreparedStatement st = c.prepareStatement("INSERT INTO " + valuesTable + " (run_id, coordinate_id, value,"
          + " trusted, created_s, created_nano)"
          + " SELECT ?, c.id, u.value, u.trusted, ?, ?"
          + " FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::float8[], ?::boolean[])"
          + " AS u(metric_key, steps_key, constraint_key, step, value, trusted)"
          + " JOIN " + coordinatesTable + " c ON c.series_id = ? AND c.metric_key = u.metric_key"
          + " AND c.steps_key = u.steps_key AND c.constraint_key = u.constraint_key AND c.step = u.step")) {
        st.setLong(1, runId);
        st.setLong(2, at.getEpochSecond());
        st.setInt(3, at.getNano());
        st.setArray(4, c.createArrayOf("text", samples.stream().map(s -> s.coordinate().metricKey()).toArray()));
        st.setArray(5, c.createArrayOf("text", samples.stream().map(s -> s.coordinate().stepsKey()).toArray()));
        st.setArray(6, c.createArrayOf("text", samples.stream().map(s -> s.coordinate().constraintKey()).toArray()));
        st.setArray(7, c.createArrayOf("int4", samples.stream().map(s -> s.coordinate().step()).toArray()));
        st.setArray(8, c.createArrayOf("float8", samples.stream().map(Sample::value).toArray()));
        st.setArray(9, c.createArrayOf("bool", samples.stream().map(Sample::trusted).toArray()));
        st.setLong(10, seriesId);
        int inserted = st.executeUpdate();
        if (inserted != samples.size()) { // rolled back by tx: nothing of the run stays
          throw new MetricStoreException("writing run " + runId + " of " + run.series() + " stored " + inserted
              + " of its " + samples.size() + " values; a coordinate row of " + schema
              + ".gate_coordinates is missing (deleted by hand?); nothing was written",
              new IllegalStateException("inserted " + inserted + " values, expected " + samples.size()));
        }
      }
      return WriteResult.stored(new RunId(runId));
    });
  }

  /** The run an identified CI run stored first for a series, which a duplicate write reports. */
  private static WriteResult duplicateOf(long id, Optional<String> repository, String runId, int attempt) {
    return WriteResult.duplicate(new RunId(id), new CiRunIdentity(repository, runId, attempt));
  }

  private WriteResult duplicate(Connection c, long seriesId, CiRunIdentity identity) throws SQLException {
    // READ COMMITTED: this statement sees the row whose committed insert made ours do nothing
    try (PreparedStatement q = c.prepareStatement("SELECT id, ci_repository, ci_run_id, ci_attempt FROM " + runsTable
        + " WHERE series_id = ? AND coalesce(ci_repository, '') = ? AND ci_run_id = ? AND ci_attempt IS NOT NULL")) {
      q.setLong(1, seriesId);
      q.setString(2, identity.repository().orElse(""));
      q.setString(3, identity.runId());
      try (ResultSet rs = q.executeQuery()) {
        if (!rs.next()) {
          throw PgTransactions.rerun(); // neither inserted nor found: the conflicting writer rolled back
        }
        long id = rs.getLong(1);
        String repository = rs.getString(2);
        String runId = rs.getString(3);
        int attempt = rs.getInt(4);
        return row("gate_runs", "id = " + id, () -> duplicateOf(id, Optional.ofNullable(repository), runId, attempt));
      }
    }
  }

  /** The id of a series, inserted if new; a concurrent insert of the same series is waited for and reused. */
  private long seriesId(Connection c, SeriesKey series) throws SQLException {
    try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + seriesTable + " (test_path, backend, suite)"
        + " VALUES (?, ?, ?) ON CONFLICT ON CONSTRAINT gate_series_key DO NOTHING RETURNING id")) {
      setSeries(ins, 1, series);
      try (ResultSet rs = ins.executeQuery()) {
        if (rs.next()) {
          return rs.getLong(1);
        }
      }
    }
    // READ COMMITTED: this statement sees the row a concurrent transaction committed while the insert waited
    try (PreparedStatement q = c.prepareStatement("SELECT id FROM " + seriesTable
        + " WHERE test_path = ? AND backend = ? AND suite = ?")) {
      setSeries(q, 1, series);
      try (ResultSet rs = q.executeQuery()) {
        if (!rs.next()) {
          throw PgTransactions.rerun(); // neither inserted nor found: a concurrent writer won a race
        }
        return rs.getLong(1);
      }
    }
  }

  // ------------------------------------------------------------------------------------------ revocation

  @Override
  public RevocationResult revoke(Revocation revocation) {
    String where;
    Object key;
    if (revocation instanceof Revocation.ByRunId r) {
      where = "id = ?";
      key = r.runId().value();
    } else if (revocation instanceof Revocation.ByCiRunId r) {
      where = "ci_run_id = ?";
      key = r.ciRunId();
    } else if (revocation instanceof Revocation.ByCommit r) {
      where = "commit_sha = ?";
      key = r.commit();
    } else {
      throw new InvalidInputException("a revocation needs exactly one key");
    }
    if (key instanceof String text && !storable(text)) {
      return new RevocationResult(0, 0, 0); // no run can carry this key
    }
    return tx("revoke " + revocation.describe(), c -> {
      List<Long> fresh = new ArrayList<>();
      int matched = 0;
      try (PreparedStatement st = c.prepareStatement("SELECT id, revoked FROM " + runsTable + " WHERE " + where
          + " ORDER BY id FOR UPDATE")) {
        st.setObject(1, key);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            matched++;
            if (!rs.getBoolean(2)) {
              fresh.add(rs.getLong(1));
            }
          }
        }
      }
      if (fresh.isEmpty()) {
        return new RevocationResult(matched, 0, 0);
      }
      Object[] ids = fresh.toArray();
      try (PreparedStatement st = c.prepareStatement("UPDATE " + runsTable + " SET revoked = true,"
          + " revoked_at = now() WHERE id = ANY(?::bigint[])")) {
        st.setArray(1, c.createArrayOf("int8", ids));
        st.executeUpdate();
      }
      int untrusted;
      try (PreparedStatement st = c.prepareStatement("WITH u AS (UPDATE " + valuesTable + " SET revoked = true"
          + " WHERE run_id = ANY(?::bigint[]) RETURNING trusted) SELECT count(*) FILTER (WHERE trusted) FROM u")) {
        st.setArray(1, c.createArrayOf("int8", ids));
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          untrusted = rs.getInt(1);
        }
      }
      return new RevocationResult(matched, fresh.size(), untrusted);
    });
  }

  // ---------------------------------------------------------------------------------------- level shifts

  private record LevelRun(long id, SeriesKey series, boolean revoked, Instant at, boolean hasSample) {}

  @Override
  public int acceptLevelShift(SeriesKey series, Coordinate coordinate, List<RunId> runs) {
    need(series, "a level shift needs a series");
    need(coordinate, "a level shift needs a coordinate");
    if (runs == null || runs.isEmpty()) {
      throw new InvalidInputException("a level shift needs at least one run");
    }
    for (RunId id : runs) {
      need(id, "the runs of a level shift must not contain null");
    }
    boolean canExist = storable(series) && storable(coordinate);
    return tx("accept a level shift of " + coordinate + " in " + series, c -> {
      Long coordinateId = canExist ? coordinateId(c, series, coordinate) : null;
      Map<Long, LevelRun> found = new HashMap<>();
      try (PreparedStatement st = c.prepareStatement("SELECT r.id, s.test_path, s.backend, s.suite, r.revoked,"
          + " r.created_at, r.created_nano, v.run_id IS NOT NULL FROM " + runsTable + " r JOIN " + seriesTable
          + " s ON s.id = r.series_id LEFT JOIN " + valuesTable + " v ON v.run_id = r.id AND v.coordinate_id = ?"
          + " WHERE r.id = ANY(?::bigint[]) ORDER BY r.id FOR SHARE OF r")) {
        if (coordinateId == null) {
          st.setNull(1, Types.BIGINT);
        } else {
          st.setLong(1, coordinateId);
        }
        st.setArray(2, c.createArrayOf("int8", runs.stream().map(RunId::value).toArray()));
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            long id = rs.getLong(1);
            String rowKey = "id = " + id;
            SeriesKey s = row("gate_series", "of run " + id,
                () -> new SeriesKey(rs.getString(2), rs.getString(3), rs.getString(4)));
            found.put(id, new LevelRun(id, s, rs.getBoolean(5), instant(rs, 6, "gate_runs", rowKey),
                rs.getBoolean(8)));
          }
        }
      }
      LevelRun first = null;
      for (RunId id : runs) { // checked in the caller's order, as the in-memory store does
        LevelRun r = found.get(id.value());
        if (r == null) {
          throw new InvalidInputException("no run with id " + id);
        }
        if (!r.series().equals(series)) {
          throw new InvalidInputException("run " + id + " belongs to " + r.series() + ", not " + series);
        }
        if (!r.hasSample()) {
          throw new InvalidInputException("run " + id + " has no sample at " + coordinate);
        }
        if (r.revoked()) {
          throw new InvalidInputException("run " + id + " is revoked; a revoked run cannot make a new level");
        }
        if (first == null || r.at().compareTo(first.at()) < 0
            || (r.at().equals(first.at()) && r.id() < first.id())) {
          first = r;
        }
      }
      long cid = Objects.requireNonNull(coordinateId); // a run had a sample there, so the coordinate exists
      int newlyTrusted;
      try (PreparedStatement st = c.prepareStatement("UPDATE " + valuesTable + " SET trusted = true"
          + " WHERE coordinate_id = ? AND run_id = ANY(?::bigint[]) AND NOT trusted")) {
        st.setLong(1, cid);
        st.setArray(2, c.createArrayOf("int8", runs.stream().map(RunId::value).toArray()));
        newlyTrusted = st.executeUpdate();
      }
      LevelRun start = Objects.requireNonNull(first);
      try (PreparedStatement st = c.prepareStatement("INSERT INTO " + levelStartsTable + " AS l (coordinate_id,"
          + " run_id, created_s, created_nano) VALUES (?, ?, ?, ?) ON CONFLICT (coordinate_id) DO UPDATE"
          + " SET run_id = excluded.run_id, created_s = excluded.created_s, created_nano = excluded.created_nano"
          + " WHERE (excluded.created_s, excluded.created_nano, excluded.run_id)"
          + " > (l.created_s, l.created_nano, l.run_id)")) {
        st.setLong(1, cid);
        st.setLong(2, start.id());
        Instant startAt = start.at();
        st.setLong(3, startAt.getEpochSecond());
        st.setInt(4, startAt.getNano());
        st.executeUpdate();
      }
      return newlyTrusted;
    });
  }

  private @Nullable Long coordinateId(Connection c, SeriesKey series, Coordinate coordinate) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT c.id FROM " + coordinatesTable + " c JOIN " + seriesTable
        + " s ON s.id = c.series_id WHERE s.test_path = ? AND s.backend = ? AND s.suite = ? AND c.metric_key = ?"
        + " AND c.steps_key = ? AND c.constraint_key = ? AND c.step = ?")) {
      setSeries(st, 1, series);
      setCoordinate(st, 4, coordinate);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }

  // --------------------------------------------------------------------------------------------- helpers

  private static void need(@Nullable Object value, String message) {
    if (value == null) {
      throw new InvalidInputException(message);
    }
  }

  /** Refuses, before anything is written, what PostgreSQL cannot store exactly. */
  private static void checkStorable(RunRecord run) {
    if (!storable(run.series())) {
      throw new InvalidInputException("the series " + run.series() + " cannot be stored: test path, backend and"
          + " suite must not contain a NUL character or an unpaired surrogate");
    }
    Provenance p = run.provenance();
    for (Optional<String> part : List.of(p.ciRunId(), p.commit(), p.cadence())) {
      if (part.isPresent() && !storable(part.get())) {
        throw new InvalidInputException("the provenance of a run of " + run.series() + " cannot be stored: CI run"
            + " id, commit and cadence must not contain a NUL character or an unpaired surrogate");
      }
    }
    for (Sample s : run.samples()) {
      if (!storable(s.coordinate())) {
        throw new InvalidInputException("the coordinate " + s.coordinate() + " cannot be stored: its keys must not"
            + " contain a NUL character or an unpaired surrogate");
      }
    }
    Instant at = run.createdAt();
    if (at.isBefore(MIN_TIME) || at.isAfter(MAX_TIME)) {
      throw new InvalidInputException("the time " + at + " of a run of " + run.series() + " is outside the range"
          + " the PostgreSQL store keeps (" + MIN_TIME + " to " + MAX_TIME + ")");
    }
  }

  private static boolean storable(SeriesKey s) {
    return storable(s.testPath()) && storable(s.backend()) && storable(s.suite());
  }

  private static boolean storable(Coordinate c) {
    return storable(c.metricKey()) && storable(c.stepsKey()) && storable(c.constraintKey());
  }

  /** Whether PostgreSQL text holds the string exactly: no NUL, and valid UTF-16 (so valid UTF-8 on the wire). */
  static boolean storable(String s) {
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '\0') {
        return false;
      }
      if (Character.isHighSurrogate(ch)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(ch)) {
        return false;
      }
    }
    return true;
  }

  /** A value row: run_id, created_s, created_nano, value, trusted from column {@code first} on. */
  private HistorySample sample(ResultSet rs, int first, Coordinate coordinate) throws SQLException {
    long runId = rs.getLong(first);
    long seconds = rs.getLong(first + 1);
    int nano = rs.getInt(first + 2);
    double value = rs.getDouble(first + 3);
    boolean trusted = rs.getBoolean(first + 4);
    return row("gate_values", "run_id = " + runId + ", " + coordinate, () -> {
      if (nano < 0 || nano > 999_999_999) {
        throw new IllegalStateException("created_nano " + nano + " is not a nano-of-second");
      }
      return new HistorySample(new RunId(runId), Instant.ofEpochSecond(seconds, nano), value, trusted);
    });
  }

  /** Reads a run's (created_at, created_nano) at {@code i, i + 1} back into the exact instant. */
  private Instant instant(ResultSet rs, int i, String table, String rowKey) throws SQLException {
    OffsetDateTime micros = rs.getObject(i, OffsetDateTime.class);
    int nano = rs.getInt(i + 1);
    if (micros == null || nano < 0 || nano > 999_999_999 || micros.getNano() / 1000 != nano / 1000) {
      throw impossible(table, rowKey, new IllegalStateException("created_at " + micros + " and created_nano " + nano
          + " disagree; created_at holds the microseconds of created_nano"));
    }
    return Instant.ofEpochSecond(micros.toEpochSecond(), nano);
  }

  private interface RowBuilder<T> {
    T build() throws SQLException;
  }

  /** Builds a value from a row; a validation failure means the row was edited into an impossible state. */
  private <T> T row(String table, String rowKey, RowBuilder<T> builder) throws SQLException {
    try {
      return builder.build();
    } catch (RuntimeException e) {
      throw impossible(table, rowKey, e);
    }
  }

  private MetricStoreException impossible(String table, String rowKey, Exception cause) {
    return new MetricStoreException("row " + schema + "." + table + " (" + rowKey + ") is impossible (edited by"
        + " hand?): " + cause.getMessage(), cause);
  }

  private static void setSeries(PreparedStatement st, int i, SeriesKey s) throws SQLException {
    st.setString(i, s.testPath());
    st.setString(i + 1, s.backend());
    st.setString(i + 2, s.suite());
  }

  private static void setCoordinate(PreparedStatement st, int i, Coordinate c) throws SQLException {
    st.setString(i, c.metricKey());
    st.setString(i + 1, c.stepsKey());
    st.setString(i + 2, c.constraintKey());
    st.setInt(i + 3, c.step());
  }



  /**
   * Runs one operation as one transaction on the stores' runner ({@link PgTransactions}): re-run after a
   * deadlock or serialization failure, every other failure worded by {@link #exception}.
   */
  private <T> T tx(String op, PgTransactions.Work<T> work) {
    return transactions.inTransaction(op, work);
  }

  /**
   * The history's exception for a failed operation: {@code could not <operation> in schema <s> (SQLSTATE
   * <code>): <driver message>}, then a hint. When the database could not be reached (no connection, or the
   * connection lost) it is a {@link MetricStoreUnavailableException} with the hint {@code (the database cannot
   * be reached)}, or, when the connection was lost during the commit, what that means for the change;
   * otherwise a {@link MetricStoreException}, with a hint when the schema looks unmigrated.
   */
  private static MetricStoreException exception(String schema, String op, PgTransactions.Failure f) {
    String what = "could not " + op + " in schema " + schema;
    SQLException cause = f.cause();
    if (cause == null) {
      return new MetricStoreException(what + ": " + f.situation(), new IllegalStateException(f.situation()));
    }
    String error = what + " (SQLSTATE " + f.sqlState() + "): " + f.driverMessage();
    if (f.unavailable()) {
      return new MetricStoreUnavailableException(op, f.mayHaveCommitted(), error + (f.mayHaveCommitted()
          ? " (the database cannot be reached: " + f.situation() + ", so the change may have been committed;"
              + " re-read before writing again, a run written twice is stored twice)"
          : " (the database cannot be reached)"), cause);
    }
    return switch (f.kind()) {
      case CONTENDED, TIMED_OUT -> new MetricStoreException(error + " (" + f.situation() + "; " + f.consequence()
          + ")", cause);
      default -> new MetricStoreException(error + hint(f.sqlState()), cause);
    };
  }

  private static String hint(@Nullable String sqlState) {
    if ("42P01".equals(sqlState) || "3F000".equals(sqlState)) {
      return " (is the schema migrated? PostgresMetricHistoryStore.create migrates it)";
    }
    return "";
  }
}
