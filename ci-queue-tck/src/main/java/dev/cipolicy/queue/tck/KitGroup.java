package dev.cipolicy.queue.tck;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.QueueStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;

/**
 * The base of every group of the kit's tests: the fixture of the {@link QueueStoreCompatibilityKit} whose
 * {@code @Nested} class runs the group (its clock, store and engine, fresh for each test) and the kit's
 * helpers. A group is an abstract class of tests in a file of its own; the kit declares one nested class
 * per group that extends it, so a store's single subclass of the kit runs every group.
 */
abstract class KitGroup {

  /** The kit's lease duration and collector timeout. */
  static final Duration LEASE = QueueStoreCompatibilityKit.LEASE;
  /** The kit's start instant. */
  static final Instant START = QueueStoreCompatibilityKit.START;

  private final QueueStoreCompatibilityKit kit;
  /** The test's clock. */
  SettableClock clock;
  /** The store under test. */
  QueueStore store;
  /** The engine over {@link #store} with {@link #settings()}. */
  JobQueue queue;

  KitGroup(QueueStoreCompatibilityKit kit) {
    this.kit = kit;
    this.clock = kit.clock;
    this.store = kit.store;
    this.queue = kit.queue;
  }

  /** Takes the kit's fixture of this test; runs after the kit's own set-up and before the group's. */
  @BeforeEach
  final void bindKit() {
    clock = kit.clock;
    store = kit.store;
    queue = kit.queue;
  }

  /** Starts the test over on a fresh store, clock and engine. */
  final void freshStore() {
    kit.setUpKit();
    bindKit();
  }

  /** The kit's settings ({@link QueueStoreCompatibilityKit#settings()}). */
  static QueueSettings settings() {
    return QueueStoreCompatibilityKit.settings();
  }

  /** A new, empty store of the kind under test, on the given clock. */
  final QueueStore newStore(InstantSource clock) {
    return kit.newStore(clock);
  }

  /** How many scenarios the model-based tests run. */
  final int modelExamples() {
    return kit.modelExamples();
  }

  /** Whether the store under test has operator controls. */
  final boolean operatorControls() {
    return kit.operatorControls();
  }

  /** How many random operations the fleet-share model check runs. */
  final int shareModelOperations() {
    return kit.shareModelOperations();
  }

  /** How many master requests each site submits in the concurrency test. */
  final int concurrentRequests() {
    return kit.concurrentRequests();
  }

  /** Submits and returns a created request. */
  final Request submit(NewRequest request) {
    return kit.submit(request);
  }

  /** Re-reads a request. */
  final Request reload(Request request) {
    return kit.reload(request);
  }

  /** Re-reads a job. */
  final Job reload(Job job) {
    return kit.reload(job);
  }

  /** Registers an active collector. */
  final void register(String name, String tag) {
    kit.register(name, tag);
  }

  /** Claims exactly one job for the collector. */
  final Claim claimOne(String collector) {
    return kit.claimOne(collector);
  }

  /** Claims and asserts that the collector gets nothing. */
  final void claimNothing(String collector) {
    kit.claimNothing(collector);
  }

  /** Submits a request and ticks until it is in progress; returns it. */
  final Request running(NewRequest request) {
    return kit.running(request);
  }

  /** The jobs of a request on one tag. */
  final List<Job> jobsOn(Request request, String tag) {
    return kit.jobsOn(request, tag);
  }

  /** Runs every queued job of the tag to success through the given collector. */
  final void completeAll(String collector) {
    kit.completeAll(collector);
  }

  /** The number of requests in progress. */
  final int inProgress() {
    return kit.inProgress();
  }
}
