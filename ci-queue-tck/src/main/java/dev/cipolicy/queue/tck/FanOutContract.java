package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.JobPlanner;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for the fan-out: which jobs a started request gets, by default (benchmark groups ×
 * collector tags) and by a host's {@link JobPlanner}, and that the store keeps exactly those jobs, with their
 * GPU budgets, for the request and for its parent's backfill. A planner's mistake ends the tick before the
 * start, leaving nothing behind.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Fan-out" group.
 */
abstract class FanOutContract extends KitGroup {

  FanOutContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  /** An engine over the kit's store whose fan-out is the planner alone. */
  private JobQueue planned(JobPlanner planner) {
    return JobQueue.of(store, QueueSettings.builder().from(settings()).benchmarkGroups(List.of())
        .collectorTargets(List.of()).planner(planner).build());
  }

  @Test
  @DisplayName("a tick starts the head request with one job per benchmark group and collector tag")
  void fanOut() {
    Request r = submit(NewRequest.master("m1", null));
    TickResult tick = queue.tick();
    assertThat(tick.started()).hasSize(1);
    StartResult start = tick.started().get(0);
    assertThat(start.request().orElseThrow().state()).isEqualTo(RequestState.IN_PROGRESS);
    assertThat(start.request().orElseThrow().startedAt()).contains(START);
    assertThat(start.jobs()).extracting(Job::spec).containsExactly(
        JobSpec.required("compile", "x86"), JobSpec.optionalJob("compile", "arm"),
        JobSpec.required("runtime", "x86"), JobSpec.optionalJob("runtime", "arm"));
    assertThat(start.jobs()).allSatisfy(j -> {
      assertThat(j.state()).isEqualTo(JobState.QUEUED);
      assertThat(j.attempt()).isZero();
      assertThat(j.requestId()).isEqualTo(r.id());
    });
    assertThat(store.jobs(r.id())).isEqualTo(start.jobs());
    assertThat(start.jobs()).extracting(Job::id).isSorted();
  }

  @Test
  @DisplayName("a request's own benchmark groups replace the defaults")
  void ownGroups() {
    submit(NewRequest.master("m1", null).withBenchmarkGroups("only"));
    assertThat(queue.tick().started().get(0).jobs()).extracting(Job::spec)
        .containsExactly(JobSpec.required("only", "x86"), JobSpec.optionalJob("only", "arm"));
  }

  /**
   * A host's fan-out in the kit's tags: {@code compile} on both tags (required on {@code x86}), an optional
   * {@code compile-extra} beside it on {@code x86}, {@code runtime} on {@code x86} only, and {@code build} on
   * {@code x86} for every request but a release.
   */
  private static final JobPlanner HOST_PLANNER = request -> {
    List<JobSpec> jobs = new ArrayList<>();
    List<String> groups = request.benchmarkGroups().isEmpty() ? List.of("compile") : request.benchmarkGroups();
    groups.forEach(g -> jobs.add(JobSpec.required(g, "x86")));
    jobs.add(JobSpec.optionalJob("compile-extra", "x86"));
    jobs.add(JobSpec.required("runtime", "x86"));
    if (request.kind() != RequestKind.RELEASE) {
      jobs.add(JobSpec.required("build", "x86"));
    }
    groups.forEach(g -> jobs.add(JobSpec.optionalJob(g, "arm")));
    return jobs;
  };

