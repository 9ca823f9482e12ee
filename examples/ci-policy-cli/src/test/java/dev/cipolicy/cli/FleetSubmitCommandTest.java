package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.fleet.job.CiJob;
import dev.cipolicy.fleet.job.CiJobArgs;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code ci-policy fleet submit} against the real PostgreSQL server, one fresh schema per test: the run is planned
 * from the reference policy into jobs with rendered commands, submitted once (a second submit attaches), followed
 * with {@code --wait} while this test plays the hosts through the queue API, and every bad input is one error line
 * with its own exit code and nothing written to the store.
 */
class FleetSubmitCommandTest {
  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  private PgTestServer server;
  private String schema;
  private Map<String, String> env;
  private JobQueue queue;

  @TempDir
  Path dir;

  @BeforeEach
  void connect() {
    server = PgTestServer.reachable();
    schema = PgTestServer.freshSchema("cli_submit_");
    env = new HashMap<>(Map.of("CI_POLICY_FLEET_STORE", server.url(), "CI_POLICY_PG_USER", server.user(),
        "CI_POLICY_FLEET_SCHEMA", schema, "GITHUB_REPOSITORY", "acme/trainer", "GITHUB_RUN_ID", "9001",
        "GITHUB_RUN_ATTEMPT", "1", "GITHUB_SHA", SHA, "GITHUB_WORKFLOW", "PR Test"));
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(server.url());
    ds.setUser(server.user());
    queue = JobQueue.of(PostgresQueueStore.create(ds, schema), QueueSettings.builder().noJobs(true).build());
  }

