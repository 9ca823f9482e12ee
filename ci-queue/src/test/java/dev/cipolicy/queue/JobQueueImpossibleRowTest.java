package dev.cipolicy.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.RequestScan;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The site tick and the status view with a store that reports impossible rows (as a database store does for
 * rows edited by hand): each is reported as a value and the other requests are served. The store here is the
 * in-memory store with chosen rows declared impossible, in every way a store can report them.
 */
class JobQueueImpossibleRowTest {

  private static final Instant NOW = Instant.parse("2026-01-05T09:00:00Z");

  private final FaultyStore store = new FaultyStore(new InMemoryQueueStore(Clock.fixed(NOW, ZoneOffset.UTC)));
  private final JobQueue queue = JobQueue.of(store, QueueSettings.builder()
      .maxInProgress(2).addBenchmarkGroups("compile").addCollectorTargets(CollectorTarget.required("x86"))
      .backfill(false).build());

  @Test
  void impossibleRowsInScansAndSingleOperationsAreReportedAndTheOthersServed() {
    queue.registerCollector("c1", "x86", true);
    Request r1 = queue.submit(NewRequest.master("a1", null)).request();
    Request r2 = queue.submit(NewRequest.master("a2", "a1")).request();
    Request r3 = queue.submit(NewRequest.master("a3", "a2")).request();
    Request r4 = queue.submit(NewRequest.master("a4", "a3")).request();
    assertThat(queue.tick().started()).hasSize(2);
    for (Claim c : queue.claim("c1", 10).claims()) {
      assertThat(queue.complete(c.lease()).ok()).isTrue();
    }
    // r1 reads fine in the scan but its completion finds it impossible; r3 is impossible in the open scan.
    ImpossibleRow row1 = row(r1, "outcome");
    ImpossibleRow row3 = row(r3, "kind");
    store.impossibleOnComplete.put(r1.id(), row1);
    store.impossibleInScan.add(row3);
    store.hiddenInScan.add(r3.id());

    TickResult tick = queue.tick();
    assertThat(tick.completed()).extracting(Request::id).containsExactly(r2.id());
    assertThat(tick.impossibleRows()).containsExactly(row1, row3);
    assertThat(tick.started()).extracting(s -> s.request().orElseThrow().id()).containsExactly(r4.id());
    assertThat(tick.explanation().reasons()).filteredOn(r -> r.rule().equals("queue.impossible-row"))
        .extracting(Explanation.Reason::detail).containsExactly(
            row1.message() + "; master a1 is not completed until the row is repaired",
            row3.message() + "; the request is not started until the row is repaired");

    QueueStatus status = queue.status();
    assertThat(status.impossibleRows()).containsExactly(row3);
    assertThat(status.entries()).extracting(e -> e.placed().request().id()).doesNotContain(r3.id());
    assertThat(status.lines()).last().isEqualTo(row3.message() + " (left out of the queue)");
  }

  @Test
  void aStoreThatThrowsForAWholeReadDoesNotStopTheTick() {
    queue.registerCollector("c1", "x86", true);
    Request r1 = queue.submit(NewRequest.master("a1", null)).request();
    ImpossibleRow expiry = new ImpossibleRow("jobs", "id = 1", "state", "'SUCCEEDED'", "has a lease");
    ImpossibleRow list = row(r1, "kind");
    store.throwOnExpire = expiry;
    store.throwOnScan = list;
    TickResult tick = queue.tick();
    assertThat(tick.impossibleRows()).containsExactly(expiry, list);
    assertThat(tick.expired().impossibleRows()).containsExactly(expiry);
    // One reason per row and tick, with the first consequence; no request could be read, none started.
    assertThat(tick.explanation().reasons()).filteredOn(r -> r.rule().equals("queue.impossible-row"))
        .extracting(Explanation.Reason::detail).containsExactly(
            expiry.message() + "; its expired lease is left alone until the row is repaired",
            list.message() + "; no request in progress is completed this tick until the row is repaired");
    assertThat(tick.started()).isEmpty();
    // Repaired: the same queue goes on.
    store.throwOnExpire = null;
    store.throwOnScan = null;
    assertThat(queue.tick().started()).extracting(s -> s.request().orElseThrow().id()).containsExactly(r1.id());
  }

  @Test
  void anUnreachableStoreEndsTheTickWithItsOwnException() {
    store.unavailable = true;
    assertThatThrownBy(queue::tick).isInstanceOf(QueueStoreUnavailableException.class)
        .hasMessageContaining("expireLeases");
  }

  private static ImpossibleRow row(Request r, String column) {
    return new ImpossibleRow("requests", "id = " + r.id().value(), column, "'X'", "test rule");
  }

