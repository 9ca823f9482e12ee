package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code ci-policy fleet lease} as several runners of one GPU host run it: separate JVMs on the real PostgreSQL
 * server (skipped when unreachable unless {@code CI_POLICY_PG_REQUIRED=true}), one simulated host with devices
 * 0-7, each command a script that records the devices it saw with its start and end times.
 */
class FleetLeaseTest {
  private static final String HOST = "sim-h200";
  /**
   * The leases' time: renewed every third of it. (With 3 s, at a load of 20 on two cores, a lease JVM stalled past
   * its lease and its command was stopped as stale.)
   */
  private static final long LEASE_SECONDS = 6;
  private static final int HOLD = -1;

  @TempDir
  Path dir;

  private PgTestServer server;
  private String schema;
  private Map<String, String> env;
  private Path script;
  private final List<Process> processes = new ArrayList<>();
  private final Map<Process, String> labels = new HashMap<>();
  private final Set<Long> orphans = new HashSet<>();

  @BeforeEach
  void connect() throws IOException {
    server = PgTestServer.reachable();
    schema = PgTestServer.freshSchema("cli_lease_");
    env = Map.of("CI_POLICY_FLEET_STORE", server.url(), "CI_POLICY_PG_USER", server.user(),
        "CI_POLICY_FLEET_SCHEMA", schema);
    script = dir.resolve("cmd.sh");
    // label, seconds (or hold: until the file release exists): records its pid, then start and end with the devices it saw (ns since the epoch)
    Files.writeString(script, """
        #!/bin/bash
        f="$(dirname "$0")/run-$1"
        echo "pid $$" >> "$f"
        echo "start $(date +%s%N) $CUDA_VISIBLE_DEVICES" >> "$f"
        if [ "$2" = hold ]; then
          while [ ! -e "$(dirname "$0")/release" ]; do sleep 0.05; done
        else
          sleep "$2"
        fi
        echo "end $(date +%s%N) $CUDA_VISIBLE_DEVICES" >> "$f"
        """);
  }

