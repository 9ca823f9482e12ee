package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.queue.CollectorStatus;
import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.ComparisonEvent;
import dev.cipolicy.queue.ImmutableQueueSettings;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueOrder;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.QueueStatus;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.Claim;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.Failure;
import dev.cipolicy.queue.spi.InvalidQueueInputException;
import dev.cipolicy.queue.spi.Job;
import dev.cipolicy.queue.spi.JobFailure;
import dev.cipolicy.queue.spi.JobId;
import dev.cipolicy.queue.spi.JobSpec;
import dev.cipolicy.queue.spi.JobState;
import dev.cipolicy.queue.spi.Lease;
import dev.cipolicy.queue.spi.LeaseRef;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.NewRequest;
import dev.cipolicy.queue.spi.Outcome;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.Request;
import dev.cipolicy.queue.spi.RequestId;
import dev.cipolicy.queue.spi.RequestKind;
import dev.cipolicy.queue.spi.RequestScan;
import dev.cipolicy.queue.spi.RequestState;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every {@link QueueStore} must meet, as JUnit 5 tests: submitting and attaching, the queue
 * order, the site tick and its cap, claims and leases, fencing, failures and budgets, affinity,
 * completion and outcomes, cancellation, collectors, bad input, a model-based test against
 * {@link ReferenceQueueStore}, a multi-threaded test and a liveness scenario. A store runs it through a
 * one-line subclass that implements {@link #newStore()}:
 *
 * <pre>{@code
 * class PostgresQueueStoreCompatibilityTest extends QueueStoreCompatibilityKit {
 *   @Override protected QueueStore newStore() { return PostgresQueueStore.create(freshSchema()); }
 * }
 * }</pre>
 *
 * <p>Every test gets a fresh, empty store and a {@link SettableClock}. The tests drive the store through
 * the real engine ({@link JobQueue}) and, where the contract is about one operation, directly.
 */
public abstract class QueueStoreCompatibilityKit {

  /** The lease duration (and collector timeout) of the kit's settings. */
  protected static final Duration LEASE = Duration.ofMinutes(1);
  /** The kit's start instant. */
  protected static final Instant START = Instant.parse("2026-01-05T09:00:00Z");

  /** The test's clock, standing at {@link #START} until a test moves it. */
  protected SettableClock clock = new SettableClock(START);
  /** The store under test, fresh for each test. */
  protected QueueStore store = new ReferenceQueueStore();
  /** The engine over {@link #store} with {@link #settings()}. */
  protected JobQueue queue = JobQueue.of(store, clock, settings());

  /**
   * A new, empty store; called once per test (the model-based and concurrency tests call it more often).
   *
   * @return the store under test
   */
  protected abstract QueueStore newStore();

  /**
   * The kit's settings: K = 1, one-minute leases and collector timeout, two crash rescues and two
   * transient retries, groups {@code compile} and {@code runtime} on the default tag {@code x86} (required)
   * and the non-default tag {@code arm} (optional).
   *
   * @return the settings
   */
  protected static QueueSettings settings() {
    return QueueSettings.builder().leaseDuration(LEASE).collectorTimeout(LEASE).maxCrashRescues(2)
        .maxTransientRetries(2).addBenchmarkGroups("compile", "runtime")
        .addCollectorTargets(CollectorTarget.required("x86"), CollectorTarget.optional("arm")).build();
  }

  /**
   * How many random scenarios (each up to 60 commands, each on a new store) the model-based test runs; a
   * slow store may lower it.
   *
   * @return 200 by default
   */
  protected int modelExamples() {
    return 200;
  }

  /**
   * How many master requests each of the two sites submits in the concurrency test (every third also a try
   * request; 20 jobs each plus backfill).
   *
   * @return 120 by default
   */
  protected int concurrentRequests() {
    return 120;
  }

  /** Creates the fresh store, clock and engine of a test. */
  @BeforeEach
  void setUpKit() {
    clock = new SettableClock(START);
    store = newStore();
    queue = JobQueue.of(store, clock, settings());
  }

  // ------------------------------------------------------------------------------------------------ helpers

  /** Submits and returns a created request. */
  protected Request submit(NewRequest request) {
    SubmitResult result = queue.submit(request);
    assertThat(result.status()).as("submit %s", request).isEqualTo(SubmitResult.Status.CREATED);
    return result.request();
  }

  /** Re-reads a request. */
  protected Request reload(Request request) {
    return store.request(request.id()).orElseThrow();
  }

  /** Re-reads a job. */
  protected Job reload(Job job) {
    return store.job(job.id()).orElseThrow();
  }

  /** Registers an active collector. */
  protected void register(String name, String tag) {
    assertThat(queue.registerCollector(name, tag, true).status()).isEqualTo(RegisterResult.Status.REGISTERED);
  }

  /** Claims exactly one job for the collector. */
  protected Claim claimOne(String collector) {
    ClaimResult result = queue.claim(collector);
    assertThat(result.status()).as("claim status of %s", collector).isEqualTo(ClaimResult.Status.OK);
    assertThat(result.claims()).as("claims of %s", collector).hasSize(1);
    return result.claims().get(0);
  }

  /** Claims and asserts that the collector gets nothing. */
  protected void claimNothing(String collector) {
    ClaimResult result = queue.claim(collector);
    assertThat(result.claims()).as("claims of %s", collector).isEmpty();
  }

  /** Submits a master request and ticks until it is in progress; returns it. */
  protected Request running(NewRequest request) {
    Request r = submit(request);
    TickResult tick = queue.tick();
    assertThat(tick.started()).as("tick starts %s", r.label()).extracting(s -> s.request().orElseThrow().id())
        .contains(r.id());
    return reload(r);
  }

  /** The jobs of a request on one tag. */
  protected List<Job> jobsOn(Request request, String tag) {
    return store.jobs(request.id()).stream().filter(j -> j.spec().collectorTag().equals(tag)).toList();
  }

  /** Runs every queued job of the tag to success through the given collector. */
  protected void completeAll(String collector) {
    for (int i = 0; i < 1000; i++) {
      ClaimResult result = queue.claim(collector);
      if (result.claims().isEmpty()) {
        return;
      }
      for (Claim claim : result.claims()) {
        assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
      }
    }
    throw new AssertionError("more than 1000 claims for " + collector);
  }

  /** The number of requests in progress. */
  protected int inProgress() {
    return store.inProgressRequests().size();
  }

  // ------------------------------------------------------------------------------------------------ groups

  /** Submitting requests and attaching artifacts. */
  @Nested
  @DisplayName("Requests")
  class Requests {

    @Test
    @DisplayName("a master request is ready at creation, stamped with the clock's time")
    void masterIsReady() {
      Request r = submit(NewRequest.master("m1", "m0").withPr(7));
      assertThat(r.state()).isEqualTo(RequestState.ARTIFACTS_READY);
      assertThat(r.kind()).isEqualTo(RequestKind.MASTER);
      assertThat(r.createdAt()).isEqualTo(START);
      assertThat(reload(r)).isEqualTo(r);
    }

    @Test
    @DisplayName("a release request is ready at creation")
    void releaseIsReady() {
      assertThat(submit(NewRequest.release("1.80.0")).state()).isEqualTo(RequestState.ARTIFACTS_READY);
    }

    @Test
    @DisplayName("a try request without a SHA waits for artifacts; with a SHA it is ready")
    void tryStates() {
      assertThat(submit(NewRequest.tryAwaitingArtifacts(42)).state())
          .isEqualTo(RequestState.WAITING_FOR_ARTIFACTS);
      assertThat(submit(NewRequest.tryWithArtifacts(43, "t1", "m1")).state())
          .isEqualTo(RequestState.ARTIFACTS_READY);
    }

    @Test
    @DisplayName("submitting a tag that exists, of any kind, is a reported no-op")
    void duplicateTag() {
      Request first = submit(NewRequest.master("abc", null));
      SubmitResult again = queue.submit(NewRequest.release("abc"));
      assertThat(again.status()).isEqualTo(SubmitResult.Status.DUPLICATE_TAG);
      assertThat(again.request()).isEqualTo(first);
      assertThat(store.openRequests()).containsExactly(first);
    }

    @Test
    @DisplayName("a second open request for the same PR and kind is a reported no-op")
    void duplicateOpenPr() {
      Request first = submit(NewRequest.tryAwaitingArtifacts(42));
      SubmitResult again = queue.submit(NewRequest.tryWithArtifacts(42, "t2", "m1"));
      assertThat(again.status()).isEqualTo(SubmitResult.Status.DUPLICATE_OPEN_PR);
      assertThat(again.request()).isEqualTo(first);
      assertThat(queue.submit(NewRequest.master("m9", null).withPr(42)).status())
          .as("another kind of the same PR").isEqualTo(SubmitResult.Status.CREATED);
    }

    @Test
    @DisplayName("once its request is cancelled, a PR may submit again")
    void resubmitAfterCancel() {
      Request first = submit(NewRequest.tryAwaitingArtifacts(42));
      queue.cancel(first.id(), "superseded");
      assertThat(queue.submit(NewRequest.tryAwaitingArtifacts(42)).status()).isEqualTo(SubmitResult.Status.CREATED);
    }

    @Test
    @DisplayName("request ids increase in submission order")
    void idsIncrease() {
      Request a = submit(NewRequest.master("a", null));
      Request b = submit(NewRequest.master("b", "a"));
      assertThat(b.id()).isGreaterThan(a.id());
    }

    @Test
    @DisplayName("attaching a SHA to a waiting try makes it ready with that tag and parent")
    void attach() {
      Request t = submit(NewRequest.tryAwaitingArtifacts(42));
      clock.advance(Duration.ofMinutes(3));
      AttachResult result = queue.attachArtifacts(t.id(), "t1", "m1");
      assertThat(result.status()).isEqualTo(AttachResult.Status.ATTACHED);
      Request ready = result.request().orElseThrow();
      assertThat(ready.state()).isEqualTo(RequestState.ARTIFACTS_READY);
      assertThat(ready.tag()).contains("t1");
      assertThat(ready.parentSha()).contains("m1");
      assertThat(ready.createdAt()).isEqualTo(START);
      assertThat(store.requestByTag("t1")).contains(ready);
    }

    @Test
    @DisplayName("attaching is a guarded compare-and-set: a second attach changes nothing and says so")
    void attachTwice() {
      Request t = submit(NewRequest.tryAwaitingArtifacts(42));
      queue.attachArtifacts(t.id(), "t1", "m1");
      AttachResult second = queue.attachArtifacts(t.id(), "t2", "m1");
      assertThat(second.status()).isEqualTo(AttachResult.Status.NOT_WAITING);
      assertThat(reload(t).tag()).contains("t1");
      assertThat(store.requestByTag("t2")).isEmpty();
    }

    @Test
    @DisplayName("attaching a SHA another request has is refused; attaching to an unknown id is not found")
    void attachConflicts() {
      submit(NewRequest.master("m1", null));
      Request t = submit(NewRequest.tryAwaitingArtifacts(42));
      assertThat(queue.attachArtifacts(t.id(), "m1", "m0").status()).isEqualTo(AttachResult.Status.DUPLICATE_TAG);
      assertThat(reload(t).state()).isEqualTo(RequestState.WAITING_FOR_ARTIFACTS);
      assertThat(queue.attachArtifacts(RequestId.of(999), "x", "y").status())
          .isEqualTo(AttachResult.Status.NOT_FOUND);
    }

    @Test
    @DisplayName("open requests are listed by id; terminal ones are not")
    void openRequests() {
      Request a = submit(NewRequest.master("a", null));
      Request b = submit(NewRequest.tryAwaitingArtifacts(5));
      Request c = submit(NewRequest.release("r1"));
      queue.cancel(b.id(), "PR closed");
      assertThat(store.openRequests()).extracting(Request::id).containsExactly(a.id(), c.id());
      assertThat(store.request(RequestId.of(999))).isEmpty();
      assertThat(store.requestByTag("nope")).isEmpty();
    }
  }

  /** The queue order and the status view over the store's open requests. */
  @Nested
  @DisplayName("Queue order")
  class Order {

    @Test
    @DisplayName("in progress first, then releases, then ready requests with their parents first")
    void sections() {
      Request head = running(NewRequest.master("m1", "m0"));
      Request child = submit(NewRequest.tryWithArtifacts(1, "t2", "m2"));
      Request parent = submit(NewRequest.master("m2", "m1").withPr(9));
      Request release = submit(NewRequest.release("1.0.0"));
      assertThat(queue.order().requests()).extracting(Request::id)
          .containsExactly(head.id(), release.id(), parent.id(), child.id());
    }

    @Test
    @DisplayName("within a level: lower PR number first, master before try, then creation time")
    void ties() {
      Request t5 = submit(NewRequest.tryWithArtifacts(5, "t5", "base"));
      clock.advance(Duration.ofSeconds(1));
      Request m5 = submit(NewRequest.master("m5", "base").withPr(5));
      Request t3 = submit(NewRequest.tryWithArtifacts(3, "t3", "base"));
      assertThat(queue.order().requests()).containsExactly(t3, m5, t5);
    }

    @Test
    @DisplayName("a request whose parent is unknown is promoted; waiting try requests are listed last")
    void unknownParentAndWaiting() {
      Request waiting = submit(NewRequest.tryAwaitingArtifacts(1));
      Request orphan = submit(NewRequest.master("m7", "gone").withPr(70));
      QueueOrder order = queue.order();
      assertThat(order.head()).contains(orphan);
      assertThat(order.placed().get(0).reason()).isEqualTo("parent gone done or unknown");
      assertThat(order.waiting()).extracting(QueueOrder.Placed::request).containsExactly(waiting);
    }

    @Test
    @DisplayName("the order of the rest does not change when the head completes")
    void stableWhenHeadCompletes() {
      register("c1", "x86");
      Request head = running(NewRequest.master("m1", "m0"));
      submit(NewRequest.tryWithArtifacts(3, "t1", "m1"));
      submit(NewRequest.master("m2", "m1").withPr(8));
      submit(NewRequest.tryWithArtifacts(4, "t2", "m2"));
      List<Request> before = queue.order().ready();
      completeAll("c1");
      clock.advance(Duration.ofSeconds(1));
      assertThat(store.completeIfDone(head.id(), clock.instant()).status())
          .isEqualTo(CompletionResult.Status.COMPLETED);
      assertThat(queue.order().ready()).isEqualTo(before);
    }

    @Test
    @DisplayName("the status view says how many are ahead and about when each completes")
    void status() {
      Request head = running(NewRequest.master("m1", "m0"));
      Request next = submit(NewRequest.master("m2", "m1"));
      clock.advance(Duration.ofMinutes(20));
      QueueStatus status = queue.status();
      assertThat(status.entries()).hasSize(2);
      assertThat(status.entries().get(0).placed().request().id()).isEqualTo(head.id());
      assertThat(status.entries().get(0).eta()).contains(Duration.ofMinutes(40));
      assertThat(status.entries().get(1).ahead()).isEqualTo(1);
      assertThat(status.entries().get(1).eta()).contains(Duration.ofMinutes(100));
      assertThat(status.entries().get(1).summary())
          .isEqualTo("master m2: 1 ahead, done in about 1 h 40 min (parent m1 in progress (counts as done))");
      assertThat(next.state()).isEqualTo(RequestState.ARTIFACTS_READY);
    }

    @Test
    @DisplayName("the scans read what the lists read, and legal rows are never impossible")
    void scans() {
      register("c1", "x86");
      Request head = running(NewRequest.master("m1", "m0"));
      submit(NewRequest.master("m2", "m1"));
      submit(NewRequest.tryAwaitingArtifacts(4));
      RequestScan open = store.scanOpenRequests();
      assertThat(open.requests()).isEqualTo(store.openRequests()).hasSize(3);
      assertThat(open.impossibleRows()).isEmpty();
      RequestScan running = store.scanInProgressRequests();
      assertThat(running.requests()).isEqualTo(store.inProgressRequests()).extracting(Request::id)
          .containsExactly(head.id());
      assertThat(running.impossibleRows()).isEmpty();
      assertThat(queue.status().impossibleRows()).isEmpty();
      completeAll("c1");
      clock.advance(LEASE.multipliedBy(2));
      TickResult tick = queue.tick();
      assertThat(tick.impossibleRows()).isEmpty();
      assertThat(tick.expired().impossibleRows()).isEmpty();
    }
  }

  /** The site tick: starting requests, fanning out jobs, the cap, backfill. */
  @Nested
  @DisplayName("Site tick")
  class SiteTick {

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

    @Test
    @DisplayName("with K = 1 a tick starts nothing while a request is in progress")
    void capOfOne() {
      running(NewRequest.master("m1", null));
      submit(NewRequest.master("m2", "m1"));
      TickResult tick = queue.tick();
      assertThat(tick.started()).isEmpty();
      assertThat(tick.explanation().sentence()).contains("1 of at most 1 requests in progress");
      assertThat(inProgress()).isEqualTo(1);
    }

    @Test
    @DisplayName("with K = 2 two requests run at once, never three")
    void capOfTwo() {
      JobQueue two = JobQueue.of(store, clock, ImmutableQueueSettings.copyOf(settings()).withMaxInProgress(2));
      for (int i = 1; i <= 4; i++) {
        submit(NewRequest.master("m" + i, null).withPr(i));
      }
      assertThat(two.tick().started()).hasSize(2);
      assertThat(two.tick().started()).isEmpty();
      assertThat(inProgress()).isEqualTo(2);
    }

    @Test
    @DisplayName("the store enforces the cap: a start beyond K changes nothing and says so")
    void storeEnforcesCap() {
      Request a = submit(NewRequest.master("a", null));
      Request b = submit(NewRequest.master("b", null).withPr(2));
      List<JobSpec> jobs = List.of(JobSpec.required("g", "x86"));
      assertThat(store.startRequest(new StartCommand(a.id(), jobs, false, 1, START)).status())
          .isEqualTo(StartResult.Status.STARTED);
      StartResult refused = store.startRequest(new StartCommand(b.id(), jobs, false, 1, START));
      assertThat(refused.status()).isEqualTo(StartResult.Status.CAP_REACHED);
      assertThat(refused.inProgress()).isEqualTo(1);
      assertThat(reload(b).state()).isEqualTo(RequestState.ARTIFACTS_READY);
      assertThat(store.jobs(b.id())).isEmpty();
    }

    @Test
    @DisplayName("two sites ticking the same store never exceed K")
    void twoSites() {
      JobQueue other = JobQueue.of(store, clock, settings());
      submit(NewRequest.master("m1", null));
      submit(NewRequest.master("m2", null).withPr(2));
      TickResult first = queue.tick();
      TickResult second = other.tick();
      assertThat(first.started().size() + second.started().size()).isEqualTo(1);
      assertThat(inProgress()).isEqualTo(1);
    }

    @Test
    @DisplayName("starting a request that is not ready, or unknown, changes nothing and says so")
    void startNotReady() {
      Request waiting = submit(NewRequest.tryAwaitingArtifacts(3));
      StartCommand command = new StartCommand(waiting.id(), List.of(JobSpec.required("g", "x86")), true, 1, START);
      assertThat(store.startRequest(command).status()).isEqualTo(StartResult.Status.NOT_READY);
      assertThat(store.jobs(waiting.id())).isEmpty();
      Request started = running(NewRequest.master("m1", null));
      assertThat(store.startRequest(new StartCommand(started.id(), List.of(), false, 5, START)).status())
          .isEqualTo(StartResult.Status.NOT_READY);
      assertThat(store.startRequest(new StartCommand(RequestId.of(999), List.of(), false, 5, START)).status())
          .isEqualTo(StartResult.Status.NOT_FOUND);
    }

    @Test
    @DisplayName("a request with no jobs completes in the tick that starts it")
    void noJobs() {
      JobQueue bare = JobQueue.of(store, clock, QueueSettings.defaults());
      Request r = submit(NewRequest.master("m1", null));
      TickResult tick = bare.tick();
      assertThat(tick.started()).hasSize(1);
      assertThat(tick.completed()).extracting(Request::id).containsExactly(r.id());
      assertThat(reload(r).state()).isEqualTo(RequestState.COMPLETED);
      assertThat(reload(r).outcome()).contains(Outcome.SUCCESS);
      assertThat(tick.events()).hasSize(1);
    }

    @Test
    @DisplayName("backfill: jobs the completed parent has are no-ops, new ones run without changing its status")
    void backfill() {
      register("c1", "x86");
      register("a1", "arm");
      Request parent = running(NewRequest.master("m1", null));
      completeAll("c1");
      completeAll("a1");
      assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(parent.id());
      Request completedParent = reload(parent);

      Request child = submit(NewRequest.tryWithArtifacts(5, "t1", "m1").withBenchmarkGroups("compile", "extra"));
      StartResult start = queue.tick().started().get(0);
      assertThat(start.backfill().status()).isEqualTo(Backfill.Status.ENQUEUED);
      assertThat(start.backfill().parent()).contains(parent.id());
      assertThat(start.backfill().existing()).isEqualTo(2);
      assertThat(start.backfill().created()).extracting(Job::spec)
          .containsExactly(JobSpec.required("extra", "x86"), JobSpec.optionalJob("extra", "arm"));
      assertThat(start.backfill().created()).allSatisfy(j -> assertThat(j.requestId()).isEqualTo(parent.id()));
      assertThat(start.request().orElseThrow().parentRequest()).contains(parent.id());
      assertThat(reload(parent)).isEqualTo(completedParent);

      completeAll("c1");
      assertThat(reload(parent)).isEqualTo(completedParent);
      assertThat(store.jobs(parent.id())).hasSize(6);
      assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(child.id());
    }

    @Test
    @DisplayName("backfill to an unknown or unstarted parent is reported, not an error")
    void backfillParentMissing() {
      submit(NewRequest.master("m1", "unknown"));
      assertThat(queue.tick().started().get(0).backfill().status()).isEqualTo(Backfill.Status.PARENT_UNKNOWN);
      Request r = submit(NewRequest.release("1.0"));
      Request ready = submit(NewRequest.master("m3", null).withPr(50));
      Request t = submit(NewRequest.tryWithArtifacts(6, "t6", "m3"));
      StartCommand command = new StartCommand(t.id(), List.of(JobSpec.required("g", "x86")), true, 9, START);
      StartResult start = store.startRequest(command);
      assertThat(start.backfill().status()).isEqualTo(Backfill.Status.PARENT_NOT_STARTED);
      assertThat(start.backfill().parent()).contains(ready.id());
      assertThat(start.request().orElseThrow().parentRequest()).isEmpty();
      StartResult release = store.startRequest(new StartCommand(r.id(), List.of(), true, 9, START));
      assertThat(release.backfill().status()).isEqualTo(Backfill.Status.NO_PARENT);
    }

    @Test
    @DisplayName("backfill to a cancelled parent is reported and creates nothing")
    void backfillCancelledParent() {
      Request parent = submit(NewRequest.master("m1", null));
      queue.cancel(parent.id(), "reverted");
      submit(NewRequest.master("m2", "m1"));
      StartResult start = queue.tick().started().get(0);
      assertThat(start.backfill().status()).isEqualTo(Backfill.Status.PARENT_CANCELLED);
      assertThat(store.jobs(parent.id())).isEmpty();
    }
  }

  /** Claims and the leases they return. */
  @Nested
  @DisplayName("Claims and leases")
  class Claims {

    @Test
    @DisplayName("a claim returns a lease with the job, its attempt, a token and the expiry")
    void claimReturnsLease() {
      register("c1", "x86");
      Request r = running(NewRequest.master("m1", null));
      clock.advance(Duration.ofSeconds(5));
      Claim claim = claimOne("c1");
      Lease lease = claim.lease();
      assertThat(lease.jobId()).isEqualTo(claim.job().id());
      assertThat(lease.attempt()).isEqualTo(1);
      assertThat(lease.expiresAt()).isEqualTo(START.plusSeconds(5).plus(LEASE));
      assertThat(lease.collector()).isEqualTo("c1");
      assertThat(claim.job().state()).isEqualTo(JobState.LEASED);
      assertThat(claim.job().requestId()).isEqualTo(r.id());
      assertThat(claim.job().affinity()).contains("c1");
      assertThat(reload(claim.job())).isEqualTo(claim.job());
    }

    @Test
    @DisplayName("a collector claims only jobs of its tag, in creation order, up to the limit")
    void tagOrderLimit() {
      register("c1", "x86");
      register("a1", "arm");
      Request r = running(NewRequest.master("m1", null));
      ClaimResult x86 = queue.claim("c1", 5);
      assertThat(x86.claims()).extracting(c -> c.job().spec()).containsExactly(
          JobSpec.required("compile", "x86"), JobSpec.required("runtime", "x86"));
      ClaimResult arm = queue.claim("a1", 1);
      assertThat(arm.claims()).extracting(c -> c.job().spec()).containsExactly(JobSpec.optionalJob("compile", "arm"));
      assertThat(jobsOn(r, "arm")).extracting(Job::state).containsExactly(JobState.LEASED, JobState.QUEUED);
    }

    @Test
    @DisplayName("claims never hand out the same job twice, and tokens are never reused")
    void noDoubleClaim() {
      register("c1", "x86");
      register("c2", "x86");
      running(NewRequest.master("m1", null));
      Claim a = claimOne("c1");
      Claim b = claimOne("c2");
      assertThat(a.job().id()).isNotEqualTo(b.job().id());
      assertThat(a.lease().token()).isNotEqualTo(b.lease().token());
      claimNothing("c1");
    }

    @Test
    @DisplayName("an unknown or inactive collector claims nothing and is told why")
    void unknownOrInactive() {
      running(NewRequest.master("m1", null));
      assertThat(queue.claim("ghost").status()).isEqualTo(ClaimResult.Status.UNKNOWN_COLLECTOR);
      assertThat(queue.registerCollector("idle", "x86", false).status()).isEqualTo(RegisterResult.Status.REGISTERED);
      assertThat(queue.claim("idle").status()).isEqualTo(ClaimResult.Status.INACTIVE_COLLECTOR);
      assertThat(queue.claim("idle").claims()).isEmpty();
      assertThat(store.inProgressRequests()).allSatisfy(r -> assertThat(store.jobs(r.id()))
          .allSatisfy(j -> assertThat(j.state()).isEqualTo(JobState.QUEUED)));
    }

    @Test
    @DisplayName("a heartbeat renews the lease with the same attempt and token")
    void heartbeatRenews() {
      register("c1", "x86");
      running(NewRequest.master("m1", null));
      Claim claim = claimOne("c1");
      clock.advance(Duration.ofSeconds(50));
      LeaseResult beat = queue.heartbeat(claim.lease());
      assertThat(beat.status()).isEqualTo(LeaseStatus.OK);
      Lease renewed = beat.job().orElseThrow().lease().orElseThrow();
      assertThat(renewed.expiresAt()).isEqualTo(START.plusSeconds(50).plus(LEASE));
      assertThat(renewed.token()).isEqualTo(claim.lease().token());
      clock.advance(Duration.ofSeconds(50));
      assertThat(queue.complete(claim.lease()).status()).as("long jobs survive by renewing").isEqualTo(LeaseStatus.OK);
    }

    @Test
    @DisplayName("a completed job is succeeded and finished at the clock's time")
    void completeJob() {
      register("c1", "x86");
      running(NewRequest.master("m1", null));
      Claim claim = claimOne("c1");
      clock.advance(Duration.ofSeconds(9));
      LeaseResult done = queue.complete(claim.lease());
      assertThat(done.status()).isEqualTo(LeaseStatus.OK);
      Job job = done.job().orElseThrow();
      assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
      assertThat(job.finishedAt()).contains(START.plusSeconds(9));
      assertThat(job.lease()).isEmpty();
      assertThat(reload(job)).isEqualTo(job);
    }
  }

  /** Fenced updates: a wrong attempt or token, or an expired lease, changes nothing. */
  @Nested
  @DisplayName("Fencing")
  class Fencing {

    private Claim claim;

    @BeforeEach
    void claimAJob() {
      register("c1", "x86");
      register("c2", "x86");
      running(NewRequest.master("m1", null));
      claim = claimOne("c1");
    }

    private void assertStale(Supplier<LeaseResult> update) {
      Job before = reload(claim.job());
      LeaseResult result = update.get();
      assertThat(result.status()).isEqualTo(LeaseStatus.STALE_LEASE);
      assertThat(result.job()).contains(before);
      assertThat(reload(claim.job())).isEqualTo(before);
    }

    @Test
    @DisplayName("a wrong token changes nothing for heartbeat, complete, fail and release")
    void wrongToken() {
      Lease l = claim.lease();
      long bad = l.token() + 1;
      assertStale(() -> store.heartbeat(l.jobId(), l.attempt(), bad, LEASE, clock.instant()));
      assertStale(() -> store.complete(l.jobId(), l.attempt(), bad, clock.instant()));
      assertStale(() -> store.fail(l.jobId(), l.attempt(), bad, Failure.permanent("x"), 2, clock.instant()));
      assertStale(() -> store.release(l.jobId(), l.attempt(), bad, clock.instant()));
    }

    @Test
    @DisplayName("a wrong attempt with the right token changes nothing")
    void wrongAttempt() {
      Lease l = claim.lease();
      assertStale(() -> store.complete(l.jobId(), l.attempt() + 1, l.token(), clock.instant()));
      assertStale(() -> store.heartbeat(l.jobId(), l.attempt() + 1, l.token(), LEASE, clock.instant()));
    }

    @Test
    @DisplayName("completing twice: the second completion is stale")
    void completeTwice() {
      assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
      assertStale(() -> queue.complete(claim.lease()));
      assertStale(() -> queue.fail(claim.lease(), Failure.permanent("late")));
    }

    @Test
    @DisplayName("an expired lease is stale even before anyone reclaims the job")
    void expiredBeforeReclaim() {
      clock.advance(LEASE);
      assertStale(() -> queue.heartbeat(claim.lease()));
      assertStale(() -> queue.complete(claim.lease()));
      assertThat(reload(claim.job()).state()).isEqualTo(JobState.LEASED);
    }

    @Test
    @DisplayName("after the job is reclaimed, the old holder's result is refused and the new holder's kept")
    void staleAfterReclaim() {
      clock.advance(LEASE.plusSeconds(1));
      Claim second = queue.claim("c1").claims().get(0);
      assertThat(second.job().id()).isEqualTo(claim.job().id());
      assertThat(second.lease().attempt()).isEqualTo(2);
      assertStale(() -> queue.complete(claim.lease()));
      assertThat(queue.complete(second.lease()).status()).isEqualTo(LeaseStatus.OK);
    }

    @Test
    @DisplayName("an unknown job id is not found")
    void notFound() {
      LeaseResult result = store.complete(JobId.of(999_999), 1, 1, clock.instant());
      assertThat(result.status()).isEqualTo(LeaseStatus.NOT_FOUND);
      assertThat(result.job()).isEmpty();
    }
  }

  /** Failures, crash rescues, the two budgets, release. */
  @Nested
  @DisplayName("Failures and budgets")
  class Failures {

    private Request request;

    @BeforeEach
    void startARequest() {
      register("c1", "x86");
      register("c2", "x86");
      request = running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    }

    @Test
    @DisplayName("a permanent failure fails the job at once with its detail")
    void permanent() {
      Claim claim = claimOne("c1");
      LeaseResult result = queue.fail(claim.lease(), Failure.permanent("artifact m1 not found"));
      Job job = result.job().orElseThrow();
      assertThat(job.state()).isEqualTo(JobState.FAILED);
      JobFailure failure = job.failure().orElseThrow();
      assertThat(failure.reason()).isEqualTo(JobFailure.Reason.PERMANENT);
      assertThat(failure.detail()).isEqualTo("permanent failure reported by c1: artifact m1 not found");
      assertThat(failure.at()).isEqualTo(clock.instant());
    }

    @Test
    @DisplayName("a transient failure requeues the job for its collector and uses one transient retry")
    void transientRetry() {
      Claim claim = claimOne("c1");
      Job job = queue.fail(claim.lease(), Failure.transientFailure("db timeout")).job().orElseThrow();
      assertThat(job.state()).isEqualTo(JobState.QUEUED);
      assertThat(job.transientRetries()).isEqualTo(1);
      assertThat(job.crashRescues()).isZero();
      assertThat(job.lastError()).contains("db timeout");
      assertThat(job.affinity()).contains("c1");
      claimNothing("c2");
      Claim again = claimOne("c1");
      assertThat(again.lease().attempt()).isEqualTo(2);
    }

    @Test
    @DisplayName("exhausting the transient budget fails the job with the reason")
    void transientBudget() {
      for (int i = 0; i < 2; i++) {
        Claim claim = claimOne("c1");
        assertThat(queue.fail(claim.lease(), Failure.transientFailure("flaky " + i)).job().orElseThrow().state())
            .isEqualTo(JobState.QUEUED);
      }
      Claim last = claimOne("c1");
      Job job = queue.fail(last.lease(), Failure.transientFailure("flaky 2")).job().orElseThrow();
      assertThat(job.state()).isEqualTo(JobState.FAILED);
      assertThat(job.transientRetries()).isEqualTo(2);
      assertThat(job.failure().orElseThrow().reason()).isEqualTo(JobFailure.Reason.TRANSIENT_BUDGET_EXHAUSTED);
      assertThat(job.failure().get().detail())
          .isEqualTo("transient failure reported by c1 after 2 transient retries (the budget): flaky 2");
    }

    @Test
    @DisplayName("an expired lease makes the job claimable again and counts as one crash rescue")
    void crashRescue() {
      Claim claim = claimOne("c1");
      clock.advance(LEASE);
      ExpiryResult expiry = store.expireLeases(clock.instant(), 2);
      assertThat(expiry.rescued()).extracting(Job::id).containsExactly(claim.job().id());
      Job job = reload(claim.job());
      assertThat(job.state()).isEqualTo(JobState.QUEUED);
      assertThat(job.crashRescues()).isEqualTo(1);
      assertThat(job.affinity()).contains("c1");
      assertThat(store.expireLeases(clock.instant(), 2).isEmpty()).isTrue();
    }

    @Test
    @DisplayName("a lease is live until its expiry instant, exclusive")
    void expiryBoundary() {
      claimOne("c1");
      clock.advance(LEASE.minusMillis(1));
      assertThat(store.expireLeases(clock.instant(), 2).isEmpty()).isTrue();
      clock.advance(Duration.ofMillis(1));
      assertThat(store.expireLeases(clock.instant(), 2).rescued()).hasSize(1);
    }

    @Test
    @DisplayName("exhausting the crash-rescue budget fails the job with the reason")
    void crashBudget() {
      for (int i = 0; i < 3; i++) {
        claimOne("c1");
        clock.advance(LEASE);
        queue.tick();
      }
      Job job = store.jobs(request.id()).stream().filter(j -> j.spec().collectorTag().equals("x86")).findFirst()
          .orElseThrow();
      assertThat(job.state()).isEqualTo(JobState.FAILED);
      assertThat(job.crashRescues()).isEqualTo(2);
      assertThat(job.failure().orElseThrow().reason()).isEqualTo(JobFailure.Reason.CRASH_BUDGET_EXHAUSTED);
      assertThat(job.failure().get().detail()).isEqualTo("lease of c1 expired at " + START.plus(LEASE.multipliedBy(3))
          + " after 2 crash rescues (the budget)");
    }

    @Test
    @DisplayName("the two budgets are separate: crash rescues do not use transient retries, nor the reverse")
    void separateBudgets() {
      Claim first = claimOne("c1");
      queue.fail(first.lease(), Failure.transientFailure("t1"));
      Claim second = claimOne("c1");
      queue.fail(second.lease(), Failure.transientFailure("t2"));
      claimOne("c1");
      clock.advance(LEASE);
      queue.tick();
      claimOne("c1");
      clock.advance(LEASE);
      queue.tick();
      Job job = reload(first.job());
      assertThat(job.state()).isEqualTo(JobState.QUEUED);
      assertThat(job.transientRetries()).isEqualTo(2);
      assertThat(job.crashRescues()).isEqualTo(2);
      assertThat(job.attempt()).isEqualTo(4);
    }

    @Test
    @DisplayName("release hands the job back without spending a budget or keeping affinity")
    void release() {
      Claim claim = claimOne("c1");
      Job job = queue.release(claim.lease()).job().orElseThrow();
      assertThat(job.state()).isEqualTo(JobState.QUEUED);
      assertThat(job.crashRescues()).isZero();
      assertThat(job.transientRetries()).isZero();
      assertThat(job.affinity()).isEmpty();
      assertThat(claimOne("c2").job().id()).isEqualTo(job.id());
    }
  }

  /** Affinity to the previous collector and the pool fallback. */
  @Nested
  @DisplayName("Affinity and pools")
  class Affinity {

    private Claim claim;

    @BeforeEach
    void leaseAndLoseAJob() {
      register("c1", "x86");
      register("c2", "x86");
      running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
      claim = claimOne("c1");
      queue.fail(claim.lease(), Failure.transientFailure("network"));
    }

    @Test
    @DisplayName("a requeued job waits for its previous collector while that one is live")
    void prefersPrevious() {
      clock.advance(LEASE.minusSeconds(1));
      claimNothing("c2");
      assertThat(claimOne("c1").job().id()).isEqualTo(claim.job().id());
    }

    @Test
    @DisplayName("another member of the pool takes it once the previous collector's heartbeat expired")
    void poolFallback() {
      clock.advance(LEASE);
      assertThat(claimOne("c2").job().id()).isEqualTo(claim.job().id());
    }

    @Test
    @DisplayName("a heartbeat of the previous collector keeps the job reserved for it")
    void heartbeatKeepsAffinity() {
      clock.advance(LEASE.minusSeconds(1));
      assertThat(queue.collectorHeartbeat("c1").status()).isEqualTo(CollectorResult.Status.OK);
      clock.advance(Duration.ofSeconds(30));
      claimNothing("c2");
    }

    @Test
    @DisplayName("another member takes it at once when the previous collector is deactivated")
    void deactivatedPrevious() {
      queue.deactivate("c1");
      assertThat(claimOne("c2").job().id()).isEqualTo(claim.job().id());
    }

    @Test
    @DisplayName("a collector takes its own requeued jobs before older jobs")
    void ownFirst() {
      Request second = submit(NewRequest.master("m2", null).withPr(2).withBenchmarkGroups("h"));
      store.startRequest(new StartCommand(second.id(), List.of(JobSpec.required("h", "x86")), false, 5,
          clock.instant()));
      Claim newer = claimOne("c2");
      assertThat(newer.job().requestId()).isEqualTo(second.id());
      queue.fail(newer.lease(), Failure.transientFailure("network"));
      Claim older = claimOne("c1");
      assertThat(older.job().id()).isEqualTo(claim.job().id());
      queue.release(older.lease());
      ClaimResult both = queue.claim("c2", 2);
      assertThat(both.claims()).extracting(c -> c.job().id()).containsExactly(newer.job().id(), older.job().id());
      assertThat(newer.job().id()).isGreaterThan(older.job().id());
    }

    @Test
    @DisplayName("a collector of another tag never takes the job")
    void otherTag() {
      register("a1", "arm");
      clock.advance(LEASE.multipliedBy(2));
      ClaimResult arm = queue.claim("a1", 10);
      assertThat(arm.claims()).extracting(c -> c.job().spec().collectorTag()).containsOnly("arm");
    }
  }

  /** Completion of requests and their outcomes. */
  @Nested
  @DisplayName("Completion")
  class Completion {

    @BeforeEach
    void registerCollectors() {
      register("c1", "x86");
      register("a1", "arm");
    }

    @Test
    @DisplayName("a request completes when its required jobs are terminal; optional jobs never block")
    void requiredOnly() {
      Request r = running(NewRequest.master("m1", null));
      Claim first = claimOne("c1");
      queue.complete(first.lease());
      assertThat(store.completeIfDone(r.id(), clock.instant()).pendingJobs()).isEqualTo(1);
      assertThat(queue.tick().completed()).isEmpty();
      completeAll("c1");
      clock.advance(Duration.ofMinutes(2));
      TickResult tick = queue.tick();
      assertThat(tick.completed()).extracting(Request::id).containsExactly(r.id());
      Request done = reload(r);
      assertThat(done.state()).isEqualTo(RequestState.COMPLETED);
      assertThat(done.outcome()).contains(Outcome.SUCCESS);
      assertThat(done.finishedAt()).contains(START.plus(Duration.ofMinutes(2)));
      assertThat(jobsOn(r, "arm")).allSatisfy(j -> assertThat(j.state()).isEqualTo(JobState.QUEUED));
    }

    @Test
    @DisplayName("the outcome is partial failure when some jobs failed and failure when no required job succeeded")
    void outcomes() {
      Request partial = running(NewRequest.master("m1", null));
      queue.fail(claimOne("c1").lease(), Failure.permanent("boom"));
      completeAll("c1");
      assertThat(queue.tick().completed().get(0).outcome()).contains(Outcome.PARTIAL_FAILURE);
      assertThat(reload(partial).outcome()).contains(Outcome.PARTIAL_FAILURE);

      running(NewRequest.master("m2", "m1"));
      for (int i = 0; i < 2; i++) {
        queue.fail(claimOne("c1").lease(), Failure.permanent("boom " + i));
      }
      assertThat(queue.tick().completed().get(0).outcome()).contains(Outcome.FAILURE);
    }

    @Test
    @DisplayName("a failed optional job makes the outcome a partial failure, never a silent success")
    void optionalFailure() {
      running(NewRequest.master("m1", null));
      queue.fail(claimOne("a1").lease(), Failure.permanent("arm broke"));
      completeAll("c1");
      assertThat(queue.tick().completed().get(0).outcome()).contains(Outcome.PARTIAL_FAILURE);
    }

    @Test
    @DisplayName("a request waits for the required jobs backfilled to its parent")
    void waitsForParent() {
      Request parent = running(NewRequest.master("m1", null).withBenchmarkGroups("a"));
      completeAll("c1");
      queue.tick();
      assertThat(reload(parent).state()).isEqualTo(RequestState.COMPLETED);
      Request child = submit(NewRequest.master("m2", "m1").withBenchmarkGroups("a", "b"));
      queue.tick();
      ClaimResult claims = queue.claim("c1", 1);
      Claim own = claims.claims().get(0);
      assertThat(own.job().requestId()).isEqualTo(child.id());
      queue.complete(own.lease());
      queue.complete(claimOne("c1").lease());
      CompletionResult pending = store.completeIfDone(child.id(), clock.instant());
      assertThat(pending.status()).isEqualTo(CompletionResult.Status.NOT_DONE);
      assertThat(pending.pendingJobs()).isEqualTo(1);
      completeAll("c1");
      assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(child.id());
    }

    @Test
    @DisplayName("master and try completions emit one comparison event; releases emit none")
    void events() {
      JobQueue bare = JobQueue.of(store, clock, QueueSettings.defaults());
      Request release = submit(NewRequest.release("1.0"));
      TickResult first = bare.tick();
      assertThat(first.completed()).extracting(Request::id).containsExactly(release.id());
      assertThat(first.events()).isEmpty();
      Request t = submit(NewRequest.tryWithArtifacts(42, "t1", "m0"));
      TickResult second = bare.tick();
      assertThat(second.events()).containsExactly(new ComparisonEvent(t.id(), RequestKind.TRY, "t1",
          Optional.of("m0"), t.pr(), Outcome.SUCCESS, START));
    }

    @Test
    @DisplayName("completion happens once: another site sees the request already completed")
    void once() {
      Request r = running(NewRequest.master("m1", null));
      completeAll("c1");
      JobQueue other = JobQueue.of(store, clock, settings());
      int completions = queue.tick().completed().size() + other.tick().completed().size();
      assertThat(completions).isEqualTo(1);
      assertThat(store.completeIfDone(r.id(), clock.instant()).status())
          .isEqualTo(CompletionResult.Status.NOT_IN_PROGRESS);
      assertThat(store.completeIfDone(RequestId.of(999), clock.instant()).status())
          .isEqualTo(CompletionResult.Status.NOT_FOUND);
    }

    @Test
    @DisplayName("a completed request is absorbing: late results of its jobs do not change it")
    void absorbing() {
      Request r = running(NewRequest.master("m1", null));
      completeAll("c1");
      queue.tick();
      Request done = reload(r);
      completeAll("a1");
      assertThat(reload(r)).isEqualTo(done);
      assertThat(queue.cancel(r.id(), "too late").status()).isEqualTo(CancelResult.Status.ALREADY_FINISHED);
      assertThat(reload(r)).isEqualTo(done);
    }
  }

  /** Cancelling requests. */
  @Nested
  @DisplayName("Cancellation")
  class Cancellation {

    private Request request;
    private Claim leased;

    @BeforeEach
    void startAndLease() {
      register("c1", "x86");
      request = running(NewRequest.tryWithArtifacts(42, "t1", "m0"));
      leased = claimOne("c1");
    }

    @Test
    @DisplayName("cancelling cancels queued jobs and flags leased ones")
    void cancelJobs() {
      clock.advance(Duration.ofSeconds(3));
      CancelResult result = queue.cancel(request.id(), "PR closed");
      assertThat(result.status()).isEqualTo(CancelResult.Status.CANCELLED);
      assertThat(result.queuedJobsCancelled()).isEqualTo(3);
      assertThat(result.leasedJobsFlagged()).isEqualTo(1);
      Request cancelled = result.request().orElseThrow();
      assertThat(cancelled.state()).isEqualTo(RequestState.CANCELLED);
      assertThat(cancelled.cancelReason()).contains("PR closed");
      assertThat(cancelled.finishedAt()).contains(START.plusSeconds(3));
      Job flagged = reload(leased.job());
      assertThat(flagged.state()).isEqualTo(JobState.LEASED);
      assertThat(flagged.cancelRequested()).isTrue();
      assertThat(store.jobs(request.id())).filteredOn(j -> !j.id().equals(leased.job().id()))
          .allSatisfy(j -> assertThat(j.state()).isEqualTo(JobState.CANCELLED));
    }

    @Test
    @DisplayName("the collector learns of the cancellation on its next heartbeat; the job is cancelled")
    void heartbeatSaysCancelled() {
      queue.cancel(request.id(), "PR closed");
      LeaseResult beat = queue.heartbeat(leased.lease());
      assertThat(beat.status()).isEqualTo(LeaseStatus.CANCELLED);
      assertThat(beat.job().orElseThrow().state()).isEqualTo(JobState.CANCELLED);
      assertThat(queue.complete(leased.lease()).status()).isEqualTo(LeaseStatus.STALE_LEASE);
    }

    @Test
    @DisplayName("completing a flagged job reports cancelled and records no success")
    void completeFlagged() {
      queue.cancel(request.id(), "superseded");
      LeaseResult done = queue.complete(leased.lease());
      assertThat(done.status()).isEqualTo(LeaseStatus.CANCELLED);
      assertThat(reload(leased.job()).state()).isEqualTo(JobState.CANCELLED);
    }

    @Test
    @DisplayName("a flagged job whose lease expires is cancelled, not rescued")
    void expiredFlagged() {
      queue.cancel(request.id(), "PR closed");
      clock.advance(LEASE);
      ExpiryResult expiry = store.expireLeases(clock.instant(), 2);
      assertThat(expiry.cancelled()).extracting(Job::id).containsExactly(leased.job().id());
      assertThat(expiry.rescued()).isEmpty();
    }

    @Test
    @DisplayName("a cancelled request frees its in-progress slot and its queued jobs are never claimed")
    void freesSlot() {
      Request next = submit(NewRequest.master("m1", null));
      queue.cancel(request.id(), "PR closed");
      assertThat(queue.tick().started()).extracting(s -> s.request().orElseThrow().id()).containsExactly(next.id());
      List<Claim> claims = queue.claim("c1", 10).claims();
      assertThat(claims).allSatisfy(c -> assertThat(c.job().requestId()).isEqualTo(next.id()));
    }

    @Test
    @DisplayName("cancelling twice, or an unknown request, changes nothing and says so")
    void twice() {
      queue.cancel(request.id(), "PR closed");
      Request cancelled = reload(request);
      assertThat(queue.cancel(request.id(), "again").status()).isEqualTo(CancelResult.Status.ALREADY_FINISHED);
      assertThat(reload(request)).isEqualTo(cancelled);
      assertThat(queue.cancel(RequestId.of(999), "x").status()).isEqualTo(CancelResult.Status.NOT_FOUND);
    }

    @Test
    @DisplayName("a waiting try request can be cancelled")
    void cancelWaiting() {
      Request waiting = submit(NewRequest.tryAwaitingArtifacts(77));
      assertThat(queue.cancel(waiting.id(), "superseded").request().orElseThrow().state())
          .isEqualTo(RequestState.CANCELLED);
      assertThat(queue.attachArtifacts(waiting.id(), "t77", "m0").status()).isEqualTo(AttachResult.Status.NOT_WAITING);
    }
  }

  /** Registering collectors, heartbeats, offline status, deactivation. */
  @Nested
  @DisplayName("Collectors")
  class Collectors {

    @Test
    @DisplayName("registering is unique by name: the same registration again is a no-op")
    void unique() {
      RegisterResult first = queue.registerCollector("c1", "x86", true);
      assertThat(first.status()).isEqualTo(RegisterResult.Status.REGISTERED);
      assertThat(first.collector().registeredAt()).isEqualTo(START);
      clock.advance(Duration.ofMinutes(1));
      RegisterResult again = queue.registerCollector("c1", "x86", false);
      assertThat(again.status()).isEqualTo(RegisterResult.Status.ALREADY_REGISTERED);
      assertThat(again.collector()).isEqualTo(first.collector());
      assertThat(store.collector("c1")).contains(first.collector());
    }

    @Test
    @DisplayName("a taken name with another tag is refused")
    void nameTaken() {
      register("c1", "x86");
      RegisterResult other = queue.registerCollector("c1", "arm", true);
      assertThat(other.status()).isEqualTo(RegisterResult.Status.NAME_TAKEN);
      assertThat(store.collector("c1").orElseThrow().tag()).isEqualTo("x86");
    }

    @Test
    @DisplayName("a collector is online while its heartbeat is fresh and offline after the configured age")
    void offline() {
      register("c1", "x86");
      register("c2", "x86");
      clock.advance(LEASE.minusSeconds(1));
      queue.collectorHeartbeat("c2");
      clock.advance(Duration.ofSeconds(1));
      List<CollectorStatus> statuses = queue.collectors();
      assertThat(statuses).extracting(s -> s.collector().name()).containsExactly("c1", "c2");
      assertThat(statuses.get(0).state()).isEqualTo(CollectorStatus.State.OFFLINE);
      assertThat(statuses.get(0).heartbeatAge()).isEqualTo(LEASE);
      assertThat(statuses.get(1).state()).isEqualTo(CollectorStatus.State.ONLINE);
      assertThat(queue.collectorHeartbeat("ghost").status()).isEqualTo(CollectorResult.Status.NOT_FOUND);
    }

    @Test
    @DisplayName("claims and job updates count as heartbeats")
    void implicitHeartbeats() {
      register("c1", "x86");
      running(NewRequest.master("m1", null));
      clock.advance(Duration.ofSeconds(10));
      Claim claim = claimOne("c1");
      assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusSeconds(10));
      clock.advance(Duration.ofSeconds(10));
      queue.heartbeat(claim.lease());
      assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusSeconds(20));
      clock.advance(Duration.ofSeconds(10));
      queue.complete(claim.lease());
      assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusSeconds(30));
    }

    @Test
    @DisplayName("a deactivated collector claims nothing, keeps its leases, and claims again once activated")
    void deactivate() {
      register("c1", "x86");
      running(NewRequest.master("m1", null));
      Claim claim = claimOne("c1");
      assertThat(queue.deactivate("c1").status()).isEqualTo(CollectorResult.Status.OK);
      assertThat(queue.deactivate("c1").status()).isEqualTo(CollectorResult.Status.UNCHANGED);
      assertThat(queue.collectors().get(0).state()).isEqualTo(CollectorStatus.State.INACTIVE);
      assertThat(queue.claim("c1").status()).isEqualTo(ClaimResult.Status.INACTIVE_COLLECTOR);
      assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
      assertThat(queue.activate("c1").status()).isEqualTo(CollectorResult.Status.OK);
      claimOne("c1");
      assertThat(queue.activate("ghost").status()).isEqualTo(CollectorResult.Status.NOT_FOUND);
    }

    @Test
    @DisplayName("heartbeat instants only move forward")
    void monotonic() {
      register("c1", "x86");
      clock.advance(Duration.ofMinutes(5));
      queue.collectorHeartbeat("c1");
      store.collectorHeartbeat("c1", START);
      assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plus(Duration.ofMinutes(5)));
    }
  }

  /** Completing several leases in one call: per-item results, each as completing it alone would give. */
  @Nested
  @DisplayName("Batch completion")
  class BatchCompletion {

    /** An engine with room for two requests in progress, so that one of them can be cancelled. */
    private JobQueue two;

    @BeforeEach
    void twoInProgress() {
      two = JobQueue.of(store, clock, ImmutableQueueSettings.copyOf(settings()).withMaxInProgress(2));
    }

    /** A job's state with its request named by tag (ids and tokens are the store's own). */
    private String render(LeaseResult result) {
      return QueueModelCheck.render(result, id -> store.request(id).orElseThrow().label());
    }

    private String renderJobs(Request... requests) {
      StringBuilder sb = new StringBuilder();
      for (Request r : requests) {
        store.jobs(r.id()).forEach(j -> sb.append(QueueModelCheck.render(j, id -> store.request(id).orElseThrow()
            .label())).append('\n'));
      }
      return sb.toString();
    }

    /**
     * Builds, on the current store, two requests in progress with leases of every kind, and returns the
     * batch in this order: live, expired (and flagged), flagged for cancellation, wrong token, already
     * completed, live, unknown job.
     */
    private List<Lease> mixedBatch() {
      register("c1", "x86");
      Request m1 = submit(NewRequest.master("m1", null).withBenchmarkGroups("a", "b"));
      submit(NewRequest.master("m2", null).withBenchmarkGroups("c", "d", "e", "f"));
      assertThat(two.tick().started()).hasSize(2);
      Lease expiring = two.claim("c1", 1).claims().get(0).lease();
      clock.advance(Duration.ofSeconds(40));
      List<Claim> claims = two.claim("c1", 5).claims();
      assertThat(claims).hasSize(5);
      assertThat(claims.get(0).job().requestId()).isEqualTo(m1.id());
      clock.advance(Duration.ofSeconds(30));
      assertThat(two.cancel(m1.id(), "PR closed").status()).isEqualTo(CancelResult.Status.CANCELLED);
      Lease flagged = claims.get(0).lease();
      Lease live = claims.get(1).lease();
      Lease wrong = claims.get(2).lease();
      Lease completed = claims.get(3).lease();
      assertThat(two.complete(completed).status()).isEqualTo(LeaseStatus.OK);
      Lease other = claims.get(4).lease();
      Lease unknown = new Lease(JobId.of(999_999), 1, 1, clock.instant().plus(LEASE), "c1");
      Lease badToken = new Lease(wrong.jobId(), wrong.attempt(), wrong.token() + 1_000_003, wrong.expiresAt(),
          wrong.collector());
      clock.advance(Duration.ofSeconds(5));
      return List.of(live, expiring, flagged, badToken, completed, other, unknown);
    }

    @Test
    @DisplayName("live leases complete together: succeeded at the clock's time, stored, the holder's heartbeat"
        + " refreshed")
    void allLive() {
      register("c1", "x86");
      Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
      List<Claim> claims = queue.claim("c1", 3).claims();
      assertThat(claims).hasSize(3);
      clock.advance(Duration.ofSeconds(7));
      List<LeaseResult> results = queue.completeAll(claims.stream().map(Claim::lease).toList());
      assertThat(results).hasSize(3);
      for (int i = 0; i < 3; i++) {
        LeaseResult result = results.get(i);
        assertThat(result.status()).isEqualTo(LeaseStatus.OK);
        Job job = result.job().orElseThrow();
        assertThat(job.id()).as("result %s is for item %s", i, i).isEqualTo(claims.get(i).job().id());
        assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(job.finishedAt()).contains(START.plusSeconds(7));
        assertThat(job.lease()).isEmpty();
        assertThat(reload(job)).isEqualTo(job);
      }
      assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusSeconds(7));
      assertThat(jobsOn(r, "x86")).allMatch(j -> j.state() == JobState.SUCCEEDED);
    }

    @Test
    @DisplayName("the results follow the order of the batch, not the order of the job ids")
    void order() {
      register("c1", "x86");
      running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
      List<Lease> leases = new java.util.ArrayList<>(queue.claim("c1", 3).claims().stream().map(Claim::lease)
          .toList());
      java.util.Collections.reverse(leases);
      List<LeaseResult> results = queue.completeAll(leases);
      assertThat(results).extracting(x -> x.job().orElseThrow().id()).containsExactlyElementsOf(
          leases.stream().map(Lease::jobId).toList());
    }

    @Test
    @DisplayName("a mixed batch: live, expired, flagged, wrong-token, completed and unknown items each get their"
        + " own result, and those results and the stored state equal completing them one by one")
    void mixedEqualsOneByOne() {
      List<Lease> batch = mixedBatch();
      Request m1 = store.requestByTag("m1").orElseThrow();
      Request m2 = store.requestByTag("m2").orElseThrow();
      Job expiredBefore = reload(store.job(batch.get(1).jobId()).orElseThrow());
      List<LeaseResult> together = two.completeAll(batch);
      assertThat(together).extracting(LeaseResult::status).containsExactly(LeaseStatus.OK,
          LeaseStatus.STALE_LEASE, LeaseStatus.CANCELLED, LeaseStatus.STALE_LEASE, LeaseStatus.STALE_LEASE,
          LeaseStatus.OK, LeaseStatus.NOT_FOUND);
      assertThat(together.get(1).job()).as("a stale item changes nothing").contains(expiredBefore);
      assertThat(reload(expiredBefore)).isEqualTo(expiredBefore);
      assertThat(together.get(2).job().orElseThrow().state()).isEqualTo(JobState.CANCELLED);
      List<String> batchResults = together.stream().map(this::render).toList();
      String batchJobs = renderJobs(m1, m2);
      Instant batchHeartbeat = store.collector("c1").orElseThrow().lastHeartbeatAt();

      setUpKit();
      twoInProgress();
      List<Lease> again = mixedBatch();
      List<String> oneByOne = again.stream().map(l -> render(two.complete(l))).toList();
      assertThat(batchResults).isEqualTo(oneByOne);
      assertThat(batchJobs).isEqualTo(renderJobs(store.requestByTag("m1").orElseThrow(),
          store.requestByTag("m2").orElseThrow()));
      assertThat(batchHeartbeat).isEqualTo(store.collector("c1").orElseThrow().lastHeartbeatAt());
    }

    @Test
    @DisplayName("completing a batch twice: every item of the second call is stale and changes nothing")
    void twice() {
      register("c1", "x86");
      running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b"));
      List<Lease> leases = queue.claim("c1", 2).claims().stream().map(Claim::lease).toList();
      List<LeaseResult> first = queue.completeAll(leases);
      List<LeaseResult> second = queue.completeAll(leases);
      assertThat(second).extracting(LeaseResult::status).containsOnly(LeaseStatus.STALE_LEASE);
      assertThat(second).extracting(LeaseResult::job).isEqualTo(first.stream().map(LeaseResult::job).toList());
    }

    @Test
    @DisplayName("a request whose jobs were completed in batches completes on the next tick")
    void requestCompletes() {
      register("c1", "x86");
      register("c2", "arm");
      Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
      for (String collector : List.of("c1", "c2")) {
        List<Lease> leases = queue.claim(collector, 10).claims().stream().map(Claim::lease).toList();
        assertThat(queue.completeAll(leases)).extracting(LeaseResult::status).containsOnly(LeaseStatus.OK);
      }
      assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(r.id());
      assertThat(reload(r).outcome()).contains(Outcome.SUCCESS);
    }

    @Test
    @DisplayName("an empty batch does nothing")
    void empty() {
      assertThat(queue.completeAll(List.of())).isEmpty();
      assertThat(store.completeAll(List.of(), clock.instant())).isEmpty();
    }

    @Test
    @DisplayName("a missing list, a missing item or a job listed twice is refused before anything changes")
    @SuppressWarnings("NullAway") // passes null on purpose: the refusal is what is tested
    void badBatch() {
      register("c1", "x86");
      running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b"));
      List<Lease> leases = queue.claim("c1", 2).claims().stream().map(Claim::lease).toList();
      Lease first = leases.get(0);
      assertThatThrownBy(() -> queue.completeAll(null)).isInstanceOf(InvalidQueueInputException.class)
          .hasMessageContaining("the leases to complete are missing");
      assertThatThrownBy(() -> store.completeAll(null, clock.instant()))
          .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("the leases to complete are missing");
      assertThatThrownBy(() -> queue.completeAll(java.util.Arrays.asList(first, null)))
          .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("lease 1 of 2 to complete is missing");
      List<Lease> twice = List.of(leases.get(1), first, first);
      assertThatThrownBy(() -> queue.completeAll(twice)).isInstanceOf(InvalidQueueInputException.class)
          .hasMessageContaining("list " + first.jobId() + " twice (items 1 and 2)");
      List<LeaseRef> refs = List.of(LeaseRef.of(first), LeaseRef.of(leases.get(1)),
          new LeaseRef(first.jobId(), first.attempt() + 1, first.token()));
      assertThatThrownBy(() -> store.completeAll(refs, clock.instant()))
          .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("twice (items 0 and 2)");
      for (Lease lease : leases) {
        assertThat(reload(store.job(lease.jobId()).orElseThrow()).state()).isEqualTo(JobState.LEASED);
      }
    }
  }

  /** Bad input raises the project's exception types with precise messages. */
  @Nested
  @DisplayName("Bad input")
  class BadInput {

    private void assertRejected(Runnable call, String message) {
      assertThatThrownBy(call::run).isInstanceOf(InvalidQueueInputException.class)
          .isInstanceOf(CiPolicyException.class).hasMessageContaining(message);
    }

    @Test
    @DisplayName("requests: a try without a PR, a SHA with white space, a release with a parent")
    void requests() {
      assertRejected(() -> NewRequest.tryWithArtifacts(0, "t", "m"), "a try request: PR number is 0");
      assertRejected(() -> NewRequest.master("has space", null), "a master request: tag 'has space' contains"
          + " white space");
      assertRejected(() -> NewRequest.release("1.0").withParentSha("m1"), "a release request has no parent");
      assertRejected(() -> NewRequest.master("m1", "m1"), "tag 'm1' cannot be its own parent");
      assertRejected(() -> NewRequest.master("m1", null).withBenchmarkGroups("a", "a"), "lists a twice");
    }

    @Test
    @DisplayName("engine calls: blank collector names, a missing cancel reason, a zero claim limit")
    void engine() {
      assertRejected(() -> queue.registerCollector(" ", "x86", true), "collector name ' ' is not usable");
      assertRejected(() -> queue.cancel(RequestId.of(1), ""), "needs a reason");
      assertRejected(() -> queue.claim("c1", 0), "claim limit is 0; expected at least 1");
      assertRejected(() -> queue.attachArtifacts(RequestId.of(1), "s", "s"), "cannot be its own parent SHA");
      assertRejected(() -> RequestId.of(0), "request id is 0; expected a positive number");
    }

    @Test
    @DisplayName("settings and commands: a zero cap, a negative lease, duplicate jobs")
    void settingsAndCommands() {
      assertRejected(() -> QueueSettings.builder().maxInProgress(0).build(), "maxInProgress is 0");
      assertRejected(() -> QueueSettings.builder().leaseDuration(Duration.ofSeconds(-1)).build(),
          "leaseDuration is PT-1S; expected a positive duration");
      assertRejected(() -> new StartCommand(RequestId.of(1), List.of(JobSpec.required("g", "t"),
          JobSpec.optionalJob("g", "t")), false, 1, START), "list g@t twice");
      assertRejected(() -> new ClaimCommand("c1", START, Duration.ZERO, LEASE, 1, 1), "lease duration is PT0S");
    }
  }

  /** The model-based test: random command sequences against the store and the reference model. */
  @Nested
  @DisplayName("Model")
  class Model {

    @Test
    @Timeout(120)
    @DisplayName("random command sequences keep the store equal to the reference model and every invariant true")
    void modelBased() {
      new QueueModelCheck(QueueStoreCompatibilityKit.this::newStore, modelExamples()).run();
    }
  }

  /** Many collector threads and two sites on one store. */
  @Nested
  @DisplayName("Concurrency")
  class Concurrency {

    @Test
    @Timeout(120)
    @DisplayName("collectors and two sites on many threads: every job reaches exactly one terminal state")
    void manyThreads() throws InterruptedException {
      new QueueConcurrencyCheck(newStore(), concurrentRequests()).run();
    }
  }

  /** A dead collector delays work by one lease time at most. */
  @Nested
  @DisplayName("Liveness")
  class Liveness {

    @Test
    @DisplayName("a pool member dies holding a job; the request completes within one lease time plus a claim"
        + " interval")
    void deadCollector() {
      Duration claimInterval = Duration.ofSeconds(10);
      register("c1", "x86");
      register("c2", "x86");
      Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
      Instant died = clock.instant();
      Claim held = claimOne("c1");
      assertThat(held.job().spec().collectorTag()).isEqualTo("x86");
      Instant completedAt = null;
      for (int step = 0; step < 100 && completedAt == null; step++) {
        clock.advance(claimInterval);
        queue.collectorHeartbeat("c2");
        for (Claim claim : queue.claim("c2", 10).claims()) {
          assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
        }
        if (!queue.tick().completed().isEmpty()) {
          completedAt = clock.instant();
        }
      }
      assertThat(completedAt).as("the request completes").isNotNull();
      assertThat(Duration.between(died, completedAt)).isLessThanOrEqualTo(LEASE.plus(claimInterval));
      assertThat(reload(r).outcome()).contains(Outcome.SUCCESS);
      assertThat(reload(held.job()).crashRescues()).isEqualTo(1);
      assertThat(reload(held.job()).attempt()).isEqualTo(2);
    }
  }
}