  /** The in-memory store, with rows declared impossible where a test says so. */
  private static final class FaultyStore implements QueueStore {
    private final QueueStore delegate;
    final java.util.Map<RequestId, ImpossibleRow> impossibleOnComplete = new java.util.HashMap<>();
    final List<ImpossibleRow> impossibleInScan = new ArrayList<>();
    final Set<RequestId> hiddenInScan = new HashSet<>();
    ImpossibleRow throwOnExpire;
    ImpossibleRow throwOnScan;
    boolean unavailable;

    FaultyStore(QueueStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public RequestScan scanOpenRequests() {
      if (throwOnScan != null) {
        throw new ImpossibleRowException(throwOnScan);
      }
      List<Request> visible = delegate.openRequests().stream().filter(r -> !hiddenInScan.contains(r.id())).toList();
      return new RequestScan(visible, impossibleInScan);
    }

    @Override
    public RequestScan scanInProgressRequests() {
      if (throwOnScan != null) {
        throw new ImpossibleRowException(throwOnScan);
      }
      return RequestScan.of(delegate.inProgressRequests());
    }

    @Override
    public ExpiryResult expireLeases(int maxCrashRescues) {
      if (unavailable) {
        throw new QueueStoreUnavailableException("expireLeases", false, "expireLeases: no connection",
            new IllegalStateException("down"));
      }
      if (throwOnExpire != null) {
        throw new ImpossibleRowException(throwOnExpire);
      }
      return delegate.expireLeases(maxCrashRescues);
    }

    @Override
    public CompletionResult completeIfDone(RequestId id) {
      ImpossibleRow row = impossibleOnComplete.get(id);
      if (row != null) {
        throw new ImpossibleRowException(row);
      }
      return delegate.completeIfDone(id);
    }

    @Override
    public SubmitResult submit(NewRequest request) {
      return delegate.submit(request);
    }

    @Override
    public AttachResult attachArtifacts(RequestId id, String sha, String parentSha) {
      return delegate.attachArtifacts(id, sha, parentSha);
    }

    @Override
    public Optional<Request> request(RequestId id) {
      return delegate.request(id);
    }

    @Override
    public Optional<Request> requestByTag(String tag) {
      return delegate.requestByTag(tag);
    }

    @Override
    public Optional<Request> ciRun(dev.cipolicy.queue.model.CiRunKey key) {
      return delegate.ciRun(key);
    }

    @Override
    public java.util.Set<String> knownTags(java.util.Collection<String> tags) {
      return delegate.knownTags(tags);
    }

    @Override
    public dev.cipolicy.queue.spi.HistoryPage history(int limit, dev.cipolicy.queue.model.HistoryCursor after) {
      return delegate.history(limit, after);
    }

    @Override
    public dev.cipolicy.queue.spi.PurgeResult purge(String tag) {
      return delegate.purge(tag);
    }

    @Override
    public List<Request> openRequests() {
      return delegate.openRequests();
    }

    @Override
    public List<Request> inProgressRequests() {
      return delegate.inProgressRequests();
    }

    @Override
    public StartResult startRequest(StartCommand command) {
      return delegate.startRequest(command);
    }

    @Override
    public CancelResult cancel(RequestId id, String reason) {
      return delegate.cancel(id, reason);
    }

    @Override
    public ClaimResult claim(ClaimCommand command) {
      return delegate.claim(command);
    }

    @Override
    public LeaseResult heartbeat(LeaseRef lease, Duration leaseDuration) {
      return delegate.heartbeat(lease, leaseDuration);
    }

    @Override
    public LeaseResult complete(LeaseRef lease, @Nullable ResultPayload result) {
      return delegate.complete(lease, result);
    }

    @Override
    public Optional<JobResult> result(JobId id) {
      return delegate.result(id);
    }

    @Override
    public List<JobResult> results(RequestId requestId) {
      return delegate.results(requestId);
    }

    @Override
    public Instant now() {
      return delegate.now();
    }

    @Override
    public LeaseResult fail(LeaseRef lease, Failure failure, int maxTransientRetries) {
      return delegate.fail(lease, failure, maxTransientRetries);
    }

    @Override
    public LeaseResult release(LeaseRef lease) {
      return delegate.release(lease);
    }

    @Override
    public Optional<Job> job(JobId id) {
      return delegate.job(id);
    }

    @Override
    public List<Job> jobs(RequestId requestId) {
      return delegate.jobs(requestId);
    }

    @Override
    public RegisterResult registerCollector(String name, String tag, boolean active) {
      return delegate.registerCollector(name, tag, active);
    }

    @Override
    public CollectorResult collectorHeartbeat(String name) {
      return delegate.collectorHeartbeat(name);
    }

    @Override
    public CollectorResult setCollectorActive(String name, boolean active) {
      return delegate.setCollectorActive(name, active);
    }

    @Override
    public Optional<Collector> collector(String name) {
      return delegate.collector(name);
    }

    @Override
    public List<Collector> collectors() {
      return delegate.collectors();
    }
  }
}