  @AfterEach
  void dropSchema() throws SQLException {
    if (schema != null) {
      server.sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  private void registerFleet(int h200Devices) {
    queue.registerHost("h200-0", "h200", Devices.count(h200Devices));
    queue.registerHost("h100-0", "h100", Devices.count(8));
    queue.registerHost("b200-0", "b200", Devices.count(8));
    queue.registerHost("mi350-0", "mi350", Devices.count(8));
  }

  private String[] nightly(String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("fleet", "submit", "--policy", POLICY, "--registrations",
        REGISTRATIONS, "--event-name", "schedule", "--cadence-override", "nightly", "--poll-millis", "50"));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  @Test
  void aNightlyBecomesOneCiRunWithAJobPerGpuSuiteShardAndTheirRenderedCommands() {
    registerFleet(8);
    CliTestSupport.Result r = run(env, nightly());
    assertThat(r.code()).as(r.err()).isZero();
    Request request = queue.ciRun("acme/trainer", 9001, 1).orElseThrow();
    assertThat(r.out().lines().toList()).singleElement().asString()
        .startsWith("submitted run acme/trainer run 9001 attempt 1 at " + SHA)
        .endsWith("as request " + request.id().value() + ": " + queue.store().jobs(request.id()).size() + " jobs");
    assertThat(request.state()).isEqualTo(RequestState.IN_PROGRESS);
    assertThat(request.ciRun().orElseThrow().cadence()).isEqualTo("nightly");
    List<Job> jobs = queue.store().jobs(request.id());
    // the CPU suites have no pool: they stay on the workflow's own runners
    assertThat(jobs).extracting(j -> j.spec().benchmarkGroup())
        .contains("stage-b-2-gpu-h200-0of1", "stage-c-4-gpu-h200-2of3", "stage-c-8-gpu-b200-0of1")
        .noneMatch(n -> n.contains("cpu"));
    Job fourGpu = jobs.stream().filter(j -> j.spec().benchmarkGroup().equals("stage-c-4-gpu-h200-1of3"))
        .findFirst().orElseThrow();
    assertThat(fourGpu.spec().gpus()).isEqualTo(4);
    assertThat(fourGpu.spec().pool()).isEqualTo("h200");
    assertThat(fourGpu.spec().cadence()).isEqualTo("nightly");
    CiJob ci = CiJobArgs.read(fourGpu.spec().args().orElseThrow());
    assertThat(ci.repository()).isEqualTo("acme/trainer");
    assertThat(ci.commit()).isEqualTo(SHA);
    assertThat(ci.command()).containsExactly("python", "tests/ci/run_suite.py", "--hw", "cuda", "--suite",
        "stage-c-4-gpu-h200", "--auto-partition-id", "1", "--auto-partition-size", "3", "--cadence", "nightly",
        "--labels", "");
    assertThat(ci.deviceEnv()).containsExactly("CUDA_VISIBLE_DEVICES");
    assertThat(ci.env()).containsEntry("CI_RUN_ID", "9001").containsEntry("CI_COMMIT", SHA);

    CliTestSupport.Result again = run(env, nightly());
    assertThat(again.code()).isZero();
    assertThat(again.out()).contains("was already submitted as request " + request.id().value());
    assertThat(queue.store().jobs(request.id())).hasSameSizeAs(jobs);
  }

  @Test
  void waitFollowsOneSuitesJobsPrintsStartEndAndTheFailuresLogTailAndWritesTheSummary() throws Exception {
    registerFleet(8);
    Path summary = dir.resolve("summary.md");
    env.put("GITHUB_STEP_SUMMARY", summary.toString());
    ByteArrayOutputStream live = new ByteArrayOutputStream();
    CompletableFuture<CliTestSupport.Result> submit = CompletableFuture.supplyAsync(() ->
        run(env, live, nightly("--wait", "--suite", "stage-c-2-gpu-h200")));
    Request request = await(() -> queue.ciRun("acme/trainer", 9001, 1));
    // play the h200 host: run every job it is given; shard 1 of the 2-GPU suite fails with a log
    int handled = 0;
    while (handled < 8) {
      List<Claim> claims = queue.claim("h200-0", 8).claims();
      if (claims.isEmpty()) {
        Thread.sleep(50);
      }
      for (Claim c : claims) {
        String name = c.job().spec().benchmarkGroup();
        if (name.startsWith("stage-c-2-gpu-h200-")) {
          // a followed job runs until the follower has seen it running (one of its polls, every 50 ms)
          await(() -> live.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("started " + name + " "))
              .findFirst());
        }
      }
      for (Claim c : claims) {
        handled++;
        String name = c.job().spec().benchmarkGroup();
        if (name.equals("stage-c-2-gpu-h200-1of2")) {
          queue.appendLog(c.lease(), List.of(LogChunk.ofText("collected 2 items\n::error::forged\nFAILED test_ft_short\n")));
          queue.fail(c.lease(), Failure.permanent("the command exited with code 1"));
        } else {
          queue.complete(c.lease());
        }
      }
      queue.collectorHeartbeat("h200-0");
    }
    CliTestSupport.Result r = submit.get(60, TimeUnit.SECONDS);
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(FleetReport.EXIT_JOB_FAILED);
    List<String> out = r.out().lines().toList();
    assertThat(out).anyMatch(l -> l.matches("started stage-c-2-gpu-h200-0of2 on h200-0 devices [0-7],[0-7] after waiting \\d+s"))
        .anyMatch(l -> l.matches("succeeded stage-c-2-gpu-h200-0of2 on h200-0 in \\d+s"))
        .anyMatch(l -> l.matches("failed stage-c-2-gpu-h200-1of2 on h200-0 in \\d+s: .*exited with code 1.*"))
        .contains("::group::stage-c-2-gpu-h200-1of2 (failed): log tail", "FAILED test_ft_short", "::endgroup::",
            "1 of 2 jobs succeeded")
        .noneMatch(l -> l.startsWith("::error"))
        .noneMatch(l -> l.contains("stage-c-4-gpu"));
    String md = Files.readString(summary, StandardCharsets.UTF_8);
    assertThat(md).contains("### Fleet jobs of acme/trainer run 9001 attempt 1 at " + SHA, "(stage-c-2-gpu-h200)", "1 of 2 jobs succeeded.",
        "| stage-c-2-gpu-h200-0of2 | h200-0 |", "| failed: ");
  }

  @Test
  void everyRequiredJobSucceedingExitsZero() throws Exception {
    registerFleet(8);
    CompletableFuture<CliTestSupport.Result> submit = CompletableFuture.supplyAsync(() ->
        run(env, nightly("--wait", "--suite", "stage-b-2-gpu-h200")));
    await(() -> queue.ciRun("acme/trainer", 9001, 1));
    while (!submit.isDone()) {
      List<Claim> claims = queue.claim("h200-0", 8).claims();
      Thread.sleep(300); // six polls: the follower sees the jobs running
      for (Claim c : claims) {
        queue.complete(c.lease());
      }
    }
    CliTestSupport.Result r = submit.get(60, TimeUnit.SECONDS);
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("succeeded stage-b-2-gpu-h200-0of1 on h200-0", "1 of 1 jobs succeeded");
  }

  @Test
  void aJobNoHostCouldRunIsRefusedNamingThePoolsLargestHostAndNothingIsSubmitted() {
    registerFleet(4);
    queue.registerHost("h200-1", "h200", Devices.count(2));
    CliTestSupport.Result r = run(env, nightly());
    assertThat(r.code()).isEqualTo(FleetReport.EXIT_BAD_INPUT);
    assertThat(r.err().lines().toList()).singleElement().asString().startsWith("::error")
        .contains("job stage-c-8-gpu-h200-0of2 needs 8 GPUs, but the largest host of pool h200 (h200-0) has 4");
    assertThat(queue.ciRun("acme/trainer", 9001, 1)).isEmpty();
  }

  @Test
  void theRefusalFollowsAHostsChangedInventoryAndIgnoresARetiredHost() {
    registerFleet(8);
    queue.registerHost("h200-0", "h200", Devices.count(4)); // lost four GPUs: taken at once, no lease holds them
    CliTestSupport.Result r = run(env, nightly());
    assertThat(r.code()).isEqualTo(FleetReport.EXIT_BAD_INPUT);
    assertThat(r.err()).contains("the largest host of pool h200 (h200-0) has 4");
    queue.retireCollector("h200-0");
    CliTestSupport.Result retired = run(env, nightly());
    assertThat(retired.err()).contains("is for pool h200, which has no registered host");
    assertThat(queue.ciRun("acme/trainer", 9001, 1)).isEmpty();
  }

  @Test
  void aPoolWithoutAnyHostIsRefused() {
    queue.registerHost("h200-0", "h200", Devices.count(8));
    CliTestSupport.Result r = run(env, nightly());
    assertThat(r.code()).isEqualTo(FleetReport.EXIT_BAD_INPUT);
    assertThat(r.err()).contains("which has no registered host; start `ci-policy fleet collector --pool");
  }

  @Test
  // a bad input that got past the checks would submit and, with --wait, follow jobs no collector runs: forever
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void badInputIsOneErrorLineWithTheBadInputCode() throws Exception {
    registerFleet(8);
    CliTestSupport.Result suite = run(env, nightly("--wait", "--suite", "stage-z"));
    assertThat(suite.code()).isEqualTo(FleetReport.EXIT_BAD_INPUT);
    assertThat(suite.err().lines().toList()).singleElement().asString().contains("--suite stage-z is not a suite of the policy on a fleet pool; expected one of [stage-b-2-gpu-h200,");

    Path policy = dir.resolve("bad.yaml");
    Files.writeString(policy, Files.readString(CliTestSupport.REPO.resolve(POLICY))
        .replaceFirst("--auto-partition-id, \"\\{shard}\"", "--auto-partition-id, \"{shard_id}\""));
    List<String> args = new java.util.ArrayList<>(List.of(nightly()));
    args.set(args.indexOf(POLICY), policy.toString());
    CliTestSupport.Result template = run(env, args.toArray(String[]::new));
    assertThat(template.code()).isEqualTo(FleetReport.EXIT_BAD_INPUT);
    assertThat(template.err().lines().toList()).singleElement().asString().contains("unknown placeholder {shard_id}");

    Map<String, String> noSha = new HashMap<>(env);
    noSha.remove("GITHUB_SHA");
    CliTestSupport.Result sha = run(noSha, nightly());
    assertThat(sha.code()).isEqualTo(FleetReport.EXIT_BAD_INPUT);
    assertThat(sha.err().lines().toList()).singleElement().asString().contains("no commit to test: pass --commit or set GITHUB_SHA");

    CliTestSupport.Result file = run(env, nightly("--test-file", "tests/e2e/nope.py"));
    assertThat(file.code()).isEqualTo(FleetReport.EXIT_BAD_INPUT);
    assertThat(file.err().lines().toList()).singleElement().asString().contains("tests/e2e/nope.py has no CI registration");
    assertThat(queue.ciRun("acme/trainer", 9001, 1)).isEmpty();
  }

  @Test
  void aStoreThatDoesNotAnswerWithinTheBudgetExitsWithItsOwnCode() {
    Map<String, String> down = new HashMap<>(env);
    down.put("CI_POLICY_FLEET_STORE", "jdbc:postgresql://127.0.0.1:1/none");
    CliTestSupport.Result r = run(down, nightly("--store-budget-seconds", "0"));
    assertThat(r.code()).isEqualTo(FleetReport.EXIT_STORE_UNREACHABLE);
    assertThat(r.err().lines().toList()).singleElement().asString()
        .startsWith("::error").contains("the fleet store did not answer for 0 s");
  }

  @Test
  void aRerunOfOneFileIsOneJobOnItsSuitesPoolWithTheFileInItsEnvironment() {
    registerFleet(8);
    CliTestSupport.Result r = run(env, "fleet", "submit", "--policy", POLICY, "--registrations", REGISTRATIONS,
        "--event-name", "issue_comment", "--cadence-override", "regular", "--test-file", "tests/e2e/test_lora.py",
        "--pr-number", "77");
    assertThat(r.code()).as(r.err()).isZero();
    Request request = queue.ciRun("acme/trainer", 9001, 1).orElseThrow();
    assertThat(request.ciRun().orElseThrow().concurrencyGroup()).isEmpty();
    assertThat(request.ciRun().orElseThrow().pr()).hasValue(77);
    Job job = queue.store().jobs(request.id()).get(0);
    assertThat(queue.store().jobs(request.id())).hasSize(1);
    assertThat(job.spec().benchmarkGroup()).isEqualTo("stage-c-4-gpu-h200-0of1");
    assertThat(job.spec().gpus()).isEqualTo(4);
    assertThat(CiJobArgs.read(job.spec().args().orElseThrow()).env())
        .containsEntry("CI_POLICY_TEST_FILE", "tests/e2e/test_lora.py");
    assertThat(job.state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  void sigtermWhileFollowingCancelsTheRunBeforeTheProcessExits() throws Exception {
    registerFleet(8);
    List<String> command = new java.util.ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), CiPolicyCli.class.getName()));
    command.addAll(List.of(nightly("--wait", "--suite", "stage-c-8-gpu-b200")));
    ProcessBuilder pb = new ProcessBuilder(command).directory(CliTestSupport.REPO.toFile())
        .redirectErrorStream(true).redirectOutput(dir.resolve("submit.log").toFile());
    Path summary = dir.resolve("step-summary.md");
    pb.environment().putAll(env);
    pb.environment().put("GITHUB_STEP_SUMMARY", summary.toString());
    Process p = pb.start();
    try {
      Request request = await(() -> queue.ciRun("acme/trainer", 9001, 1));
      Claim running = await(() -> queue.claim("b200-0", 1).claims().stream().findFirst());
      await(() -> {
        try {
          return Optional.of(Files.readString(dir.resolve("submit.log"))).filter(l -> l.contains("started "));
        } catch (java.io.IOException e) {
          return Optional.empty();
        }
      });
      p.destroy(); // SIGTERM, as the runner sends when GitHub cancels the step
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isNotZero();
      assertThat(queue.store().request(request.id()).orElseThrow().state()).isEqualTo(RequestState.CANCELLED);
      Job job = queue.store().job(running.job().id()).orElseThrow();
      // the running job is flagged, so its host kills the process at its next heartbeat
      assertThat(job.cancelRequested() || job.state() == JobState.CANCELLED).isTrue();
      assertThat(Files.readString(dir.resolve("submit.log")))
          .contains("started stage-c-8-gpu-b200-0of1 on b200-0", "the step was cancelled: cancelled run request "
              + request.id().value());
      // the step summary says what the cancellation stopped, once
      String table = Files.readString(summary);
      assertThat(table).contains("— cancelled", "stage-c-8-gpu-b200-0of1", "b200-0");
      assertThat(table.split("Fleet jobs of", -1)).hasSize(2);
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void fleetCancelCancelsTheOpenRunsOfAPullRequestAndOnlyThose() {
    registerFleet(8);
    env.put("PR_NUMBER", "77");
    assertThat(run(env, nightly()).code()).isZero();
    Map<String, String> other = new HashMap<>(env);
    other.put("GITHUB_RUN_ID", "9002");
    other.put("PR_NUMBER", "78");
    assertThat(run(other, nightly()).code()).isZero();
    Claim running = queue.claim("h200-0", 1).claims().get(0);

    CliTestSupport.Result r = run(env, "fleet", "cancel", "--pr", "77", "--reason", "PR closed");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines().toList()).singleElement().asString()
        .startsWith("cancelled acme/trainer run 9001 attempt 1").contains("1 running jobs stopped at their next heartbeat");
    Request cancelled = queue.ciRun("acme/trainer", 9001, 1).orElseThrow();
    assertThat(cancelled.state()).isEqualTo(RequestState.CANCELLED);
    assertThat(queue.store().job(running.job().id()).orElseThrow().cancelRequested()).isTrue();
    assertThat(queue.ciRun("acme/trainer", 9002, 1).orElseThrow().state()).isEqualTo(RequestState.IN_PROGRESS);

    CliTestSupport.Result none = run(env, "fleet", "cancel", "--pr", "77");
    assertThat(none.code()).isZero();
    assertThat(none.out()).isEqualTo("no open fleet run of acme/trainer pull request 77\n");
    CliTestSupport.Result both = run(env, "fleet", "cancel", "--pr", "77", "--run-id", "9001");
    assertThat(both.code()).isEqualTo(CiPolicyCli.EXIT_USAGE);
  }

  private static <T> T await(java.util.function.Supplier<Optional<T>> probe) throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      Optional<T> v = probe.get();
      if (v.isPresent()) {
        return v.get();
      }
      Thread.sleep(50);
    }
    throw new AssertionError("not seen within 30 s");
  }
}
