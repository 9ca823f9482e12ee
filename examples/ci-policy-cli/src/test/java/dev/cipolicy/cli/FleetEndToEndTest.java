package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.JobPlan;
import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.api.suite.RunFacts;
import dev.cipolicy.core.CommandPlanner;
import dev.cipolicy.core.SuitePlanner;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.core.load.RegistrationLoader;
import dev.cipolicy.fleet.job.CiJob;
import dev.cipolicy.fleet.job.CiJobArgs;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.SuiteJobs;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.SubmitResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * GPU CI on the fleet, end to end, on the real PostgreSQL server (skipped when it is unreachable unless
 * {@code CI_POLICY_PG_REQUIRED=true}): two simulated GPU hosts, each a separate {@code ci-policy fleet collector}
 * process that detects its devices with a fake {@code nvidia-smi} on its {@code PATH} ({@code host-a} 8 GPUs,
 * {@code host-b} 4), fetching each run's commit from a local bare repository, the remote of {@code acme/trainer}.
 * Runs are planned from the fleet example policy ({@code examples/policies/fleet.yaml}) and its registrations, so
 * each job runs the policy's command, {@code bash ci/run_suite.sh --suite ...}: in the bare repository that is a
 * script recording, in a file shared by both hosts, the host, the devices it saw ({@code CUDA_VISIBLE_DEVICES}),
 * its commit ({@code git rev-parse HEAD}), its run and its start, end or stop time.
 *
 * <p>After every scenario the records must show that no device of a host was seen by two live jobs at once and
 * that every job saw its own run's commit.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FleetEndToEndTest {
  static final String REPOSITORY = "acme/trainer";
  static final String POLICY = "examples/policies/fleet.yaml";
  static final String REGISTRATIONS = "examples/registrations/fleet.yaml";
  /** The collectors' lease: a heartbeat every third of it. */
  static final int LEASE_SECONDS = 3;
  static final Duration HEARTBEAT = Duration.ofSeconds(LEASE_SECONDS).dividedBy(3);

  @TempDir
  static Path root;

  static PgTestServer server;
  static String schema;
  static JobQueue queue;
  static Path shared;
  static Path source;
  static Path origin;
  static LoadedPolicy policy;
  static SuiteRegistry registry;
  static final Map<String, Process> collectors = new LinkedHashMap<>();
  /** The commit each run id tests. */
  static final Map<String, String> commitOfRun = new HashMap<>();
  /** When the harness killed each host (epoch nanoseconds): its jobs' processes died with it. */
  static final Map<String, Long> killedAt = new HashMap<>();

  @BeforeAll
  static void fleet() throws Exception {
    server = PgTestServer.reachable();
    schema = PgTestServer.freshSchema("cli_e2e_");
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(server.url());
    ds.setUser(server.user());
    queue = JobQueue.of(PostgresQueueStore.create(ds, schema), QueueSettings.builder().noJobs(true).build());
    policy = PolicyLoader.load(POLICY, Files.readString(CliTestSupport.REPO.resolve(POLICY)));
    registry = RegistrationLoader.load(REGISTRATIONS, Files.readString(CliTestSupport.REPO.resolve(REGISTRATIONS)),
        policy.resolver());
    shared = Files.createDirectories(root.resolve("shared"));
    Files.writeString(shared.resolve("records"), "");
    origin = root.resolve("origin.git");
    source = root.resolve("source");
    git(root, "init", "-q", "--bare", origin.toString());
    git(root, "init", "-q", "-b", "main", source.toString());
    Files.createDirectories(source.resolve("ci"));
    Files.writeString(source.resolve("ci/run_suite.sh"), SUITE_SCRIPT);
    commit("the suite script");
    startCollector("host-a", 8);
    startCollector("host-b", 4);
  }

  /**
   * The suite command of the harness. It records what it saw and when, sleeps as long as the file
   * {@code sleep-<run id>} says (1 s without it), and fails with a test's output when {@code fail-<run id>-<job>}
   * exists. A stop (the collector killing it on cancel) is recorded too.
   */
  static final String SUITE_SCRIPT = """
      #!/usr/bin/env bash
      set -u
      suite= shard= cadence=
      while [ $# -gt 0 ]; do
        case "$1" in
          --suite) suite=$2; shift 2 ;;
          --shard) shard=$2; shift 2 ;;
          --cadence) cadence=$2; shift 2 ;;
          *) shift ;;
        esac
      done
      commit=$(git rev-parse HEAD)
      record() {
        printf '%s job=%s run=%s host=%s devices=%s commit=%s cadence=%s pid=%s t=%s\\n' "$1" "$CI_JOB" "$CI_RUN_ID" \\
          "$E2E_HOST" "$CUDA_VISIBLE_DEVICES" "$commit" "$cadence" "$$" "$(date +%s%N)" >> "$E2E_DIR/records"
      }
      trap 'record stop; exit 143' TERM INT
      record start
      echo "suite $suite shard $shard on devices $CUDA_VISIBLE_DEVICES at $commit"
      seconds=1
      if [ -f "$E2E_DIR/sleep-$CI_RUN_ID" ]; then seconds=$(cat "$E2E_DIR/sleep-$CI_RUN_ID"); fi
      sleep "$seconds" &
      wait $!
      if [ -f "$E2E_DIR/fail-$CI_RUN_ID-$CI_JOB" ]; then
        echo "tests/gpu/test_loss.py::test_converges FAILED"
        echo "AssertionError: loss 2.31 is above the bound 1.50"
        record failed
        exit 1
      fi
      echo "all tests of $suite passed"
      record end
      """;

  @AfterAll
  static void stop() throws SQLException {
    collectors.values().forEach(FleetEndToEndTest::killTree);
    if (schema != null && server != null) {
      server.sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  // ---- the scenarios ----

  @Test
  @Order(1)
  void aLabelledPullRequestRunsEveryJobOnItsDevicesAtItsCommit() throws Exception {
    String sha = commit("the pull request");
    RequestId run = submit(101, sha, "pull_request", "regular", List.of("run-ci-train", "run-ci-infer"), 7L, "gpu-tests-7");
    List<Job> jobs = awaitTerminal(run);
    assertThat(jobs).extracting(j -> j.spec().benchmarkGroup())
        .containsExactlyInAnyOrder("stage-a-1-gpu-0of2", "stage-a-1-gpu-1of2", "stage-b-2-gpu", "stage-c-4-gpu");
    assertThat(jobs).allMatch(j -> j.state() == JobState.SUCCEEDED);
    List<Record> records = records("101");
    assertThat(records).filteredOn(r -> r.kind().equals("end")).hasSize(4);
    for (Record r : records) {
      assertThat(r.devices()).as("%s", r).hasSize(gpusOf(r.job()));
    }
    checkInvariants();
  }

  @Test
  @Order(2)
  void aSynchronizeSupersedesTheOlderRunAndItsJobsAreCancelled() throws Exception {
    Files.writeString(shared.resolve("sleep-201"), "30");
    String first = commit("the pull request, first push");
    RequestId older = submit(201, first, "pull_request", "regular", List.of("run-ci-train"), 8L, "gpu-tests-8");
    awaitRecords("201", "start", 2);
    String second = commit("the pull request, second push");
    SubmitResult newer = submitResult(202, second, "pull_request", "regular", List.of("run-ci-train"), 8L,
        "gpu-tests-8");
    assertThat(newer.superseded()).as("%s", newer).isNotEmpty();
    List<Job> cancelled = awaitTerminal(older);
    assertThat(cancelled).allMatch(j -> j.state() == JobState.CANCELLED);
    List<Job> done = awaitTerminal(newer.request().id());
    assertThat(done).allMatch(j -> j.state() == JobState.SUCCEEDED);
    awaitGone(records("201"));
    assertThat(records("201")).noneMatch(r -> r.kind().equals("end"));
    checkInvariants();
  }

  @Test
  @Order(3)
  void aClosedPullRequestsJobsAreCancelledAndTheirProcessesGoneWithinAHeartbeatAndASecond() throws Exception {
    Files.writeString(shared.resolve("sleep-301"), "30");
    String sha = commit("another pull request");
    RequestId run = submit(301, sha, "pull_request", "regular", List.of("run-ci-train", "run-ci-ckpt"), 9L, "gpu-tests-9");
    awaitRecords("301", "start", 3);
    long cancelledAt = System.nanoTime();
    queue.cancel(run, "PR closed");
    List<Record> started = records("301").stream().filter(r -> r.kind().equals("start")).toList();
    awaitGone(started);
    Duration took = Duration.ofNanos(System.nanoTime() - cancelledAt);
    assertThat(took).as("cancel to every process gone").isLessThanOrEqualTo(HEARTBEAT.plusSeconds(1));
    assertThat(awaitTerminal(run)).allMatch(j -> j.state() == JobState.CANCELLED);
    checkInvariants();
  }

  @Test
  @Order(4)
  void aNightlyAndAWeeklyAtOnceTheWeeklyNeverHoldsMoreThanItsShare() throws Exception {
    queue.setShares(FleetShares.of(FleetShares.Share.gpus("weekly", "gpu", 4)));
    try {
      Files.writeString(shared.resolve("sleep-401"), "2");
      Files.writeString(shared.resolve("sleep-402"), "2");
      String sha = commit("main at night");
      RequestId nightly = submit(401, sha, "schedule", "nightly", List.of(), null, "gpu-tests-0 2 * * 1-6");
      RequestId weekly = submit(402, sha, "schedule", "weekly", List.of(), null, "gpu-tests-0 2 * * 0");
      assertThat(awaitTerminal(nightly)).allMatch(j -> j.state() == JobState.SUCCEEDED);
      assertThat(awaitTerminal(weekly)).allMatch(j -> j.state() == JobState.SUCCEEDED);
      int most = mostHeldAtOnce(records("402"));
      assertThat(most).as("the weekly's GPUs at once").isLessThanOrEqualTo(4);
      assertThat(mostHeldAtOnce(records("401"))).as("the nightly is not capped").isGreaterThan(4);
    } finally {
      queue.setShares(FleetShares.none());
    }
    checkInvariants();
  }

  @Test
  @Order(5)
  void aFailingTestFailsItsJobWithTheTestsOutputInItsLog() throws Exception {
    String sha = commit("a pull request that breaks a test");
    Files.writeString(shared.resolve("fail-501-stage-b-2-gpu-0of1"), "");
    RequestId run = submit(501, sha, "pull_request", "regular", List.of("run-ci-ckpt"), 11L, "gpu-tests-11");
    List<Job> jobs = awaitTerminal(run);
    Job failed = jobs.stream().filter(j -> j.spec().benchmarkGroup().equals("stage-b-2-gpu")).findFirst()
        .orElseThrow();
    assertThat(failed.state()).isEqualTo(JobState.FAILED);
    assertThat(failed.failure()).get().extracting(f -> f.detail()).asString().contains("exited with code 1");
    assertThat(queue.log(failed.id()).orElseThrow().text()).contains("AssertionError: loss 2.31 is above the bound");
    checkInvariants();
  }

  @Test
  @Order(9)
  void aHostKilledMidJobHasItsJobRunToItsEndOnTheOtherHostExactlyOnce() throws Exception {
    Files.writeString(shared.resolve("sleep-901"), "4");
    String sha = commit("a pull request on a host that dies");
    RequestId run = submit(901, sha, "pull_request", "regular", List.of("run-ci-train", "run-ci-ckpt"), 12L,
        "gpu-tests-12");
    // wait until host-a runs a job, then kill the whole host: the collector and every process it started
    awaitTrue(() -> records("901").stream().anyMatch(r -> r.kind().equals("start") && r.host().equals("host-a")));
    killTree(collectors.get("host-a"));
    killedAt.put("host-a", Instant.now().toEpochMilli() * 1_000_000L);
    List<Job> jobs = awaitTerminal(run);
    assertThat(jobs).allMatch(j -> j.state() == JobState.SUCCEEDED);
    List<Record> records = records("901");
    List<String> killed = records.stream().filter(r -> r.kind().equals("start") && r.host().equals("host-a"))
        .map(Record::job).toList();
    assertThat(killed).isNotEmpty();
    for (String job : killed) {
      assertThat(records).as("%s ran to its end once, on host-b", job)
          .filteredOn(r -> r.job().equals(job) && r.kind().equals("end")).singleElement()
          .extracting(Record::host).isEqualTo("host-b");
    }
    for (Job j : jobs) {
      assertThat(records).filteredOn(r -> r.job().equals(jobName(j)) && r.kind().equals("end")).hasSize(1);
    }
    checkInvariants();
  }

  // ---- the invariants over every record so far ----

  /** One line of the suite script. */
  record Record(String kind, String job, String run, String host, List<Integer> devices, String commit,
      String cadence, long pid, long nanos) {}

  private static final Pattern LINE = Pattern.compile("(\\S+) job=(\\S+) run=(\\S+) host=(\\S+) devices=(\\S*)"
      + " commit=(\\S+) cadence=(\\S*) pid=(\\d+) t=(\\d+)");

  static List<Record> records() throws IOException {
    List<Record> out = new ArrayList<>();
    for (String line : Files.readAllLines(shared.resolve("records"))) {
      Matcher m = LINE.matcher(line);
      assertThat(m.matches()).as("record line %s", line).isTrue();
      List<Integer> devices = m.group(5).isEmpty() ? List.of()
          : java.util.Arrays.stream(m.group(5).split(",")).map(Integer::valueOf).toList();
      out.add(new Record(m.group(1), m.group(2), m.group(3), m.group(4), devices, m.group(6), m.group(7),
          Long.parseLong(m.group(8)), Long.parseLong(m.group(9))));
    }
    return out;
  }

  static List<Record> records(String run) {
    try {
      return records().stream().filter(r -> r.run().equals(run)).toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A process's run on a host: from its start record to its end, failure or stop, or its host's death. */
  record Interval(Record start, long end) {}

  static List<Interval> intervals(List<Record> records) {
    List<Interval> out = new ArrayList<>();
    for (Record s : records) {
      if (!s.kind().equals("start")) {
        continue;
      }
      Optional<Record> finish = records.stream().filter(r -> r.pid() == s.pid() && r.host().equals(s.host())
          && !r.kind().equals("start")).findFirst();
      long end = finish.map(Record::nanos).orElseGet(() -> {
        Long killed = killedAt.get(s.host());
        assertThat(killed).as("%s has no end, stop or killed host", s).isNotNull();
        return killed;
      });
      out.add(new Interval(s, end));
    }
    return out;
  }

  /** No device of a host seen by two live jobs at once; every job saw its run's commit. */
  static void checkInvariants() throws IOException {
    List<Record> all = records();
    List<Interval> runs = intervals(all);
    for (int i = 0; i < runs.size(); i++) {
      for (int k = i + 1; k < runs.size(); k++) {
        Interval a = runs.get(i);
        Interval b = runs.get(k);
        boolean overlap = a.start().nanos() < b.end() && b.start().nanos() < a.end();
        if (overlap && a.start().host().equals(b.start().host())) {
          assertThat(a.start().devices()).as("%s and %s at once on one host", a.start(), b.start())
              .doesNotContainAnyElementsOf(b.start().devices());
        }
      }
    }
    for (Record r : all) {
      assertThat(r.commit()).as("the commit %s saw", r).isEqualTo(commitOfRun.get(r.run()));
    }
  }

  /** The most GPUs the records' processes held at one time. */
  static int mostHeldAtOnce(List<Record> records) {
    List<Interval> runs = intervals(records);
    int most = 0;
    for (Interval at : runs) {
      long t = at.start().nanos();
      int held = runs.stream().filter(o -> o.start().nanos() <= t && t < o.end())
          .mapToInt(o -> o.start().devices().size()).sum();
      most = Math.max(most, held);
    }
    return most;
  }

  // ---- runs through the Java API, planned as the policy plans them ----

  static RequestId submit(long runId, String sha, String event, String cadence, List<String> labels, Long pr,
      String group) {
    SubmitResult r = submitResult(runId, sha, event, cadence, labels, pr, group);
    assertThat(r.request()).isNotNull();
    return r.request().id();
  }

  static SubmitResult submitResult(long runId, String sha, String event, String cadence, List<String> labels,
      Long pr, String group) {
    commitOfRun.put(Long.toString(runId), sha);
    List<PlannedJob> planned = SuitePlanner.of(registry).plan(policy.resolver().resolveCadence(cadence, labels),
        new StageSelection(List.of(), List.of(), Optional.empty(), new Explanation("every stage", List.of(),
            List.of())));
    RunFacts.Builder facts = RunFacts.builder().commit(sha).runId(Long.toString(runId)).attempt(1).cadence(cadence)
        .labels(labels);
    if (pr != null) {
      facts.pr(pr.intValue());
    }
    List<JobPlan> plans = CommandPlanner.of(policy.policy()).plan(planned, facts.build());
    List<JobSpec> specs = new ArrayList<>();
    List<JobSpec> bare = SuiteJobs.specs(planned, cadence);
    for (int i = 0; i < plans.size(); i++) {
      JobPlan p = plans.get(i);
      CiJob job = CiJob.builder().repository(REPOSITORY).commit(sha).command(p.argv()).env(p.env())
          .deviceEnv(p.deviceEnv()).image(p.image()).build();
      specs.add(JobSpec.builder().from(bare.get(i)).args(CiJobArgs.write(job)).build());
    }
    CiRun run = CiRun.of(REPOSITORY, runId, 1, sha, event).withCadence(cadence).withLabels(labels)
        .withWorkflow("GPU tests").withConcurrencyGroup(group);
    if (pr != null) {
      run = run.withPr(pr);
    }
    return queue.submitCiRun(run, specs);
  }

  static String jobName(Job j) {
    String g = j.spec().benchmarkGroup();
    return g.matches(".*-\\d+of\\d+") ? g : g + "-0of1";
  }

  static int gpusOf(String job) {
    return job.startsWith("stage-a") ? 1 : job.startsWith("stage-b") ? 2 : 4;
  }

  static List<Job> awaitTerminal(RequestId run) throws InterruptedException {
    awaitTrue(() -> queue.store().jobs(run).stream().allMatch(j -> j.state().isTerminal()));
    return queue.store().jobs(run);
  }

  static void awaitRecords(String run, String kind, int count) throws InterruptedException {
    awaitTrue(() -> records(run).stream().filter(r -> r.kind().equals(kind)).count() >= count);
  }

  /** Waits until no process that wrote one of the records lives. */
  static void awaitGone(List<Record> records) throws InterruptedException {
    awaitTrue(() -> records.stream().noneMatch(r -> ProcessHandle.of(r.pid()).map(ProcessHandle::isAlive)
        .orElse(false)));
  }

  static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 90 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  // ---- the hosts ----

  /** Starts a collector process for a host whose fake nvidia-smi lists {@code gpus} devices. */
  static void startCollector(String host, int gpus) throws Exception {
    Path dir = Files.createDirectories(root.resolve(host));
    Path bin = Files.createDirectories(dir.resolve("bin"));
    StringBuilder smi = new StringBuilder("#!/bin/sh\n"
        + "[ \"$1\" = --query-gpu=index ] || { echo \"unexpected arguments: $*\" >&2; exit 2; }\n");
    for (int i = 0; i < gpus; i++) {
      smi.append("echo '").append(i).append(", NVIDIA H100 80GB HBM3'\n");
    }
    Path tool = bin.resolve("nvidia-smi");
    Files.writeString(tool, smi.toString());
    assertThat(tool.toFile().setExecutable(true)).isTrue();
    List<String> command = new ArrayList<>(List.of(javaBin(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-Xmx256m", "-cp", System.getProperty("java.class.path"), CiPolicyCli.class.getName(), "fleet", "collector",
        "--policy", POLICY, "--pool", "gpu", "--name", host, "--gpu-tool", "nvidia-smi",
        "--remote", REPOSITORY + "=" + origin.toUri(), "--cache-dir", dir.resolve("cache").toString(),
        "--work-dir", dir.resolve("work").toString(), "--lease-seconds", Integer.toString(LEASE_SECONDS),
        "--grace-seconds", "2"));
    ProcessBuilder pb = new ProcessBuilder(command).directory(CliTestSupport.REPO.toFile())
        .redirectErrorStream(true).redirectOutput(dir.resolve("collector.log").toFile());
    Map<String, String> env = pb.environment();
    env.put("PATH", bin + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
    env.putAll(storeEnv());
    env.put("E2E_HOST", host);
    env.put("E2E_DIR", shared.toString());
    Process p = pb.start();
    collectors.put(host, p);
    awaitTrue(() -> {
      assertThat(p.isAlive()).as("collector %s: %s", host, read(dir.resolve("collector.log"))).isTrue();
      return read(dir.resolve("collector.log")).contains("collector " + host + " serves pool gpu with devices");
    });
    assertThat(read(dir.resolve("collector.log"))).contains("devices " + java.util.stream.IntStream.range(0, gpus)
        .boxed().toList());
  }

  static Map<String, String> storeEnv() {
    return Map.of("CI_POLICY_FLEET_STORE", server.url(), "CI_POLICY_PG_USER", server.user(),
        "CI_POLICY_FLEET_SCHEMA", schema);
  }

  static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** SIGKILLs a process and everything it started, as a host that dies takes its processes with it. */
  static void killTree(Process p) {
    List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
    p.destroyForcibly();
    tree.forEach(ProcessHandle::destroyForcibly);
    try {
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- the repository ----

  /** Commits the source's state (with an empty change) and pushes it to the remote; returns its SHA. */
  static String commit(String message) throws Exception {
    git(source, "add", "-A");
    git(source, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "--allow-empty", "-m", message);
    String sha = git(source, "rev-parse", "HEAD").strip();
    git(source, "push", "-q", origin.toString(), "HEAD:refs/heads/main");
    return sha;
  }

  static String git(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("git %s: %s", List.of(args), text).isZero();
    return text;
  }
}
