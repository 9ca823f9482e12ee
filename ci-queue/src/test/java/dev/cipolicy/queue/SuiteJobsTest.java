package dev.cipolicy.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.core.SuitePlanner;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.core.load.RegistrationLoader;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A nightly of the reference policy and registrations planned into queue jobs ({@link SuiteJobs},
 * {@link JobPlanner#fromSuites(List)}) and run through {@link JobQueue} and the in-memory store by collectors
 * advertising 8 devices each.
 */
class SuiteJobsTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-05T15:00:00Z"), ZoneOffset.UTC);
  private static final StageSelection NOTHING_SKIPPED = new StageSelection(List.of(), List.of(), Optional.empty(),
      new Explanation("a scheduled run prunes nothing", List.of(), List.of()));

  private static String read(String relative) throws IOException {
    Path p = Path.of("..", relative);
    return Files.readString(Files.exists(p) ? p : Path.of("../..", relative));
  }

  private static List<PlannedJob> nightly() throws IOException {
    LoadedPolicy policy = PolicyLoader.load("miles.yaml", read("examples/policies/miles.yaml"));
    SuiteRegistry registry = RegistrationLoader.load("miles-registrations.yaml",
        read("examples/registrations/miles.yaml"), policy.resolver());
    RunPolicy run = policy.resolver().resolveCadence("nightly", List.of());
    return SuitePlanner.of(registry).plan(run, NOTHING_SKIPPED);
  }

  @Test
  void aNightlyBecomesOneJobPerSuiteShardWithTheReferenceBudgetsAndPools() throws IOException {
    List<JobSpec> specs = SuiteJobs.specs(nightly());
    assertThat(specs).extracting(JobSpec::toString).containsExactly(
        "stage-a-cpu-0of4@cpu", "stage-a-cpu-1of4@cpu", "stage-a-cpu-2of4@cpu", "stage-a-cpu-3of4@cpu",
        "stage-b-cpu@cpu",
        "stage-b-2-gpu-h200@h200 [2 GPUs]",
        "stage-c-8-gpu-h100-0of2@h100 [8 GPUs]", "stage-c-8-gpu-h100-1of2@h100 [8 GPUs]",
        "stage-c-8-gpu-h200-0of2@h200 [8 GPUs]", "stage-c-8-gpu-h200-1of2@h200 [8 GPUs]",
        "stage-c-4-gpu-h200-0of3@h200 [4 GPUs]", "stage-c-4-gpu-h200-1of3@h200 [4 GPUs]",
        "stage-c-4-gpu-h200-2of3@h200 [4 GPUs]",
        "stage-c-2-gpu-h200-0of2@h200 [2 GPUs]", "stage-c-2-gpu-h200-1of2@h200 [2 GPUs]",
        "stage-c-8-gpu-b200@b200 [8 GPUs]",
        "stage-c-4-gpu-mi350-0of2@mi350 [4 GPUs]", "stage-c-4-gpu-mi350-1of2@mi350 [4 GPUs]",
        "nightly-stage-c-8-gpu-mi350@mi350 [8 GPUs]", "nightly-stage-c-2-gpu-mi350@mi350 [2 GPUs]");
    assertThat(specs).noneMatch(JobSpec::optional);
    Map<String, Set<Integer>> budgets = specs.stream().filter(s -> s.gpus() > 0).collect(Collectors.groupingBy(
        JobSpec::pool, TreeMap::new, Collectors.mapping(JobSpec::gpus, Collectors.toCollection(java.util.TreeSet::new))));
    assertThat(budgets).hasToString("{b200=[8], h100=[8], h200=[2, 4, 8], mi350=[2, 4, 8]}");
    assertThat(specs.get(15).estimate()).isEqualTo(Duration.ofSeconds(3700));
    assertThat(specs.get(6).estimate()).isEqualTo(Duration.ofSeconds(5400));
    // Each job carries the policy's timeout for its shard, which the collector running it enforces.
    List<PlannedJob> planned = nightly();
    for (int i = 0; i < specs.size(); i++) {
      assertThat(specs.get(i).timeout()).as(specs.get(i).toString())
          .isEqualTo(Duration.ofSeconds(planned.get(i).timeoutSeconds())).isPositive();
      assertThat(specs.get(i).hasTimeout()).isTrue();
    }
  }

  @Test
  void collectorsWithEightDevicesClaimTheJobsWithTheirBudgets() throws IOException {
    List<PlannedJob> planned = nightly();
    JobQueue queue = JobQueue.inMemory(CLOCK, QueueSettings.builder().planner(JobPlanner.fromSuites(planned)).build());
    List<String> collectors = List.of("h100-0", "h100-1", "h200-0", "h200-1", "b200-0", "mi350-0");
    for (String name : collectors) {
      queue.store().registerCollector(name, name.substring(0, name.indexOf('-')), true, Devices.count(8));
    }
    queue.registerCollector("cpu-0", SuiteJobs.CPU_TAG, true);
    Request request = queue.submit(NewRequest.master("c0ffee", null)).request();
    List<Job> jobs = queue.tick().started().get(0).jobs();
    assertThat(jobs).extracting(Job::spec).containsExactlyElementsOf(SuiteJobs.specs(planned));

    List<String> ran = new ArrayList<>();
    Set<String> done = new HashSet<>();
    for (int round = 0; round < 20 && done.size() < jobs.size(); round++) {
      List<Claim> held = new ArrayList<>();
      for (String name : collectors) {
        List<Claim> claims = queue.claim(name, 8).claims();
        int devices = 0;
        for (Claim c : claims) {
          assertThat(c.lease().devices()).as(c.job().spec().toString()).hasSize(c.job().spec().gpus());
          assertThat(c.job().spec().pool()).isEqualTo(name.substring(0, name.indexOf('-')));
          devices += c.lease().devices().size();
        }
        assertThat(devices).as("devices leased on %s at once", name).isLessThanOrEqualTo(8);
        held.addAll(claims);
      }
      held.addAll(queue.claim("cpu-0", 8).claims());
      for (Claim c : held) {
        ran.add(c.job().spec().benchmarkGroup() + "=" + c.lease().devices().size());
        assertThat(done.add(c.job().spec().toString())).isTrue();
        assertThat(queue.complete(c.lease()).status()).isEqualTo(LeaseStatus.OK);
      }
    }
    assertThat(done).hasSize(jobs.size());
    assertThat(ran).contains("stage-b-2-gpu-h200=2", "stage-c-4-gpu-h200-1of3=4", "stage-c-8-gpu-b200=8",
        "nightly-stage-c-2-gpu-mi350=2", "stage-a-cpu-0of4=0");
    assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(request.id());
    assertThat(queue.store().request(request.id()).orElseThrow().state()).isEqualTo(RequestState.COMPLETED);
  }

  @Test
  void theExampleOfTheQueueDocsRuns() throws IOException {
    LoadedPolicy policy = PolicyLoader.load("miles.yaml", read("examples/policies/miles.yaml"));
    String registrationsText = read("examples/registrations/miles.yaml");
    StageSelection stageSelection = NOTHING_SKIPPED;
    Clock clock = CLOCK;

    SuiteRegistry registry = RegistrationLoader.load("registrations.yaml", registrationsText, policy.resolver());
    RunPolicy nightly = policy.resolver().resolveCadence("nightly", List.of());
    List<PlannedJob> planned = SuitePlanner.of(registry).plan(nightly, stageSelection);
    JobQueue queue = JobQueue.inMemory(clock, QueueSettings.builder().planner(JobPlanner.fromSuites(planned)).build());

    queue.store().registerCollector("b200-0", "b200", true, Devices.count(8)); // a host of pool b200
    queue.registerCollector("cpu-0", SuiteJobs.CPU_TAG, true);                // CPU suites, no devices
    queue.submit(NewRequest.master("9b2e1d0", null));
    assertThat(queue.tick().started().get(0).jobs()).hasSize(20).extracting(j -> j.spec().toString())
        .contains("stage-c-8-gpu-b200@b200 [8 GPUs]");
    List<Claim> claims = queue.claim("b200-0", 8).claims();
    assertThat(claims).singleElement().satisfies(c -> assertThat(c.lease().devices())
        .containsExactly(0, 1, 2, 3, 4, 5, 6, 7));
  }

  @Test
  void aSuiteOfOneShardKeepsItsNameAndAShardedOneNamesItsShard() {
    assertThat(SuiteJobs.benchmarkGroup(job("stage-c-8-gpu-b200", 0, 1, 8, Optional.of("b200"))))
        .isEqualTo("stage-c-8-gpu-b200");
    assertThat(SuiteJobs.benchmarkGroup(job("stage-c-4-gpu-h200", 2, 3, 4, Optional.of("h200"))))
        .isEqualTo("stage-c-4-gpu-h200-2of3");
  }

  @Test
  void aGpuJobWithoutAPoolIsRefused() {
    PlannedJob poolless = job("stage-c-4-gpu-x", 0, 1, 4, Optional.empty());
    assertThatThrownBy(() -> JobPlanner.fromSuites(List.of(poolless))).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("planned job stage-c-4-gpu-x (cuda) needs 4 GPUs but its suite declares no pool; expected a pool"
            + " for every GPU suite");
  }

  @Test
  void anEstimateBeyondTheQueuesLimitIsRefused() {
    PlannedJob forever = new PlannedJob("cuda", "s", 0, 1, List.of("tests/a.py"), 2, Optional.of("h200"), 1e12, 1800);
    assertThatThrownBy(() -> SuiteJobs.spec(forever)).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("planned job s is estimated at 1.0E12 s; expected at most 31622400 s");
  }

  @Test
  void aTimeoutBeyondTheQueuesLimitIsRefused() {
    PlannedJob stuck = new PlannedJob("cuda", "s", 0, 1, List.of("tests/a.py"), 2, Optional.of("h200"), 60, 40_000_000);
    assertThatThrownBy(() -> SuiteJobs.spec(stuck)).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("planned job s has a timeout of 40000000 s; expected at most 31622400 s");
  }

  @Test
  void theSameShardPlannedTwiceIsRefused() {
    PlannedJob once = job("stage-b-cpu", 0, 1, 0, Optional.empty());
    assertThatThrownBy(() -> JobPlanner.fromSuites(List.of(once, once))).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("planned jobs give stage-b-cpu@cpu twice; expected each suite shard once");
  }

  private static PlannedJob job(String suite, int index, int count, int gpus, Optional<String> pool) {
    return new PlannedJob("cuda", suite, index, count, List.of("tests/e2e/test_" + index + ".py"), gpus, pool, 600,
        1800);
  }
}
