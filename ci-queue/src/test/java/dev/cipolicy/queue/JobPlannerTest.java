package dev.cipolicy.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A host's fan-out through {@link JobQueue} and the in-memory store: {@link BenchmarkSetPlanner}. */
class JobPlannerTest {

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC);

  private final JobQueue queue = JobQueue.inMemory(CLOCK,
      QueueSettings.builder().planner(new BenchmarkSetPlanner(2, 1)).build());

  private static final List<JobSpec> MASTER_JOBS = List.of(
      JobSpec.required("compile-time", "x86-64-0"), JobSpec.optionalJob("compile-time-cranelift", "x86-64-0"),
      JobSpec.required("runtime", "x86-64-0"), JobSpec.required("rustc", "x86-64-0"),
      JobSpec.required("compile-time", "x86-64-1"),
      JobSpec.optionalJob("compile-time", "aarch64-0"), JobSpec.optionalJob("runtime", "aarch64-0"));

  @Test
  void aStartedMasterGetsThePlannersJobsOnly() {
    queue.submit(NewRequest.master("m1", null));
    StartResult start = queue.tick().started().get(0);
    assertThat(start.jobs()).extracting(Job::spec).containsExactlyElementsOf(MASTER_JOBS);
    assertThat(start.jobs()).extracting(j -> j.spec().benchmarkGroup() + "@" + j.spec().collectorTag())
        .filteredOn(s -> s.startsWith("runtime") || s.startsWith("rustc"))
        .containsExactly("runtime@x86-64-0", "rustc@x86-64-0", "runtime@aarch64-0");
  }

  @Test
  void aReleaseGetsNoRustcJob() {
    queue.submit(NewRequest.release("1.90.0"));
    StartResult start = queue.tick().started().get(0);
    assertThat(start.jobs()).extracting(Job::spec)
        .containsExactlyElementsOf(MASTER_JOBS.stream().filter(s -> !s.benchmarkGroup().equals("rustc")).toList());
  }

  @Test
  void optionalJobsBesideRequiredOnesOnTheSameTagNeverHoldACompletionBack() {
    queue.registerCollector("set0", "x86-64-0", true);
    queue.registerCollector("set1", "x86-64-1", true);
    Request r = queue.submit(NewRequest.master("m1", null)).request();
    queue.tick();
    List<String> ran = new ArrayList<>();
    for (String collector : List.of("set0", "set1")) {
      for (Claim claim : queue.claim(collector, 10).claims()) {
        if (claim.job().spec().optional()) {
          continue;
        }
        ran.add(claim.job().spec().toString());
        assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
      }
    }
    assertThat(ran).containsExactlyInAnyOrder("compile-time@x86-64-0", "runtime@x86-64-0", "rustc@x86-64-0",
        "compile-time@x86-64-1");
    TickResult done = queue.tick();
    assertThat(done.completed()).extracting(Request::id).containsExactly(r.id());
    assertThat(queue.store().request(r.id()).orElseThrow().state()).isEqualTo(RequestState.COMPLETED);
  }

  @Test
  void backfillGivesTheParentThePlannedJobsItLacks() {
    queue.registerCollector("set0", "x86-64-0", true);
    queue.registerCollector("set1", "x86-64-1", true);
    Request parent = queue.submit(NewRequest.master("m1", null)).request();
    queue.tick();
    runRequired("set0");
    runRequired("set1");
    assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(parent.id());

    Request child = queue.submit(NewRequest.tryWithArtifacts(7, "t1", "m1").withBenchmarkGroups("compile-time",
        "doc", "runtime")).request();
    StartResult start = queue.tick().started().get(0);
    assertThat(start.jobs()).extracting(Job::spec).contains(JobSpec.required("doc", "x86-64-0"),
        JobSpec.required("doc", "x86-64-1"), JobSpec.optionalJob("doc", "aarch64-0"))
        .filteredOn(s -> s.benchmarkGroup().equals("runtime")).hasSize(2);
    assertThat(start.backfill().status()).isEqualTo(Backfill.Status.ENQUEUED);
    assertThat(start.backfill().parent()).contains(parent.id());
    assertThat(start.backfill().created()).extracting(Job::spec).containsExactly(
        JobSpec.required("doc", "x86-64-0"), JobSpec.required("doc", "x86-64-1"),
        JobSpec.optionalJob("doc", "aarch64-0"));
    assertThat(start.backfill().existing()).isEqualTo(MASTER_JOBS.size());
    assertThat(start.request().orElseThrow().parentRequest()).contains(parent.id());

    runRequired("set0");
    assertThat(queue.tick().completed()).isEmpty();
    runRequired("set1");
    assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(child.id());
  }

  @Test
  void theExampleOfTheQueueDocsRuns() {
    JobPlanner sets = request -> {                       // collectors run one benchmark set each
      List<JobSpec> jobs = new ArrayList<>();
      jobs.add(JobSpec.required("compile-time", "x86-64-0"));
      jobs.add(JobSpec.optionalJob("compile-time-cranelift", "x86-64-0")); // optional beside required, same tag
      jobs.add(JobSpec.required("runtime", "x86-64-0"));                   // on set 0 only
      if (request.kind() != RequestKind.RELEASE) {
        jobs.add(JobSpec.required("rustc", "x86-64-0"));                   // never for a release
      }
      jobs.add(JobSpec.required("compile-time", "x86-64-1"));
      jobs.add(JobSpec.optionalJob("compile-time", "aarch64-0"));          // a second target, optional
      return jobs;
    };
    QueueSettings settings = QueueSettings.builder().planner(sets).build(); // no groups or targets then
    JobQueue docs = JobQueue.inMemory(CLOCK, settings);
    docs.submit(NewRequest.release("1.90.0"));
    assertThat(docs.tick().started().get(0).jobs()).extracting(j -> j.spec().toString()).containsExactly(
        "compile-time@x86-64-0", "compile-time-cranelift@x86-64-0 (optional)", "runtime@x86-64-0",
        "compile-time@x86-64-1", "compile-time@aarch64-0 (optional)");
  }

  @Test
  void thePlannersJobsAreWhatJobsForReports() {
    Request r = queue.submit(NewRequest.master("m1", null)).request();
    assertThat(queue.jobsFor(r)).containsExactlyElementsOf(MASTER_JOBS);
  }

  @Test
  void aPlannerWithNoJobsCompletesTheRequestAtOnce() {
    JobQueue bare = JobQueue.inMemory(CLOCK, QueueSettings.builder().planner(request -> List.of()).build());
    bare.submit(NewRequest.master("m1", null));
    assertThat(bare.tick().completed()).hasSize(1);
  }

  @Test
  void aPlannerThatPlansAJobTwiceEndsTheTickBeforeTheStart() {
    JobQueue twice = JobQueue.inMemory(CLOCK, QueueSettings.builder()
        .planner(request -> List.of(JobSpec.required("g", "x86"), JobSpec.optionalJob("g", "x86"))).build());
    Request r = twice.submit(NewRequest.master("m1", null)).request();
    assertThatThrownBy(twice::tick).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("queue settings: the job planner gave master m1 g@x86 twice; expected each group and tag at"
            + " most once");
    assertThat(twice.store().request(r.id()).orElseThrow().state()).isEqualTo(RequestState.ARTIFACTS_READY);
  }

  @Test
  void aPlannerTakesTheFanOutAlone() {
    assertThatThrownBy(() -> QueueSettings.builder().planner(request -> List.of()).addBenchmarkGroups("g").build())
        .isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("queue settings: a job planner is set, but so are 1 benchmark groups and 0 collector targets;"
            + " expected the planner alone to decide the jobs");
    assertThatThrownBy(() -> QueueSettings.builder().planner(request -> List.of()).noJobs(true).build())
        .isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("queue settings: a job planner is set, but so are noJobs; expected the planner alone to decide"
            + " the jobs");
  }

  @Test
  void theDefaultPlannerIsGroupsByTargets() {
    QueueSettings settings = QueueSettings.builder().addBenchmarkGroups("a", "b")
        .addCollectorTargets(CollectorTarget.required("x86"), CollectorTarget.optional("arm")).build();
    JobPlanner planner = JobPlanner.groupsByTargets(settings.benchmarkGroups(), settings.collectorTargets());
    JobQueue plain = JobQueue.inMemory(CLOCK, settings);
    Request r = plain.submit(NewRequest.master("m1", null)).request();
    Request own = plain.submit(NewRequest.master("m2", null).withPr(2).withBenchmarkGroups("c")).request();
    assertThat(settings.jobsFor(r)).isEqualTo(planner.jobsFor(r)).containsExactly(JobSpec.required("a", "x86"),
        JobSpec.optionalJob("a", "arm"), JobSpec.required("b", "x86"), JobSpec.optionalJob("b", "arm"));
    assertThat(settings.jobsFor(own)).isEqualTo(planner.jobsFor(own))
        .containsExactly(JobSpec.required("c", "x86"), JobSpec.optionalJob("c", "arm"));
  }

  private void runRequired(String collector) {
    for (Claim claim : queue.claim(collector, 20).claims()) {
      if (claim.job().spec().optional()) {
        assertThat(queue.release(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
      } else {
        assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
      }
    }
  }
}
