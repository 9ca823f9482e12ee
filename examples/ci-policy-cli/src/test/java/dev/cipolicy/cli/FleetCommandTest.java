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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
  // a collector that got past the check would serve the pool, silently idle, until stopped
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
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

  @Test
  void retireRetiresAHostAtOnceOrOnceItsJobsEndAndNamesTheHostsItKnows() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    ds.setUser(user);
    JobQueue queue = JobQueue.of(PostgresQueueStore.create(ds, schema), QueueSettings.builder().noJobs(true).build());
    queue.submitCiRun(CiRun.of("acme/trainer", 8, 1, "0123456789abcdef0123456789abcdef01234567", "pull_request"),
        List.of(JobSpec.builder().benchmarkGroup("stage-a-0of1").collectorTag("h200").gpus(1).build()));
    queue.registerHost("h200-0", "h200", Devices.count(2));
    queue.registerHost("h200-1", "h200", Devices.count(2));
    assertThat(queue.claim("h200-0").claims()).hasSize(1);

    CliTestSupport.Result idle = run(env, "fleet", "retire", "h200-1");
    assertThat(idle.code()).as(idle.err()).isZero();
    assertThat(idle.out().lines().toList()).containsExactly("host h200-1 retired: it claims no more jobs and is gone"
        + " from the store");
    assertThat(queue.store().collector("h200-1")).isEmpty();

    CliTestSupport.Result busy = run(env, "fleet", "retire", "h200-0");
    assertThat(busy.code()).as(busy.err()).isZero();
    assertThat(busy.out().lines().toList()).singleElement().asString()
        .startsWith("host h200-0 is retiring: it claims no more jobs;");
    assertThat(queue.store().collector("h200-0").orElseThrow().retiring()).isTrue();
    assertThat(queue.claim("h200-0").claims()).isEmpty();

    CliTestSupport.Result unknown = run(env, "fleet", "retire", "h300-9");
    assertThat(unknown.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(unknown.out()).isEmpty();
    assertThat(unknown.err().lines().toList()).singleElement().asString().startsWith("::error")
        .contains("no fleet host named h300-9 in the store; expected one of [h200-0]");

    CliTestSupport.Result bad = run(env, "fleet", "retire", "h 1");
    assertThat(bad.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(bad.err().lines().toList()).singleElement().asString().startsWith("::error").contains("host name");
  }

  @Test
  void aCollectorDaemonRefusesAPoolWhereLeaseProcessesHoldOrWaitForDevices() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    ds.setUser(user);
    JobQueue queue = JobQueue.of(PostgresQueueStore.create(ds, schema), QueueSettings.builder().noJobs(true).build());
    // what a fleet lease process on host h200-0 leaves in the store: its host in the pool, its job leased
    queue.registerHost("h200-0", "h200", Devices.count(4));
    queue.submitCiRun(CiRun.of("acme/trainer", (1L << 53) + 1, 1, "unknown", "lease"), List.of(JobSpec.builder()
        .benchmarkGroup(FleetLeaseCommand.LEASE_GROUP).collectorTag("h200").gpus(2).build()));
    queue.claim("h200-0");

    CliTestSupport.Result r = run(env, "fleet", "collector", "--policy", POLICY, "--pool", "h200", "--devices", "0-7",
        "--host", "h200-1");
    assertThat(r.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(r.err().lines().toList()).singleElement().asString().startsWith("::error")
        .contains("pool 'h200' is a lease pool: fleet lease processes use it (host h200-0)", "--pool");
    assertThat(queue.store().collector("h200-1")).as("nothing registered").isEmpty();
  }

  @Test
  void theCollectorsRegistrationLineTellsAPendingOrUpdatedInventory() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    ds.setUser(user);
    JobQueue queue = JobQueue.of(PostgresQueueStore.create(ds, schema), QueueSettings.builder().noJobs(true).build());
    queue.submitCiRun(CiRun.of("acme/trainer", 9, 1, "0123456789abcdef0123456789abcdef01234567", "pull_request"),
        List.of(JobSpec.builder().benchmarkGroup("stage-a-0of1").collectorTag("h200").gpus(1).build()));
    assertThat(FleetCollectorLines.registration(queue.registerHost("h200-0", "h200", Devices.count(4)))).isEmpty();
    assertThat(queue.claim("h200-0").claims().get(0).lease().devices()).containsExactly(0);
    assertThat(FleetCollectorLines.registration(queue.registerHost("h200-0", "h200", Devices.count(4)))).isEmpty();
    assertThat(FleetCollectorLines.registration(queue.registerHost("h200-0", "h200",
        new Devices(List.of(1, 2, 3), List.of())))).contains("collector h200-0: inventory pending: devices [1, 2, 3]"
        + " replace [0, 1, 2, 3] once no running job holds [0]; until then jobs are placed on [1, 2, 3]");
    assertThat(FleetCollectorLines.registration(queue.registerHost("h200-0", "h200",
        Devices.grouped(List.of(List.of(0, 1), List.of(2, 3, 4, 5)))))).contains("collector h200-0: inventory updated"
        + " in the store to devices [0, 1, 2, 3, 4, 5] in groups [[0, 1], [2, 3, 4, 5]]");
  }
}