  @AfterEach
  void cleanUp() throws SQLException {
    for (Process p : processes) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    orphans.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    if (schema != null) {
      server.sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Test
  void mixedLeasesOfOneHostNeverShareADeviceAndTheEightGpuLeaseIsNotStarvedBySmallOnes() throws Exception {
    Process a = lease("a", 2, HOLD);
    Process d = lease("d", 4, HOLD);
    awaitStarted("a");
    awaitStarted("d");
    Process b = lease("b", 8, 1);
    awaitOutput(b, "lease: waiting: ");
    Process c1 = lease("c1", 1, 1);
    Process c2 = lease("c2", 2, 1);
    Process c3 = lease("c3", 1, 1);
    // the small leases wait while 2 devices are free: the host is reserved for b
    awaitOutput(c1, "lease: waiting: ");
    awaitOutput(c2, "lease: waiting: ");
    awaitOutput(c3, "lease: waiting: ");
    Thread.sleep(1000); // a few polls of every waiting lease
    assertThat(Stream.of("b", "c1", "c2", "c3").map(l -> dir.resolve("run-" + l)).filter(Files::exists)).isEmpty();
    Files.writeString(dir.resolve("release"), "");
    Map<String, Process> all = new LinkedHashMap<>();
    all.put("a", a);
    all.put("d", d);
    all.put("b", b);
    all.put("c1", c1);
    all.put("c2", c2);
    all.put("c3", c3);
    Map<String, Integer> gpus = Map.of("a", 2, "d", 4, "b", 8, "c1", 1, "c2", 2, "c3", 1);
    for (Map.Entry<String, Process> e : all.entrySet()) {
      assertThat(e.getValue().waitFor(90, TimeUnit.SECONDS)).as(e.getKey() + " ended").isTrue();
      assertThat(e.getValue().exitValue()).as(e.getKey() + ": " + out(e.getKey())).isZero();
    }
    Map<String, Interval> runs = new HashMap<>();
    for (String label : all.keySet()) {
      Interval r = interval(label);
      assertThat(r.devices()).as(label + " devices").hasSize(gpus.get(label)).allMatch(x -> x >= 0 && x <= 7);
      runs.put(label, r);
    }
    // no device held by two commands that ran at the same time
    List<String> labels = List.copyOf(runs.keySet());
    for (int i = 0; i < labels.size(); i++) {
      for (int j = i + 1; j < labels.size(); j++) {
        Interval x = runs.get(labels.get(i));
        Interval y = runs.get(labels.get(j));
        if (x.start() < y.end() && y.start() < x.end()) {
          assertThat(x.devices()).as(labels.get(i) + " and " + labels.get(j) + " overlap in time")
              .doesNotContainAnyElementsOf(y.devices());
        }
      }
    }
    // the 8-GPU lease, submitted while 6 devices were held, starts before the small leases submitted after it,
    // although 2 devices were free for them all along
    for (String small : List.of("c1", "c2", "c3")) {
      assertThat(runs.get("b").start()).as("b starts before " + small).isLessThan(runs.get(small).start());
      assertThat(runs.get(small).start()).as(small + " starts after b ends").isGreaterThanOrEqualTo(runs.get("b").end());
    }
    assertThat(out("b")).contains("lease: waiting: ").contains("lease: devices 0,1,2,3,4,5,6,7 of host " + HOST);
    // every lease's request is completed in the store, its job succeeded once
    assertThat(queue().store().openRequests()).isEmpty();
    for (String label : all.keySet()) {
      assertThat(jobOf(label).state()).as(label).isEqualTo(JobState.SUCCEEDED);
      assertThat(jobOf(label).attempt()).as(label + " claimed once").isEqualTo(1);
    }
  }

  @Test
  void aKilledHoldersDevicesComeBackAfterOneLeaseAndADeadWaiterDoesNotBlockTheHost() throws Exception {
    Process k = lease("k", 6, 60);
    awaitStarted("k");
    orphans.add(pid("k"));
    // l waits for k's devices (4 of the 2 free), polling, before k dies
    Process l = lease("l", 4, 1);
    awaitOutput(l, "lease: waiting: ");
    k.destroyForcibly(); // SIGKILL: the lease is neither renewed nor ended; the command lives on as an orphan
    k.waitFor(10, TimeUnit.SECONDS);
    long killedWall = System.currentTimeMillis() * 1_000_000L;
    assertThat(l.waitFor(90, TimeUnit.SECONDS)).as("l ended: " + out("l")).isTrue();
    assertThat(l.exitValue()).as(out("l")).isZero();
    Interval lr = interval("l");
    double after = (lr.start() - killedWall) / 1e9;
    // the documented bound: one lease time after k's last renewal (which came at most a third of a lease before
    // the kill), plus a poll of half a second: under 6.5 s, with 2.5 s more for a loaded machine
    assertThat(after).as("l started %.1f s after the kill", after).isLessThan(LEASE_SECONDS + 3);
    assertThat(jobOf("k").state()).as("no lease of the killed holder is live").isNotEqualTo(JobState.LEASED);

    // a waiter killed while it waits is cancelled by the next lease that claims its job
    Process h = lease("h", 2, 3);
    awaitStarted("h");
    Process w = lease("w", 8, 1);
    awaitOutput(w, "lease: job ");
    w.destroyForcibly();
    w.waitFor(10, TimeUnit.SECONDS);
    Process s = lease("s", 8, 1);
    assertThat(s.waitFor(90, TimeUnit.SECONDS)).as("s ended: " + out("s")).isTrue();
    assertThat(s.exitValue()).as(out("s")).isZero();
    assertThat(Files.exists(dir.resolve("run-w"))).as("the dead waiter's command never ran").isFalse();
    assertThat(interval("s").start()).isGreaterThanOrEqualTo(interval("h").end());
    assertThat(jobOf("w").state()).isEqualTo(JobState.CANCELLED);
    // the killed holder's job, requeued when its lease expired, was cancelled too: it never runs again
    Job kJob = jobOf("k");
    assertThat(kJob.state()).isEqualTo(JobState.CANCELLED);
    assertThat(queue().store().request(kJob.requestId()).orElseThrow().state().name()).isEqualTo("CANCELLED");
    assertThat(Files.readAllLines(dir.resolve("run-k")).stream().filter(x -> x.startsWith("start "))).hasSize(1);
  }

  @Test
  void aCadenceWaitsForItsShareWhileOthersUseTheFreeDevices() throws Exception {
    queue().setShares(FleetShares.of(FleetShares.Share.gpus("nightly", HOST, 4)));
    Process n1 = lease("n1", 4, HOLD, "--cadence", "nightly");
    awaitStarted("n1");
    Process n2 = lease("n2", 2, 1, "--cadence", "nightly");
    awaitOutput(n2, "lease: waiting: ");
    Process p1 = lease("p1", 2, 1);
    assertThat(p1.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(p1.exitValue()).as(out("p1")).isZero();
    assertThat(Files.exists(dir.resolve("run-n2"))).as("n2 waits for its share, not for devices").isFalse();
    assertThat(out("n2")).contains("lease: waiting: cadence nightly holds 4 of 4 GPUs of pool " + HOST);
    Files.writeString(dir.resolve("release"), "");
    for (Process p : List.of(n1, n2)) {
      assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isZero();
    }
    assertThat(interval("n2").start()).isGreaterThanOrEqualTo(interval("n1").end());
    assertThat(interval("p1").end()).isLessThan(interval("n1").end());
  }

  @Test
  void aSignalKillsTheCommandAndEndsTheLeaseAtOnce() throws Exception {
    Process t = lease("t", 8, 60);
    awaitStarted("t");
    long cmd = pid("t");
    ProcessHandle.of(t.pid()).orElseThrow().destroy(); // SIGTERM
    assertThat(t.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(t.exitValue()).isNotZero();
    assertThat(ProcessHandle.of(cmd).map(ProcessHandle::isAlive).orElse(false)).as("the command is gone").isFalse();
    assertThat(jobOf("t").state()).isEqualTo(JobState.CANCELLED);
    // its devices are free at once, long before a lease would expire
    Process u = lease("u", 8, 0);
    assertThat(u.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(u.exitValue()).as(out("u")).isZero();
  }

  @Test
  void theCommandsExitCodeIsTheLeasesAndTheDevicesGoInTheBackendsVariables() throws Exception {
    Path probe = dir.resolve("probe.sh");
    Path seen = dir.resolve("seen");
    Files.writeString(probe, "#!/bin/bash\necho \"$HIP_VISIBLE_DEVICES $ROCR_VISIBLE_DEVICES $CUDA_VISIBLE_DEVICES\""
        + " > " + seen + "\nexit 3\n");
    CliTestSupport.Result r = run(env, "fleet", "lease", "--host", HOST, "--devices", "0-7", "--pool", "mi350",
        "--policy", POLICY, "--backend", "rocm", "--gpus", "2", "--lease-seconds", "3", "--", "bash",
        probe.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(3);
    assertThat(Files.readString(seen).strip()).isEqualTo("0,1 0,1");
    assertThat(r.out()).contains("lease: devices 0,1 of host " + HOST + " after").contains("exited with code 3");
    assertThat(r.out().lines().filter(l -> l.startsWith("::"))).isEmpty();
    long id = Long.parseLong(r.out().lines().filter(l -> l.startsWith("lease: job ")).findFirst().orElseThrow()
        .split(" ")[2]);
    Job job = queue().store().job(JobId.of(id)).orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.FAILED);
    assertThat(job.failure()).hasValueSatisfying(f -> assertThat(f.detail()).contains("exited with code 3"));
    assertThat(queue().store().openRequests()).isEmpty();
  }

  @Test
  void badInputIsOneErrorLineAndNothingInTheStore() {
    CliTestSupport.Result none = run(env, "fleet", "lease", "--host", HOST, "--devices", "0-7", "--gpus", "2");
    assertThat(none.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(none.err().lines().toList()).singleElement().asString().startsWith("::error")
        .contains("no command to run; give it after --");
    CliTestSupport.Result big = run(env, "fleet", "lease", "--host", HOST, "--devices", "0-7", "--gpus", "9", "--",
        "true");
    assertThat(big.err().lines().toList()).singleElement().asString().startsWith("::error")
        .contains("--gpus 9 is more than host " + HOST + " has: 8 devices");
    CliTestSupport.Result pool = run(env, "fleet", "lease", "--host", HOST, "--devices", "0-7", "--gpus", "2",
        "--policy", POLICY, "--pool", "h300", "--", "true");
    assertThat(pool.err().lines().toList()).singleElement().asString().startsWith("::error")
        .contains("pool 'h300' is not in the policy's fleet; expected one of [");
    CliTestSupport.Result backend = run(env, "fleet", "lease", "--host", HOST, "--devices", "0-7", "--gpus", "2",
        "--backend", "cuda", "--", "true");
    assertThat(backend.err().lines().toList()).singleElement().asString().contains("needs --policy");
    for (CliTestSupport.Result r : List.of(none, big, pool, backend)) {
      assertThat(r.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
      assertThat(r.out()).isEmpty();
      assertThat(r.err()).doesNotContain("\tat ");
    }
    // a command that does not exist: one line with the reason, not Java's exception, and the lease ended
    CliTestSupport.Result missing = run(env, "fleet", "lease", "--host", HOST, "--devices", "0-7", "--gpus", "1", "--",
        "/nonexistent/cmd");
    assertThat(missing.code()).isEqualTo(CiPolicyCli.EXIT_ERROR);
    assertThat(missing.err().lines().toList()).singleElement().asString().isEqualTo("::error::cannot start"
        + " /nonexistent/cmd: No such file or directory; expected a program on the PATH or the path of an executable"
        + " (there is no shell: write -- bash -c '...' for one)");
    // a second host in a lease pool is refused: a lease pool is one host's
    assertThat(run(env, "fleet", "lease", "--host", HOST, "--devices", "0-1", "--gpus", "1", "--", "true").code())
        .isZero();
    CliTestSupport.Result second = run(env, "fleet", "lease", "--host", "other", "--pool", HOST, "--devices", "0-1",
        "--gpus", "1", "--", "true");
    assertThat(second.err().lines().toList()).singleElement().asString()
        .contains("pool '" + HOST + "' is also served by " + HOST);
  }

  private Process lease(String label, int gpus, int seconds, String... options) throws IOException {
    List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m", "-cp", System.getProperty("java.class.path"),
        CiPolicyCli.class.getName(), "fleet", "lease", "--host", HOST, "--devices", "0-7",
        "--lease-seconds", Long.toString(LEASE_SECONDS), "--gpus", Integer.toString(gpus)));
    argv.addAll(List.of(options));
    argv.addAll(List.of("--", "bash", script.toString(), label, seconds == HOLD ? "hold" : Integer.toString(seconds)));
    ProcessBuilder pb = new ProcessBuilder(argv)
        .redirectErrorStream(true).redirectOutput(dir.resolve("out-" + label).toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    processes.add(p);
    labels.put(p, label);
    return p;
  }

  private String out(String label) throws IOException {
    Path f = dir.resolve("out-" + label);
    return Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : "";
  }

  private void awaitStarted(String label) throws Exception {
    awaitFile(dir.resolve("run-" + label), "start ");
  }

  private void awaitOutput(Process p, String text) throws Exception {
    awaitFile(dir.resolve("out-" + labels.get(p)), text);
  }

  private void awaitFile(Path f, String text) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      if (Files.exists(f) && Files.readString(f).contains(text)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError(f.getFileName() + " never showed '" + text + "': "
        + (Files.exists(f) ? Files.readString(f) : "(missing)"));
  }

  private long pid(String label) throws IOException {
    return Long.parseLong(lines(label).filter(l -> l.startsWith("pid ")).findFirst().orElseThrow().substring(4));
  }

  private Stream<String> lines(String label) throws IOException {
    return Files.readAllLines(dir.resolve("run-" + label)).stream();
  }

  private Interval interval(String label) throws IOException {
    List<String> starts = lines(label).filter(l -> l.startsWith("start ")).toList();
    List<String> ends = lines(label).filter(l -> l.startsWith("end ")).toList();
    assertThat(starts).as(label + " ran exactly once").hasSize(1);
    assertThat(ends).as(label + " ended exactly once").hasSize(1);
    String[] s = starts.get(0).split(" ");
    String[] e = ends.get(0).split(" ");
    List<Integer> devices = s.length < 3 ? List.of() : Arrays.stream(s[2].split(",")).map(Integer::valueOf).toList();
    return new Interval(Long.parseLong(s[1]), Long.parseLong(e[1]), devices);
  }

  private JobQueue queue() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(server.url());
    ds.setUser(server.user());
    return JobQueue.of(PostgresQueueStore.create(ds, schema), QueueSettings.builder().noJobs(true).build());
  }

  /** The job of the lease process that printed its id. */
  private Job jobOf(String label) throws IOException {
    String line = out(label).lines().filter(l -> l.startsWith("lease: job ")).findFirst().orElseThrow();
    long id = Long.parseLong(line.split(" ")[2]);
    return queue().store().job(JobId.of(id)).orElseThrow();
  }

  private record Interval(long start, long end, List<Integer> devices) {}
}
