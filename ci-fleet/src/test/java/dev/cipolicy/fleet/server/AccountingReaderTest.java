package dev.cipolicy.fleet.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.fleet.server.Accounting.JobRun;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.ResultPayload;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The reader's stand-ins for what the store does not record: ready is the job's creation, the start is the
 * claim this server saw, else a succeeded job's finish minus its result's {@code seconds}, else unknown; jobs
 * never claimed are not runs; a request completed before the window is not read.
 */
class AccountingReaderTest {

  @Test
  void runsComeFromTheClosestRecordedFacts() {
    Instant t0 = Instant.parse("2026-12-01T10:00:00Z");
    AtomicReference<Instant> now = new AtomicReference<>(t0);
    JobQueue queue = JobQueue.inMemory(now::get, QueueSettings.builder().noJobs(true)
        .leaseDuration(Duration.ofHours(2)).collectorTimeout(Duration.ofHours(2)).build());
    queue.registerHost("h0", "h200", Devices.count(8));
    // an old nightly run that completed before the window
    queue.submitCiRun(CiRun.of("acme/m", 1, 1, "a".repeat(40), "push").withCadence("nightly"),
        List.of(JobSpec.required("old", "h200").withGpus(8, Duration.ofMinutes(5))));
    Claim old = queue.claim("h0", 1).claims().get(0);
    now.set(t0.plusSeconds(600));
    queue.complete(old.lease(), ResultPayload.ofText("{\"seconds\": 600}"));
    queue.tick();
    // the window starts at t0 + 1 h
    now.set(t0.plusSeconds(3600 + 60));
    queue.submitCiRun(CiRun.of("acme/m", 2, 1, "b".repeat(40), "push"),
        List.of(JobSpec.required("done", "h200").withGpus(4, Duration.ofMinutes(5)),
            JobSpec.required("running", "h200").withGpus(4, Duration.ofMinutes(5)),
            JobSpec.required("queued", "h200").withGpus(8, Duration.ofMinutes(5))));
    Instant ready = now.get();
    now.set(ready.plusSeconds(120));
    List<Claim> claims = queue.claim("h0", 2).claims();
    assertThat(claims).hasSize(2);
    Claim done = claims.stream().filter(c -> c.job().spec().benchmarkGroup().equals("done")).findFirst().get();
    Claim running = claims.stream().filter(c -> c.job().spec().benchmarkGroup().equals("running")).findFirst().get();
    now.set(ready.plusSeconds(420));
    queue.complete(done.lease(), ResultPayload.ofText("{\"seconds\": 290.5}"));
    Instant seen = ready.plusSeconds(121);
    AccountingReader reader = new AccountingReader(queue.store(),
        (job, attempt) -> job.equals(running.job().id()) && attempt == 1 ? seen : null);

    AccountingReader.Read read = reader.read(t0.plusSeconds(3600));

    Map<Long, JobRun> byId = read.runs().stream().collect(Collectors.toMap(JobRun::jobId, r -> r));
    assertThat(byId).containsOnlyKeys(done.job().id().value(), running.job().id().value());
    JobRun d = byId.get(done.job().id().value());
    assertThat(d.cadence()).isEqualTo("regular");
    assertThat(d.pool()).isEqualTo("h200");
    assertThat(d.gpus()).isEqualTo(4);
    assertThat(d.readyAt()).isEqualTo(ready);
    assertThat(d.endedAt()).isEqualTo(ready.plusSeconds(420));
    assertThat(d.startedAt()).isEqualTo(ready.plusSeconds(420).minusMillis(290_500));
    JobRun r = byId.get(running.job().id().value());
    assertThat(r.startedAt()).isEqualTo(seen);
    assertThat(r.endedAt()).isNull();
    assertThat(read.truncated()).isFalse();

    // with a window reaching back to t0, the old nightly run is read too, its start from its result
    JobRun o = reader.read(t0).runs().stream().filter(x -> x.jobId() == old.job().id().value()).findFirst()
        .orElseThrow();
    assertThat(o.cadence()).isEqualTo("nightly");
    assertThat(o.startedAt()).isEqualTo(t0);
  }
}
