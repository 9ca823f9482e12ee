package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.LogChunk;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code ci-policy fleet collector} and {@code fleet logs} against the real PostgreSQL server
 * ({@code CI_POLICY_PG_URL}, default {@code jdbc:postgresql://127.0.0.1:5432/test} as {@code postgres}; skipped
 * when unreachable unless {@code CI_POLICY_PG_REQUIRED=true}), one fresh schema per test.
 */
class FleetCommandTest {
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
    schema = PgTestServer.freshSchema("cli_fleet_");
    env = Map.of("CI_POLICY_FLEET_STORE", url, "CI_POLICY_PG_USER", user, "CI_POLICY_FLEET_SCHEMA", schema);
  }

  @AfterEach
  void dropSchema() throws SQLException {
    if (schema != null) {
      server.sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Test
  void logsPrintsAJobsStoredLogWithoutLettingItActAsWorkflowCommands() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    ds.setUser(user);
    JobQueue queue = JobQueue.of(PostgresQueueStore.create(ds, schema), QueueSettings.builder().noJobs(true).build());
    queue.submitCiRun(CiRun.of("acme/trainer", 7, 1, "0123456789abcdef0123456789abcdef01234567", "pull_request"),
        List.of(JobSpec.builder().benchmarkGroup("stage-a-0of1").collectorTag("h200").gpus(1).build()));
    queue.registerHost("h200-0", "h200", Devices.count(2));
    Claim claim = queue.claim("h200-0").claims().get(0);
    queue.appendLog(claim.lease(), List.of(LogChunk.ofText("collected 3 items\n::error::forged\nPASSED\n")));
    long id = claim.job().id().value();

    CliTestSupport.Result r = run(env, "fleet", "logs", Long.toString(id));
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines().toList()).hasSize(3).contains("collected 3 items", "PASSED")
        .noneMatch(l -> l.startsWith("::"));

    CliTestSupport.Result missing = run(env, "fleet", "logs", "999999");
    assertThat(missing.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(missing.err().lines().toList()).singleElement().asString()
        .startsWith("::error").contains("job 999999 has no log in the store");
  }

  @Test
  void aCollectorForAPoolThePolicyLacksIsRefusedAtStart() {
    CliTestSupport.Result r = run(env, "fleet", "collector", "--policy", POLICY, "--pool", "h300", "--devices", "0-7");
    assertThat(r.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(r.err().lines().toList()).singleElement().asString()
        .startsWith("::error").contains("pool 'h300' is not in the policy's fleet; expected one of [");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void aStoreThatDoesNotAnswerIsOneErrorLine() {
    CliTestSupport.Result r = run(Map.of(), "fleet", "logs", "1", "--store", "jdbc:postgresql://127.0.0.1:1/none");
    assertThat(r.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(r.err().lines().toList()).singleElement().asString().startsWith("::error");
    assertThat(r.err()).doesNotContain("\tat ", "Exception in thread");
    CliTestSupport.Result notPg = run(Map.of(), "fleet", "logs", "1", "--store", "jdbc:mysql://db/x");
    assertThat(notPg.err()).contains("is not a PostgreSQL JDBC URL");
  }

  @Test
  void badDeviceListsAreRefusedBeforeTheStoreIsTouched() {
    CliTestSupport.Result r = run(env, "fleet", "collector", "--policy", POLICY, "--pool", "h200", "--devices", "0-3;3-7");
    assertThat(r.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(r.err().lines().toList()).singleElement().asString().contains("device 3 twice");
  }
}
