package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;

/**
 * The contract every {@link QueueStore} must meet, as JUnit 5 tests: submitting and attaching, the queue
 * order, the site tick and its cap, claims and leases, fencing, failures and budgets, affinity,
 * completion and outcomes, cancellation, collectors, batch completion, completing and claiming in one call,
 * bad input, the history of completed
 * requests, purging an artifact, a model-based test
 * against {@link ReferenceQueueStore}, a multi-threaded test, a liveness scenario and the precision of
 * instants (on clocks with nanoseconds, including a second model-based run). A store runs it through a
 * one-line subclass that implements {@link #newStore(InstantSource)}:
 *
 * <pre>{@code
 * class InMemoryQueueStoreCompatibilityTest extends QueueStoreCompatibilityKit {
 *   @Override protected QueueStore newStore(InstantSource clock) { return new InMemoryQueueStore(clock); }
 * }
 * }</pre>
 *
 * <p>Every test gets a fresh, empty store on a {@link SettableClock}: the kit moves time by moving the
 * store's clock, never by passing instants (a store measures time on its own clock). The tests drive the
 * store through the real engine ({@link JobQueue}) and, where the contract is about one operation,
 * directly.
 *
 * <p>Each group of tests is an abstract class of its own in this package ({@code RequestsContract},
 * {@code FencingContract}, {@code FanOutContract}, {@code TimePrecisionContract}, ...); this class declares
 * one {@code @Nested} class per group that extends it, so a subclass of this class runs every group, each under its display
 * name.
 */
public abstract class QueueStoreCompatibilityKit {

  /** The lease duration (and collector timeout) of the kit's settings. */
  protected static final Duration LEASE = Duration.ofMinutes(1);
  /** The kit's start instant. */
  protected static final Instant START = Instant.parse("2026-01-05T09:00:00Z");

  /** The store's clock, standing at {@link #START} until a test moves it. */
  protected SettableClock clock = new SettableClock(START);
  /** The store under test, fresh for each test. */
  protected QueueStore store = new ReferenceQueueStore(clock);
  /** The engine over {@link #store} with {@link #settings()}. */
  protected JobQueue queue = JobQueue.of(store, settings());

  /**
   * A new, empty store whose clock is {@code clock}: every instant it records or compares is read from it.
   * Called once per test (the model-based and concurrency tests call it more often). A store whose
   * production clock is elsewhere (a database server's) takes this clock in a test-only way.
   *
   * @param clock the store's clock, set and advanced by the kit
   * @return the store under test
   */
  protected abstract QueueStore newStore(InstantSource clock);

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
   * How many random scenarios (each up to 80 commands, each on a new store) each of the two model-based
   * tests runs (one on a clock of whole seconds, one on a clock ticking in odd nanoseconds); a slow store may
   * lower it.
   *
   * @return 200 by default
   */
  protected int modelExamples() {
    return 200;
  }

  /**
   * How many random operations the fleet-share model check ({@code ShareModelCheck}) runs against the store
   * and the reference model, in scenarios of {@value ShareModelCheck#SCENARIO_LENGTH} operations, each on a
   * new store. A slow store may lower it.
   *
   * @return 1,000,000 by default
   */
  protected int shareModelOperations() {
    return 1_000_000;
  }

