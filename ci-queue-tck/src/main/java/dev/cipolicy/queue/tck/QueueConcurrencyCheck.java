package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.ComparisonEvent;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The concurrency test of a store: six collector threads (four on the required tag, two on the optional
 * one) and two site threads share one store. Both sites submit the same chain of master requests and try
 * requests (so half their submissions and attachments are duplicates), tick, advance the shared clock and
 * now and then cancel a request; the collectors complete, renew, fail transiently or permanently, release
 * or abandon (crash) what they claim. At the end every request is terminal, every job reached exactly one
 * terminal state and kept it, no job succeeded twice, the cap was never exceeded, and each completed master
 * or try request emitted exactly one comparison event.
 */
final class QueueConcurrencyCheck {
  private static final int MAX_IN_PROGRESS = 2;
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final QueueStore store;
  private final int masters;
  private final long seed = System.nanoTime();
  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-05T09:00:00Z"));
  private final QueueSettings settings;

  private final Set<RequestId> requests = ConcurrentHashMap.newKeySet();
  private final Map<JobId, AtomicInteger> successes = new ConcurrentHashMap<>();
  /** The first terminal state each job was seen in, by the thread that caused it. */
  private final Map<JobId, JobState> terminalSeen = new ConcurrentHashMap<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final List<ComparisonEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger maxSeenInProgress = new AtomicInteger();
  private final AtomicBoolean done = new AtomicBoolean();
  private final AtomicInteger operations = new AtomicInteger();

  QueueConcurrencyCheck(Function<InstantSource, QueueStore> stores, int masters) {
    this.store = stores.apply(clock);
    this.masters = masters;
    this.settings = QueueSettings.builder().maxInProgress(MAX_IN_PROGRESS).leaseDuration(LEASE).collectorTimeout(LEASE)
        .maxCrashRescues(1).maxTransientRetries(2)
        .addBenchmarkGroups("g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8", "g9")
        .addCollectorTargets(CollectorTarget.required("x"), CollectorTarget.optional("y")).build();
  }