  @Test
  @DisplayName("a host's planner alone decides a started request's jobs, and its parent is backfilled with them")
  void hostPlanner() {
    JobQueue planned = planned(HOST_PLANNER);
    register("c1", "x86");
    Request release = submit(NewRequest.release("1.0"));
    assertThat(planned.tick().started().get(0).jobs()).extracting(Job::spec).containsExactly(
        JobSpec.required("compile", "x86"), JobSpec.optionalJob("compile-extra", "x86"),
        JobSpec.required("runtime", "x86"), JobSpec.optionalJob("compile", "arm"));
    Request parent = submit(NewRequest.master("m1", null));
    for (int i = 0; i < 10; i++) {
      ClaimResult claims = planned.claim("c1", 10);
      if (claims.claims().isEmpty()) {
        break;
      }
      for (Claim claim : claims.claims()) {
        if (claim.job().spec().optional()) {
          assertThat(planned.release(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
        } else {
          assertThat(planned.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
        }
      }
      TickResult tick = planned.tick();
      if (tick.completed().stream().anyMatch(r -> r.id().equals(parent.id()))) {
        break;
      }
    }
    assertThat(reload(release).state()).isEqualTo(RequestState.COMPLETED);
    assertThat(store.jobs(parent.id())).extracting(Job::spec).containsExactly(
        JobSpec.required("compile", "x86"), JobSpec.optionalJob("compile-extra", "x86"),
        JobSpec.required("runtime", "x86"), JobSpec.required("build", "x86"), JobSpec.optionalJob("compile", "arm"));
    assertThat(reload(parent).state()).isEqualTo(RequestState.COMPLETED);

    Request child = submit(NewRequest.tryWithArtifacts(5, "t1", "m1").withBenchmarkGroups("compile", "doc"));
    StartResult start = planned.tick().started().get(0);
    assertThat(start.request().orElseThrow().id()).isEqualTo(child.id());
    assertThat(start.backfill().status()).isEqualTo(Backfill.Status.ENQUEUED);
    assertThat(start.backfill().parent()).contains(parent.id());
    assertThat(start.backfill().created()).extracting(Job::spec)
        .containsExactly(JobSpec.required("doc", "x86"), JobSpec.optionalJob("doc", "arm"));
    assertThat(start.backfill().existing()).isEqualTo(5);
    assertThat(start.backfill().created()).allSatisfy(j -> assertThat(j.requestId()).isEqualTo(parent.id()));
  }

  @Test
  @DisplayName("a planner's GPU budgets and estimates are kept, and its GPU job is leased that many devices")
  void gpuJobs() {
    JobSpec eight = JobSpec.required("stage-c-8-gpu", "b200").withGpus(8, Duration.ofMinutes(30));
    JobSpec two = JobSpec.required("stage-c-2-gpu", "b200").withGpus(2, Duration.ofMinutes(5));
    JobSpec cpu = JobSpec.required("stage-a-cpu", "x86");
    JobQueue suites = planned(request -> List.of(cpu, eight, two));
    assertThat(store.registerCollector("b200-0", "b200", true, Devices.count(8)).status())
        .isEqualTo(RegisterResult.Status.REGISTERED);
    Request r = submit(NewRequest.master("m1", null));
    assertThat(suites.tick().started().get(0).jobs()).extracting(Job::spec).containsExactly(cpu, eight, two);
    assertThat(store.jobs(r.id())).extracting(Job::spec).containsExactly(cpu, eight, two);

    ClaimResult first = suites.claim("b200-0", 4);
    assertThat(first.claims()).hasSize(1);
    Claim big = first.claims().get(0);
    assertThat(big.job().spec()).isEqualTo(eight);
    assertThat(big.lease().devices()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    assertThat(suites.claim("b200-0", 4).claims()).isEmpty();
    assertThat(suites.complete(big.lease()).status()).isEqualTo(LeaseStatus.OK);

    Claim small = suites.claim("b200-0", 4).claims().get(0);
    assertThat(small.job().spec()).isEqualTo(two);
    assertThat(small.lease().devices()).hasSize(2);
  }

  @Test
  @DisplayName("a planner that plans a job twice ends the tick before the start: the request stays ready, no job is kept")
  void duplicatePlan() {
    AtomicBoolean broken = new AtomicBoolean(true);
    JobQueue suites = planned(request -> broken.get()
        ? List.of(JobSpec.required("g", "x86"), JobSpec.optionalJob("g", "x86"))
        : List.of(JobSpec.required("g", "x86")));
    Request r = submit(NewRequest.master("m1", null));
    assertThatThrownBy(suites::tick).isInstanceOf(InvalidQueueInputException.class)
        .hasMessageContaining("g@x86");
    assertThat(reload(r).state()).isNotEqualTo(RequestState.IN_PROGRESS);
    assertThat(store.jobs(r.id())).isEmpty();
    assertThat(store.inProgressRequests()).isEmpty();

    broken.set(false);
    StartResult start = suites.tick().started().get(0);
    assertThat(start.request().orElseThrow().id()).isEqualTo(r.id());
    assertThat(start.jobs()).extracting(Job::spec).containsExactly(JobSpec.required("g", "x86"));
  }

  @Test
  @DisplayName("a planner that fails ends the tick with its exception and starts nothing")
  void failingPlanner() {
    JobQueue suites = planned(request -> {
      throw new InvalidQueueInputException("no suites for " + request.tag().orElse("?"));
    });
    Request r = submit(NewRequest.master("m1", null));
    assertThatThrownBy(suites::tick).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("no suites for m1");
    assertThat(reload(r).state()).isNotEqualTo(RequestState.IN_PROGRESS);
    assertThat(store.jobs(r.id())).isEmpty();
  }

  @Test
  @DisplayName("a planner that plans nothing for a request completes it in the tick that starts it")
  void emptyPlan() {
    JobQueue suites = planned(request -> request.kind() == RequestKind.RELEASE
        ? List.of() : List.of(JobSpec.required("g", "x86")));
    Request release = submit(NewRequest.release("1.0"));
    TickResult tick = suites.tick();
    assertThat(tick.started()).extracting(s -> s.request().orElseThrow().id()).containsExactly(release.id());
    assertThat(tick.completed()).extracting(Request::id).containsExactly(release.id());
    assertThat(reload(release).outcome()).contains(Outcome.SUCCESS);
    assertThat(store.jobs(release.id())).isEmpty();
  }

  @Test
  @DisplayName("every site sharing the store plans the same jobs, so a second site's tick adds none")
  void twoSitesOnePlan() {
    List<JobSpec> plan = new ArrayList<>(List.of(JobSpec.required("a", "x86"), JobSpec.required("b", "x86")));
    JobQueue siteA = planned(request -> plan);
    JobQueue siteB = planned(request -> plan);
    Request r = submit(NewRequest.master("m1", null));
    assertThat(siteA.tick().started()).hasSize(1);
    assertThat(siteB.tick().started()).isEmpty();
    assertThat(store.jobs(r.id())).extracting(Job::spec).containsExactlyElementsOf(plan);
    assertThat(store.jobs(r.id())).allSatisfy(j -> assertThat(j.state()).isEqualTo(JobState.QUEUED));
  }
}
