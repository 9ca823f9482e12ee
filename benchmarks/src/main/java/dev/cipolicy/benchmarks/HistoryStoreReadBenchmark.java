package dev.cipolicy.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.CoordinateHistory;
import dev.cipolicy.gate.GateOptions;
import dev.cipolicy.gate.MetricHistoryStore;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.Sample;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import dev.cipolicy.postgres.PostgresMetricHistoryStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The gate's history read: the newest 20 trusted and newest 2 values of each of 500 coordinates (the
 * limits of {@code GateOptions.defaults()}), from {@link PostgresMetricHistoryStore} and, for the ratio, from
 * {@link InMemoryMetricHistoryStore} holding the same runs. {@code @Param runs} is the length of the stored
 * history (each run writes all 500 coordinates, one in ten values untrusted), to show that the read does not
 * grow with it. Needs the PostgreSQL server at {@code CI_POLICY_PG_URL} (default
 * {@code jdbc:postgresql://127.0.0.1:5432/test}, user {@code CI_POLICY_PG_USER} or {@code postgres}); works in a
 * fresh schema, dropped at the end.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HistoryStoreReadBenchmark {
  private static final SeriesKey SERIES = new SeriesKey("tests/e2e/test_bench.py", "cuda", "stage-c-8-gpu-h200");
  private static final Instant T0 = Instant.parse("2026-01-01T15:00:00Z");
  private static final int METRICS = 5;
  private static final int STEPS = 100;

  /** How many baseline runs the history holds. */
  @Param({"20", "1000"})
  public int runs;

  private @Nullable HikariDataSource dataSource;
  private String schema = "";
  private MetricHistoryStore postgres = new InMemoryMetricHistoryStore();
  private final InMemoryMetricHistoryStore memory = new InMemoryMetricHistoryStore();
  private Set<Coordinate> coordinates = Set.of();
  private final GateOptions options = GateOptions.defaults();

  /** Writes the same history to a fresh PostgreSQL schema and to memory, then analyzes the tables. */
  @Setup(Level.Trial)
  public void setUp() throws SQLException {
    String url = env("CI_POLICY_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(env("CI_POLICY_PG_USER", "postgres"));
    config.setMaximumPoolSize(2);
    dataSource = new HikariDataSource(config);
    schema = ("bench_history_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8))
        .toLowerCase(Locale.ROOT);
    postgres = PostgresMetricHistoryStore.create(dataSource, schema);
    Set<Coordinate> all = new LinkedHashSet<>();
    for (int m = 0; m < METRICS; m++) {
      for (int s = 0; s < STEPS; s++) {
        all.add(new Coordinate("train/metric_" + m, "all",
            "{\"abs_floor_down\":0.1,\"abs_floor_up\":0.1,\"rel_down\":0.8,\"rel_up\":0.5}", s));
      }
    }
    coordinates = Set.copyOf(all);
    Random random = new Random(20261130L);
    for (int r = 0; r < runs; r++) {
      List<Sample> samples = new ArrayList<>();
      for (Coordinate c : all) {
        samples.add(new Sample(c, 1 + 0.05 * random.nextGaussian(), random.nextInt(10) != 0));
      }
      RunRecord run = new RunRecord(SERIES, Provenance.of("ci" + r, "c" + r, "nightly"), T0.plusSeconds(86_400L * r),
          true, samples);
      postgres.write(run);
      memory.write(run);
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement st = c.prepareStatement("VACUUM ANALYZE " + schema + ".gate_values")) {
      st.execute();
    }
    check();
  }

  private void check() {
    Map<Coordinate, CoordinateHistory> a = postgres.read(SERIES, coordinates, options.trustedLimit(),
        options.recentLimit());
    if (!a.equals(memory.read(SERIES, coordinates, options.trustedLimit(), options.recentLimit()))) {
      throw new IllegalStateException("the PostgreSQL and in-memory stores disagree");
    }
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }

  /** Drops the schema and closes the pool. */
  @TearDown(Level.Trial)
  public void tearDown() throws SQLException {
    if (dataSource != null) {
      try (Connection c = dataSource.getConnection();
          PreparedStatement st = c.prepareStatement("DROP SCHEMA IF EXISTS " + schema + " CASCADE")) {
        st.execute();
      }
      dataSource.close();
    }
  }

  /**
   * One read of 500 coordinates from PostgreSQL: one statement, one round trip.
   *
   * @return the histories
   */
  @Benchmark
  public Map<Coordinate, CoordinateHistory> read500FromPostgres() {
    return postgres.read(SERIES, coordinates, options.trustedLimit(), options.recentLimit());
  }

  /**
   * The same read from the in-memory store.
   *
   * @return the histories
   */
  @Benchmark
  public Map<Coordinate, CoordinateHistory> read500FromMemory() {
    return memory.read(SERIES, coordinates, options.trustedLimit(), options.recentLimit());
  }
}
