package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.cli.CliTestSupport.Result;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ci-policy gate --history-store postgres} and friends against the real PostgreSQL server
 * ({@code CI_POLICY_PG_URL}, default {@code jdbc:postgresql://127.0.0.1:5432/test} as {@code postgres}; skipped
 * when unreachable unless {@code CI_POLICY_PG_REQUIRED=true}), one fresh schema per test. Each PostgreSQL run is
 * compared with the same run on the memory store: the verdicts must not depend on where history lives.
 */
class GatePostgresCommandTest {
  private static final String GATES = "examples/gate/gates.yaml";
  private static final String TEST = "tests/e2e/test_fsdp_short.py";

  @TempDir
  Path tmp;
  private PgTestServer server;
  private String url;
  private String user;
  private String schema;
  private Map<String, String> env;

  @BeforeEach
  void connect() {
    server = PgTestServer.reachable();
    url = server.url();
    user = server.user();
    schema = PgTestServer.freshSchema("cli_gate_");
    env = Map.of("CI_POLICY_PG_URL", url, "CI_POLICY_PG_USER", user, "CI_POLICY_PG_SCHEMA", schema);
  }

  @AfterEach
  void dropSchema() throws SQLException {
    if (schema != null) {
      sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  private long sql(String statement) throws SQLException {
    return server.sql(statement);
  }

  /** {@code gate} on PostgreSQL (settings from the environment). */
  private Result pg(String record, String... extra) {
    return run(env, args(List.of("--history-store", "postgres"), record, extra));
  }

  /** The same {@code gate} on the memory store, in a history file. */
  private Result memory(String record, String... extra) {
    return run(Map.of(), args(List.of("--history", tmp.resolve("history.json").toString()), record, extra));
  }

  private static String[] args(List<String> store, String record, String... extra) {
    List<String> args = new ArrayList<>(List.of("gate", "--policy", POLICY, "--gates", GATES, "--test-file", TEST,
        "--registrations", REGISTRATIONS, "--record", record));
    args.addAll(store);
    args.addAll(List.of(extra));
    return args.toArray(String[]::new);
  }

  private static String[] nightly(int i) {
    return new String[] {"--write-baseline", "--ci-run-id", "900" + i, "--commit", "c0ffee" + i, "--cadence",
        "nightly", "--created-at", "2026-11-2" + i + "T15:00:00Z"};
  }

  private void threeNightlies() {
    for (int i = 1; i <= 3; i++) {
      Result p = pg("examples/gate/nightly-" + i + ".json", nightly(i));
      assertThat(p.code()).isZero();
      assertThat(p.err()).isEmpty();
      assertThat(p.out()).contains("[CI Gate][baseline] tests/e2e/test_fsdp_short.py: wrote baseline\n");
      assertThat(p).isEqualTo(memory("examples/gate/nightly-" + i + ".json", nightly(i)));
    }
  }

  @Test
  void threeBaselineRunsThenAShadowRunJudgesAgainstTheStoredHistory() throws Exception {
    threeNightlies();
    assertThat(sql("SELECT count(*) FROM " + schema + ".gate_runs")).isEqualTo(3);
    assertThat(sql("SELECT count(*) FROM " + schema + ".gate_values WHERE trusted")).isEqualTo(18);
    assertThat(sql("SELECT count(DISTINCT commit_sha) FROM " + schema + ".gate_runs")).isEqualTo(3);

    Result shadow = pg("examples/gate/pr-regression.json");
    assertThat(shadow.code()).isZero();
    assertThat(shadow.out()).startsWith("[CI Gate][shadow] tests/e2e/test_fsdp_short.py: FAIL (6 coordinates: 3 PASS,"
        + " 2 FAIL, 1 ERROR; 2 regressions; run untrusted)\n\n### CI Gate (shadow): `tests/e2e/test_fsdp_short.py`"
        + " — FAIL\n");
    // the reference of step 1 is the mean of the three stored nightlies: (1.02 + 0.98 + 0.97) / 3
    assertThat(shadow.out()).contains("| `train/grad_norm` | 1 | FAIL regression | 2.4 | [0.198, 1.485] | 0.99 (3) |"
        + " 2.4 is above the upper limit 1.485 by 0.915 (regression) |\n");
    assertThat(shadow).isEqualTo(memory("examples/gate/pr-regression.json"));
    assertThat(sql("SELECT count(*) FROM " + schema + ".gate_runs")).isEqualTo(3); // shadow never writes

    Result json = pg("examples/gate/pr-regression.json", "--json");
    assertThat(json).isEqualTo(memory("examples/gate/pr-regression.json", "--json"));
  }

  @Test
  void flagsGiveTheConnectionWithoutTheEnvironment() throws Exception {
    Result r = run(Map.of(), args(List.of("--history-store", "postgres", "--pg-url", url, "--pg-user", user,
        "--pg-schema", schema), "examples/gate/nightly-1.json", nightly(1)));
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("wrote baseline");
    assertThat(sql("SELECT count(*) FROM " + schema + ".gate_runs")).isEqualTo(1);
    assertThat(sql("SELECT max(version) FROM " + schema + ".gate_schema_version")).isEqualTo(1); // V1, with the CI run identity
  }

  @Test
  void revocationAndReplayWorkOnTheDatabaseAsOnTheFile() {
    threeNightlies();
    String file = tmp.resolve("history.json").toString();
    for (int repeat = 0; repeat < 2; repeat++) {
      Result p = run(env, "gate-revoke", "--history-store", "postgres", "--commit", "c0ffee2");
      assertThat(p.code()).isZero();
      assertThat(p).isEqualTo(run("gate-revoke", "--history", file, "--commit", "c0ffee2"));
      assertThat(p.out()).isEqualTo("Revoked commit c0ffee2: 1 run(s) matched, " + (1 - repeat) + " newly revoked, "
          + (6 - 6 * repeat) + " trusted sample(s) left the baseline\n");
    }
    Result shadow = pg("examples/gate/pr-regression.json");
    assertThat(shadow.out()).contains("| `train/grad_norm` | 1 | FAIL regression | 2.4 |").contains(" (2) |");
    assertThat(shadow).isEqualTo(memory("examples/gate/pr-regression.json"));

    List<String> replay = List.of("gate-replay", "--policy", POLICY, "--gates", GATES, "--test-file", TEST,
        "--registrations", REGISTRATIONS, "--metric", "train/grad_norm");
    List<String> onPg = new ArrayList<>(replay);
    onPg.addAll(List.of("--history-store", "postgres"));
    List<String> onFile = new ArrayList<>(replay);
    onFile.addAll(List.of("--history", file));
    Result p = run(env, onPg.toArray(String[]::new));
    assertThat(p.code()).isZero();
    assertThat(p.out()).contains("step 0 (stored as steps=all): 2 values");
    assertThat(p).isEqualTo(run(onFile.toArray(String[]::new)));
  }

  @Test
  void anUnreachableDatabaseIsReportedAndTheGateStillExitsZero() {
    Map<String, String> nowhere = Map.of("CI_POLICY_PG_URL", "jdbc:postgresql://127.0.0.1:1/test?connectTimeout=2",
        "CI_POLICY_PG_USER", user);
    for (String[] mode : List.of(new String[0], nightly(1))) {
      Result r = run(nowhere, args(List.of("--history-store", "postgres"), "examples/gate/nightly-1.json", mode));
      assertThat(r.code()).isZero();
      assertThat(r.out()).startsWith("[CI Gate] hook failed for tests/e2e/test_fsdp_short.py:"
          + " MetricStoreUnavailableException:"
          + " could not migrate the metric history in schema ci_gate (SQLSTATE 08001): Connection to 127.0.0.1:1"
          + " refused.");
      assertThat(r.err()).startsWith("::warning::[CI Gate] hook failed for tests/e2e/test_fsdp_short.py:");
    }
    // a test without gates never connects
    Result none = run(nowhere, "gate", "--policy", POLICY, "--gates", GATES, "--test-file", "tests/e2e/test_lora.py",
        "--registrations", REGISTRATIONS, "--record", "examples/gate/nightly-1.json", "--history-store", "postgres",
        "--write-baseline", "--ci-run-id", "9009");
    assertThat(none.code()).isZero();
    assertThat(none.out()).isEqualTo("[CI Gate][baseline] tests/e2e/test_lora.py: no gate declared; skipping write\n");
    assertThat(none.err()).isEmpty();
    // the operator's commands are not the test's: there it is an error
    Result revoke = run(nowhere, "gate-revoke", "--history-store", "postgres", "--commit", "c0ffee2");
    assertThat(revoke.code()).isEqualTo(1);
    assertThat(revoke.err()).startsWith("::error::could not revoke commit c0ffee2 in schema ci_gate (SQLSTATE 08001)")
        .endsWith("(the database cannot be reached)\n");
  }

  @Test
  void aSchemaNeverWrittenIsAnErrorForTheOperatorsCommands() {
    Result r = run(env, "gate-revoke", "--history-store", "postgres", "--run-id", "1");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).startsWith("::error::could not revoke run id 1 in schema " + schema + " (SQLSTATE 42P01)")
        .endsWith("(is the schema migrated? PostgresMetricHistoryStore.create migrates it)\n");
  }

  @Test
  void unusableDatabaseArgumentsExitOne() {
    Result r = pg("examples/gate/nightly-1.json", "--history", "h.json");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::--history names the memory store's file; with --history-store postgres the"
        + " history lives in the database (drop --history)\n");
    r = run(Map.of(), args(List.of("--history-store", "postgres"), "examples/gate/nightly-1.json"));
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::--history-store postgres needs --pg-url or CI_POLICY_PG_URL (a JDBC URL"
        + " such as jdbc:postgresql://db:5432/ci)\n");
    r = run(Map.of(), args(List.of("--history-store", "postgres", "--pg-url", "jdbc:mysql://db/ci"),
        "examples/gate/nightly-1.json"));
    assertThat(r.err()).isEqualTo("::error::--pg-url 'jdbc:mysql://db/ci' is not a PostgreSQL JDBC URL; expected"
        + " jdbc:postgresql://host:port/database\n");
    r = pg("examples/gate/nightly-1.json", "--pg-schema", "Gate-History");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::--pg-schema: schema name 'Gate-History' is not a plain PostgreSQL"
        + " identifier (expected [a-z_][a-z0-9_]{0,62})\n");
    r = run(env, args(List.of("--history-store", "sqlite"), "examples/gate/nightly-1.json"));
    assertThat(r.err()).isEqualTo("::error::unknown --history-store 'sqlite'; expected memory or postgres\n");
    r = run("gate-revoke", "--commit", "c0ffee2");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::--history FILE is required with --history-store memory\n");
  }
}