  /**
   * Runs the fleet-share model check alone, with no time limit: {@code operations} random operations in
   * scenarios of 100, each on a new store from {@code stores} (given the scenario's clock) and on the reference
   * model, comparing every result and checking the invariants after each operation (see
   * {@link #shareModelOperations()}). For soaking a store whose kit run lowers the count: the kit's own run stays
   * short, and this one runs the full count when there is time, e.g. a million operations against a database.
   *
   * @param stores a new, empty store on the given clock for each scenario
   * @param operations how many operations to run, at least 1
   * @return how many operations ran (at least {@code operations})
   * @throws AssertionError when a result differs from the model's or an invariant breaks, with the shrunk
   *     scenario
   */
  public static long checkShareModel(java.util.function.Function<InstantSource, QueueStore> stores,
      long operations) {
    if (operations < 1) {
      throw new IllegalArgumentException("operations must be at least 1, got " + operations);
    }
    return new ShareModelCheck(stores, operations).run();
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

  /**
   * Whether the store has the operator controls ({@link QueueStore#retryJob}, {@link QueueStore#setPoolPaused});
   * the "Operator controls" group is skipped for a store that has not.
   *
   * @return true by default
   */
  protected boolean operatorControls() {
    return true;
  }

  /** Creates the fresh store, clock and engine of a test. */
  @BeforeEach
  void setUpKit() {
    clock = new SettableClock(START);
    store = newStore(clock);
    queue = JobQueue.of(store, settings());
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

  /** Fleet shares: caps per cadence and pool, borrowing, wait reasons, concurrent claims. */
  @Nested
  @DisplayName("Shares")
  class Shares extends SharesContract {
    Shares() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Job logs: fenced appends, head and tail bounds, reads by offset, one log per attempt. */
  @Nested
  @DisplayName("Logs")
  class Logs extends LogContract {
    Logs() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** The record of a job's attempts: started by claims, ended by every way a lease ends. */
  @Nested
  @DisplayName("Attempts")
  class Attempts extends AttemptsContract {
    Attempts() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** GPU budgets: devices, placement and freeing. */
  @Nested
  @DisplayName("Devices")
  class DeviceBudgets extends DevicesContract {
    DeviceBudgets() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Reservations for the head of a pool and backfill around them. */
  @Nested
  @DisplayName("Reservations")
  class Reservations extends ReservationsContract {
    Reservations() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Why queued jobs wait. */
  @Nested
  @DisplayName("Wait reasons")
  class WaitReasons extends WaitReasonsContract {
    WaitReasons() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Submitting requests and attaching artifacts. */
  @Nested
  @DisplayName("Requests")
  class Requests extends RequestsContract {
    Requests() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** The queue order and the status view over the store's open requests. */
  @Nested
  @DisplayName("Queue order")
  class Order extends QueueOrderContract {
    Order() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** The site tick: starting requests, fanning out jobs, the cap, backfill. */
  @Nested
  @DisplayName("Site tick")
  class SiteTick extends SiteTickContract {
    SiteTick() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Which jobs a started request gets: groups × tags by default, or the host's planner. */
  @Nested
  @DisplayName("Fan-out")
  class FanOut extends FanOutContract {
    FanOut() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Claims and the leases they return. */
  @Nested
  @DisplayName("Claims and leases")
  class Claims extends ClaimsContract {
    Claims() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Fenced updates: a wrong attempt or token, or an expired lease, changes nothing. */
  @Nested
  @DisplayName("Fencing")
  class Fencing extends FencingContract {
    Fencing() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Failures, crash rescues, the two budgets, release. */
  @Nested
  @DisplayName("Failures and budgets")
  class Failures extends FailuresContract {
    Failures() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Affinity to the previous collector and the pool fallback. */
  @Nested
  @DisplayName("Affinity and pools")
  class Affinity extends AffinityContract {
    Affinity() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Completion of requests and their outcomes. */
  @Nested
  @DisplayName("Completion")
  class Completion extends CompletionContract {
    Completion() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Cancelling requests. */
  @Nested
  @DisplayName("Cancellation")
  class Cancellation extends CancellationContract {
    Cancellation() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** CI run requests: created in progress with their jobs, attached by key, superseded, outside the cap. */
  @Nested
  @DisplayName("CI runs")
  class CiRuns extends CiRunContract {
    CiRuns() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Registering collectors, heartbeats, offline status, deactivation. */
  @Nested
  @DisplayName("Collectors")
  class Collectors extends CollectorsContract {
    Collectors() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** A host's inventory changing, and retiring collectors. */
  @Nested
  @DisplayName("Inventory and retirement")
  class Inventory extends InventoryContract {
    Inventory() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Completing several leases in one call: per-item results, each as completing it alone would give. */
  @Nested
  @DisplayName("Batch completion")
  class BatchCompletion extends BatchCompletionContract {
    BatchCompletion() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Completing a lease and claiming the next jobs in one call, fenced: a stale lease claims nothing. */
  @Nested
  @DisplayName("Complete and claim")
  class CompleteAndClaim extends CompleteAndClaimContract {
    CompleteAndClaim() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Bad input raises the project's exception types with precise messages. */
  @Nested
  @DisplayName("Bad input")
  class BadInput extends BadInputContract {
    BadInput() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** The model-based test: random command sequences against the store and the reference model. */
  @Nested
  @DisplayName("Model")
  class Model extends ModelContract {
    Model() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Many collector threads and two sites on one store. */
  @Nested
  @DisplayName("Concurrency")
  class Concurrency extends ConcurrencyContract {
    Concurrency() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** A dead collector delays work by one lease time at most. */
  @Nested
  @DisplayName("Liveness")
  class Liveness extends LivenessContract {
    Liveness() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Callers whose clocks are wrong cannot expire leases: time is the store's. */
  @Nested
  @DisplayName("Caller clocks")
  class CallerClocks extends CallerClocksContract {
    CallerClocks() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Results kept with the completion, fenced, readable per job and per request. */
  @Nested
  @DisplayName("Results")
  class Results extends ResultsContract {
    Results() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** The history of completed requests: newest first, with errors, paged by keyset. */
  @Nested
  @DisplayName("History")
  class History extends HistoryContract {
    History() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Purging an artifact: its request, jobs and results, and nothing else. */
  @Nested
  @DisplayName("Purge")
  class Purge extends PurgeContract {
    Purge() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** An operator's controls: retrying a job, pausing a pool, the audit. */
  @Nested
  @DisplayName("Operator controls")
  class OperatorControls extends OperatorControlsContract {
    OperatorControls() {
      super(QueueStoreCompatibilityKit.this);
    }
  }

  /** Instants at the stores' precision, on clocks with nanoseconds. */
  @Nested
  @DisplayName("Time precision")
  class TimePrecision extends TimePrecisionContract {
    TimePrecision() {
      super(QueueStoreCompatibilityKit.this);
    }
  }
}
