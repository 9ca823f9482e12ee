package dev.cipolicy.queue.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.RequestId;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.function.BooleanSupplier;

/** Test helpers: a queue whose every request gets the given jobs, liveness waits, meter reads. */
final class Queues {

  /** The generous bound of every liveness wait: far beyond what any step takes. */
  static final Duration LIVENESS = Duration.ofSeconds(20);

  private Queues() {}

  static JobQueue queue(InstantSource clock, Duration lease, Duration collectorTimeout, JobSpec... jobs) {
    List<JobSpec> specs = List.of(jobs);
    QueueSettings settings = QueueSettings.builder()
        .leaseDuration(lease)
        .collectorTimeout(collectorTimeout)
        .maxInProgress(10)
        .planner(request -> specs)
        .build();
    return JobQueue.inMemory(clock, settings);
  }

  /** Submits a request and ticks, so that its jobs are queued; returns the request. */
  static RequestId started(JobQueue queue, String sha) {
    RequestId id = queue.submit(NewRequest.master(sha, null)).request().id();
    assertThat(queue.tick().started()).hasSize(1);
    return id;
  }

  static List<Job> jobs(JobQueue queue, RequestId request) {
    return queue.store().jobs(request);
  }

  static Job job(JobQueue queue, RequestId request, String group) {
    return jobs(queue, request).stream().filter(j -> j.spec().benchmarkGroup().equals(group)).findFirst()
        .orElseThrow();
  }

  /** Waits until the condition holds, failing after {@link #LIVENESS}. */
  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + LIVENESS.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not reached within " + LIVENESS + ": " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }

  static double count(MeterRegistry registry, String meter, String... tags) {
    return registry.find(meter).tags(tags).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  /** A thread factory that remembers every thread it made. */
  static final class RecordingThreads implements ThreadFactory {
    final List<Thread> made = Collections.synchronizedList(new ArrayList<>());

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "test-collector-" + made.size());
      t.setDaemon(true);
      made.add(t);
      return t;
    }

    List<Thread> alive() {
      synchronized (made) {
        return made.stream().filter(Thread::isAlive).toList();
      }
    }
  }
}