  void run() throws InterruptedException {
    JobQueue admin = JobQueue.of(store, settings);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String name = "collector-" + i;
      admin.registerCollector(name, i < 4 ? "x" : "y", true);
      int index = i;
      threads.add(new Thread(() -> collect(name, index), name));
    }
    AtomicInteger sitesSubmitting = new AtomicInteger(2);
    for (int i = 0; i < 2; i++) {
      int index = i;
      threads.add(new Thread(() -> site(index, sitesSubmitting), "site-" + i));
    }
    Thread monitor = new Thread(this::monitor, "cap-monitor");
    threads.add(monitor);
    threads.forEach(t -> t.setDaemon(true));
    threads.forEach(Thread::start);

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!(sitesSubmitting.get() == 0 && allTerminal()) && System.nanoTime() < deadline && violations.isEmpty()) {
      Thread.sleep(20);
    }
    done.set(true);
    for (Thread t : threads) {
      t.join(10_000);
    }
    String context = "seed " + seed + ", " + requests.size() + " requests, " + operations.get() + " operations";
    assertThat(violations).as(context).isEmpty();
    assertThat(sitesSubmitting.get()).as("sites finished submitting; " + context).isZero();
    assertThat(allTerminal()).as("every request and job terminal; " + context).isTrue();

    int jobs = 0;
    int completedCompared = 0;
    for (RequestId id : requests) {
      Request r = store.request(id).orElseThrow();
      if (r.state() == RequestState.COMPLETED && r.kind().isCompared()) {
        completedCompared++;
      }
      for (Job job : store.jobs(id)) {
        jobs++;
        int ok = successes.getOrDefault(job.id(), new AtomicInteger()).get();
        assertThat(ok).as("successful completions of %s; %s", job.id(), context)
            .isEqualTo(job.state() == JobState.SUCCEEDED ? 1 : 0);
        JobState seen = terminalSeen.get(job.id());
        if (seen != null) {
          assertThat(job.state()).as("terminal state of %s kept; %s", job.id(), context).isEqualTo(seen);
        }
        assertThat(job.crashRescues()).isLessThanOrEqualTo(settings.maxCrashRescues());
        assertThat(job.transientRetries()).isLessThanOrEqualTo(settings.maxTransientRetries());
      }
    }
    assertThat(jobs).as("jobs; " + context).isGreaterThan(masters * 10);
    assertThat(maxSeenInProgress.get()).as("most requests in progress at once; " + context)
        .isLessThanOrEqualTo(MAX_IN_PROGRESS);
    assertThat(events).as("one comparison event per completed master or try request; " + context)
        .hasSize(completedCompared);
    assertThat(events.stream().map(ComparisonEvent::request).distinct().count()).isEqualTo(events.size());
  }

  private boolean allTerminal() {
    for (RequestId id : requests) {
      if (!store.request(id).orElseThrow().state().isTerminal()) {
        return false;
      }
      for (Job job : store.jobs(id)) {
        if (!job.state().isTerminal()) {
          return false;
        }
      }
    }
    return true;
  }

  private void site(int index, AtomicInteger sitesSubmitting) {
    JobQueue queue = JobQueue.of(store, settings);
    Random random = new Random(seed + 100 + index);
    try {
      for (int i = 0; i < masters && !done.get(); i++) {
        record(queue.submit(NewRequest.master("m" + i, i == 0 ? null : "m" + (i - 1)).withPr(1000 + i)));
        if (i % 3 == 0) {
          SubmitResult t = queue.submit(NewRequest.tryAwaitingArtifacts(i + 1));
          record(t);
          AttachResult attached = queue.attachArtifacts(t.request().id(), "t" + i, "m" + i);
          if (attached.status() == AttachResult.Status.DUPLICATE_TAG) {
            // Legitimate only when the other site's try for this PR already finished, so this site's
            // submission opened a second request; the SHA's owner must be a different, terminal request.
            Request owner = store.requestByTag("t" + i).orElse(null);
            if (owner == null || owner.id().equals(t.request().id()) || !owner.state().isTerminal()) {
              violations.add("attach of t" + i + " found its SHA taken by "
                  + (owner == null ? "no request" : owner.id() + " in state " + owner.state()));
            }
            queue.cancel(t.request().id(), "superseded: SHA t" + i + " already benchmarked");
          }
        }
        tick(queue, random);
      }
    } catch (RuntimeException | AssertionError e) {
      violations.add("site " + index + ": " + e);
    } finally {
      sitesSubmitting.decrementAndGet();
    }
    while (!done.get()) {
      tick(queue, random);
    }
  }

  private void record(SubmitResult result) {
    requests.add(result.request().id());
  }

  private void tick(JobQueue queue, Random random) {
    try {
      TickResult tick = queue.tick();
      operations.incrementAndGet();
      events.addAll(tick.events());
      tick.expired().failed().forEach(j -> seen(j));
      tick.expired().cancelled().forEach(j -> seen(j));
      checkCap();
      if (random.nextInt(200) == 0 && !requests.isEmpty()) {
        List<RequestId> ids = new ArrayList<>(requests);
        queue.cancel(ids.get(random.nextInt(ids.size())), "PR closed");
      }
      clock.advance(Duration.ofMillis(500));
      Thread.sleep(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      done.set(true);
    } catch (RuntimeException | AssertionError e) {
      violations.add(Thread.currentThread().getName() + ": " + e);
    }
  }

  private void checkCap() {
    int running = store.inProgressRequests().size();
    maxSeenInProgress.accumulateAndGet(running, Math::max);
  }

  private void monitor() {
    while (!done.get()) {
      checkCap();
      Thread.onSpinWait();
    }
  }

  private void seen(Job job) {
    JobState previous = terminalSeen.putIfAbsent(job.id(), job.state());
    if (previous != null && previous != job.state()) {
      violations.add(job.id() + " reached " + previous + " and then " + job.state());
    }
  }

  // An idle collector yields its core: the check runs more collector threads than the machine has cores.
  @SuppressWarnings("ThreadPriorityCheck")
  private void collect(String name, int index) {
    JobQueue queue = JobQueue.of(store, settings);
    Random random = new Random(seed + index);
    while (!done.get()) {
      try {
        List<Claim> claims = queue.claim(name, 1 + random.nextInt(2)).claims();
        operations.incrementAndGet();
        if (claims.isEmpty()) {
          Thread.yield();
          continue;
        }
        for (Claim claim : claims) {
          work(queue, claim, random);
        }
      } catch (RuntimeException | AssertionError e) {
        violations.add(name + ": " + e);
      }
    }
  }

  private void work(JobQueue queue, Claim claim, Random random) {
    int roll = random.nextInt(100);
    LeaseResult result;
    if (roll < 70) {
      result = queue.complete(claim.lease());
      if (result.status() == LeaseStatus.OK) {
        successes.computeIfAbsent(claim.job().id(), id -> new AtomicInteger()).incrementAndGet();
      }
    } else if (roll < 78) {
      LeaseResult beat = queue.heartbeat(claim.lease());
      if (beat.status() != LeaseStatus.OK) {
        observe(beat);
        return;
      }
      result = queue.complete(claim.lease());
      if (result.status() == LeaseStatus.OK) {
        successes.computeIfAbsent(claim.job().id(), id -> new AtomicInteger()).incrementAndGet();
      }
    } else if (roll < 85) {
      result = queue.fail(claim.lease(), Failure.transientFailure("network"));
    } else if (roll < 88) {
      result = queue.fail(claim.lease(), Failure.permanent("artifact missing"));
    } else if (roll < 94) {
      return; // a crash: the lease is abandoned and expires
    } else {
      result = queue.release(claim.lease());
    }
    operations.incrementAndGet();
    observe(result);
  }

  private void observe(LeaseResult result) {
    if (result.status() == LeaseStatus.OK || result.status() == LeaseStatus.CANCELLED) {
      Job job = result.job().orElseThrow();
      if (job.state().isTerminal()) {
        seen(job);
      }
    }
  }
}
