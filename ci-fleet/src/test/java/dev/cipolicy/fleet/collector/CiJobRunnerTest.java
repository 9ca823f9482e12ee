package dev.cipolicy.fleet.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.fleet.job.CiJob;
import dev.cipolicy.fleet.job.CiJobArgs;
import dev.cipolicy.fleet.workspace.GitWorkspaces;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.worker.CollectorRuntime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A collector with the CI job runner on the in-memory queue, real git and real processes: each job runs its
 * command in a checkout of its run's commit, on the devices its lease granted, and its outcome comes back.
 */
@Timeout(120)
class CiJobRunnerTest {

  private static final String REPO = "acme/trainer";
  private static final String POOL = "h200";

  @TempDir Path tmp;
  private Path remote;
  private Path out;
  private String commit;

  @BeforeEach
  void remoteWithASuiteScript() throws Exception {
    Path src = tmp.resolve("src");
    remote = tmp.resolve("remote.git");
    out = Files.createDirectories(tmp.resolve("out"));
    git(tmp, "init", "-q", "--bare", remote.toString());
    git(tmp, "init", "-q", "-b", "main", src.toString());
    // The suite command: records the devices it saw and the commit it runs on, then exits with the code given.
    Files.writeString(src.resolve("run_suite.sh"), "#!/bin/sh\n"
        + "echo \"devices=$CUDA_VISIBLE_DEVICES commit=$(git rev-parse HEAD)\" > \"$OUT/$1.txt\"\n"
        + "echo \"suite $1 ran\"\n"
        + "exit $2\n");
    git(src, "add", "run_suite.sh");
    git(src, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "suite");
    commit = git(src, "rev-parse", "HEAD").strip();
    git(src, "push", "-q", remote.toString(), "main");
  }

  @Test
  void runsEachJobsCommandInItsCommitOnItsDevicesAndReportsItsOutcome() throws Exception {
    JobQueue queue = JobQueue.inMemory(Clock.systemUTC(), QueueSettings.builder().noJobs(true)
        .leaseDuration(Duration.ofSeconds(10)).collectorTimeout(Duration.ofSeconds(10)).build());
    RequestId run = queue.submitCiRun(CiRun.of(REPO, 42, 1, commit, "pull_request"), List.of(
        spec("passes", 2, job("passes", 0)), spec("fails", 1, job("fails", 3)),
        spec("elsewhere", 1, CiJob.builder().from(job("elsewhere", 0)).repository("other/repo").build())))
        .request().id();
    GitWorkspaces workspaces = new GitWorkspaces(tmp.resolve("cache"), tmp.resolve("work"), Duration.ofMinutes(1),
        "git");
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("h200-0").tag(POOL)
        .devices(Devices.count(4)).concurrency(4).claimInterval(Duration.ofMillis(50))
        .runner(new CiJobRunner(workspaces, Map.of(REPO, remote.toString()), "", "")).start()) {
      await(() -> queue.store().jobs(run).stream().allMatch(j -> j.state().isTerminal()));
      // the store records the outcome before the runtime lets go of the lease: wait for both
      await(() -> collector.runningLeases().isEmpty());
    }
    Map<String, Job> jobs = new java.util.HashMap<>();
    queue.store().jobs(run).forEach(j -> jobs.put(j.spec().benchmarkGroup(), j));
    assertThat(jobs.get("passes").state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(jobs.get("fails").state()).isEqualTo(JobState.FAILED);
    assertThat(jobs.get("fails").failure()).get().extracting(f -> f.detail()).asString()
        .contains("exited with code 3");
    // a failing suite is a verdict: failed on its first attempt, not retried
    assertThat(jobs.get("fails").attempt()).isEqualTo(1);
    assertThat(jobs.get("fails").failure()).get().extracting(f -> f.reason())
        .isEqualTo(dev.cipolicy.queue.model.JobFailure.Reason.PERMANENT);
    assertThat(jobs.get("elsewhere").state()).isEqualTo(JobState.FAILED);
    assertThat(jobs.get("elsewhere").failure()).get().extracting(f -> f.detail()).asString()
        .contains("this host does not serve repository other/repo");
    String passes = Files.readString(out.resolve("passes.txt"));
    assertThat(passes).matches("devices=\\d,\\d commit=" + commit + "\\n");
    assertThat(Files.readString(out.resolve("fails.txt"))).matches("devices=\\d commit=" + commit + "\\n");
    assertThat(tmp.resolve("work")).isEmptyDirectory();
  }

  private CiJob job(String name, int exit) {
    return CiJob.builder().repository(REPO).commit(commit).command(List.of("sh", "run_suite.sh", name,
        Integer.toString(exit))).env(Map.of("OUT", out.toString())).deviceEnv(List.of("CUDA_VISIBLE_DEVICES")).build();
  }

  private static JobSpec spec(String name, int gpus, CiJob job) {
    return JobSpec.builder().benchmarkGroup(name).collectorTag(POOL).gpus(gpus).args(CiJobArgs.write(job)).build();
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 90 s").isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  private static String git(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("git %s: %s", List.of(args), text).isZero();
    return text;
  }
}
