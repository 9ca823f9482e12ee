package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.fleet.server.FleetServer;
import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * A fleet server for the operator-control tests over an in-memory queue the test drives itself (no site loop, no
 * collector of its own): one master request in progress with two x86 jobs, the first failed for good, and the
 * collectors {@code c1} (pool x86) and {@code g1} (pool arm).
 */
final class ControlFleet implements AutoCloseable {
  static final String TOKEN = "operator-token-0123456789";

  final JobQueue queue;
  final FleetServer server;
  final Request request;
  final Job failed;

  ControlFleet(Consumer<FleetServer.Builder> configure) {
    queue = JobQueue.of(new InMemoryQueueStore(Clock.systemUTC()), QueueSettings.builder()
        .leaseDuration(Duration.ofMinutes(5)).collectorTimeout(Duration.ofMinutes(5)).maxCrashRescues(2)
        .maxTransientRetries(2).addBenchmarkGroups("compile", "runtime")
        .addCollectorTargets(CollectorTarget.required("x86"), CollectorTarget.optional("arm")).build());
    queue.registerCollector("c1", "x86", true);
    queue.registerCollector("g1", "arm", true);
    queue.submit(NewRequest.master("m1", "m0"));
    queue.tick();
    request = queue.store().inProgressRequests().get(0);
    Claim claim = queue.claim("c1").claims().get(0);
    assertThat(queue.fail(claim.lease(), Failure.permanent("segfault in compile")).status())
        .isEqualTo(LeaseStatus.OK);
    failed = queue.store().job(claim.job().id()).orElseThrow();
    assertThat(failed.state()).isEqualTo(JobState.FAILED);
    FleetServer.Builder b = FleetServer.builder(queue).port(0).tick(null);
    configure.accept(b);
    server = b.start();
  }

  /** The jobs of the request in progress. */
  List<Job> jobs() {
    return queue.store().jobs(request.id());
  }

  @Override
  public void close() {
    server.close();
  }
}
