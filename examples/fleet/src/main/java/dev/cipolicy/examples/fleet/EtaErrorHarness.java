package dev.cipolicy.examples.fleet;

import dev.cipolicy.fleet.server.DurationHistory;
import dev.cipolicy.fleet.server.QueueEtas;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueOrder;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.QueueStatus;
import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * Replays a simulated week of the reference fleet on the in-memory store with a simulated clock (no waiting):
 * master commits, try requests and a nightly each day arrive, the reference hosts run the jobs for their true
 * durations (the estimate times a per-suite bias, with noise), and every 30 simulated minutes each open
 * request's completion is predicted by two models: this example's (per-(group, tag) median of recent
 * successes, placed on the fleet) and the global one (one expected request duration times the queue
 * position, divided by K, as the queue's own status view computes it, with the expected duration the median
 * of the requests completed so far). Once a request completes, each prediction's error is its distance to the
 * actual completion. The replay sets no fleet shares on its store (neither model knows them).
 */
public final class EtaErrorHarness {
  private static final Duration SAMPLE_EVERY = Duration.ofMinutes(30);
  /** The mean time between master commits (exponential): about what the one 8-GPU H200 host keeps up with beside the nightly. */
  static final Duration MASTER_EVERY = Duration.ofHours(24);
  /** The mean time between try requests. */
  static final Duration TRY_EVERY = Duration.ofHours(72);

  /**
   * The errors of both models.
   *
   * @param requests completed requests
   * @param samples predictions compared
   * @param oursMeanMinutes mean absolute error of the per-(group, tag) model, in minutes
   * @param oursP90Minutes its 90th percentile
   * @param globalMeanMinutes mean absolute error of the global model
   * @param globalP90Minutes its 90th percentile
   */
  public record Result(int requests, int samples, double oursMeanMinutes, double oursP90Minutes,
      double globalMeanMinutes, double globalP90Minutes) {

    /**
     * The report line.
     *
     * @return e.g. {@code 90 requests, 800 predictions: ...}
     */
    public String report() {
      return String.format(Locale.ROOT, "%d requests, %d predictions: per-(group, tag) median MAE %.1f min, p90 %.1f"
          + " min; global duration x position MAE %.1f min, p90 %.1f min", requests, samples, oursMeanMinutes,
          oursP90Minutes, globalMeanMinutes, globalP90Minutes);
    }
  }

  private static final class SimClock implements InstantSource {
    Instant now;

    SimClock(Instant start) {
      now = start;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private record Done(Instant at, Claim claim, boolean fail, double seconds) {}

  private EtaErrorHarness() {}

  /**
   * Replays {@code days} simulated days.
   *
   * @param days how many days
   * @param seed the seed of arrivals, durations and failures
   * @return the errors
   */
  public static Result run(int days, long seed) {
    Inventory inventory = Inventory.reference();
    Instant start = Instant.parse("2026-11-02T00:00:00Z");
    SimClock clock = new SimClock(start);
    QueueSettings settings = QueueSettings.builder().planner(inventory.planner(1.0)).maxInProgress(2)
        .leaseDuration(Duration.ofDays(3)).collectorTimeout(Duration.ofDays(3)).build();
    JobQueue queue = JobQueue.of(new InMemoryQueueStore(clock), settings);
    List<Host> hosts = Host.reference();
    Map<String, Integer> busy = new HashMap<>();
    for (Host h : hosts) {
      if (h.gpus() > 0) {
        queue.registerHost(h.name(), h.pool(), Devices.count(h.gpus()));
      } else {
        queue.registerCollector(h.name(), h.pool(), true);
      }
      busy.put(h.name(), 0);
    }
    JobBehaviour behaviour = new JobBehaviour(seed, 0.03);
    Random random = new Random(seed);
    DurationHistory durations = new DurationHistory();
    Map<String, Instant> claimed = new HashMap<>();
    PriorityQueue<Done> running = new PriorityQueue<>((a, b) -> a.at().compareTo(b.at()));
    List<Double> requestDurations = new ArrayList<>();
    Map<RequestId, List<double[]>> predictions = new HashMap<>(); // request -> {predicted ours, predicted global}
    List<Double> oursErr = new ArrayList<>();
    List<Double> globalErr = new ArrayList<>();
    int completed = 0;

    Instant end = start.plus(Duration.ofDays(days));
    Instant nextMaster = start.plus(expo(random, MASTER_EVERY));
    Instant nextTry = start.plus(expo(random, TRY_EVERY));
    Instant nextNightly = start.plus(Duration.ofHours(15));
    long nightlies = 0;
    Instant nextSample = start;
    String lastMaster = null;
    long pr = 1;
    while (clock.now.isBefore(end)) {
      Instant next = min(min(nextMaster, nextTry), min(nextNightly, nextSample));
      if (!running.isEmpty()) {
        next = min(next, running.peek().at());
      }
      clock.now = next;
      while (!running.isEmpty() && !running.peek().at().isAfter(clock.now)) {
        Done d = running.poll();
        busy.merge(d.claim().lease().collector(), -Math.max(1, d.claim().job().spec().gpus()), Integer::sum);
        if (d.fail()) {
          queue.fail(d.claim().lease(), Failure.permanent("simulated failure"));
        } else {
          queue.complete(d.claim().lease());
          durations.record(d.claim().job().spec(), d.seconds());
        }
      }
      if (!clock.now.isBefore(nextMaster)) {
        String sha = String.format(Locale.ROOT, "%07x", random.nextInt(1 << 28));
        queue.submit(NewRequest.master(sha, lastMaster));
        lastMaster = sha;
        nextMaster = clock.now.plus(expo(random, MASTER_EVERY));
      }
      if (!clock.now.isBefore(nextTry) && lastMaster != null) {
        queue.submit(NewRequest.tryWithArtifacts(pr++, String.format(Locale.ROOT, "%07x", random.nextInt(1 << 28)),
            lastMaster));
        nextTry = clock.now.plus(expo(random, TRY_EVERY));
      } else if (!clock.now.isBefore(nextTry)) {
        nextTry = clock.now.plus(Duration.ofHours(1));
      }
      if (!clock.now.isBefore(nextNightly)) {
        queue.submitCiRun(CiRun.of(Inventory.REPOSITORY, ++nightlies, 1, String.format(Locale.ROOT, "%07x",
            random.nextInt(1 << 28)), "schedule").withCadence("nightly"), inventory.specs("nightly", 1.0));
        nextNightly = nextNightly.plus(Duration.ofDays(1));
      }
      for (Request r : queue.tick().completed()) {
        completed++;
        Instant done = r.finishedAt().orElseThrow();
        requestDurations.add(DurationHistory.seconds(Duration.between(r.startedAt().orElseThrow(), done)));
        for (double[] p : predictions.getOrDefault(r.id(), List.of())) {
          double actual = DurationHistory.seconds(Duration.between(start, done));
          if (!Double.isNaN(p[1])) {
            oursErr.add(Math.abs(p[1] - actual) / 60);
          }
          globalErr.add(Math.abs(p[2] - actual) / 60);
        }
        predictions.remove(r.id());
      }
      for (Host h : hosts) {
        int room = h.capacity() - busy.get(h.name());
        if (room <= 0) {
          continue;
        }
        for (Claim c : queue.claim(h.name(), room).claims()) {
          Duration d = behaviour.duration(c.job().spec());
          boolean fail = behaviour.failure(c.job().spec()) != null;
          running.add(new Done(clock.now.plus(d), c, fail, DurationHistory.seconds(d)));
          busy.merge(h.name(), Math.max(1, c.job().spec().gpus()), Integer::sum);
          claimed.put(c.lease().jobId().value() + "/" + c.lease().attempt(), clock.now);
        }
      }
      if (!clock.now.isBefore(nextSample)) {
        sample(queue, clock.now, start, durations, claimed, requestDurations, predictions);
        nextSample = nextSample.plus(SAMPLE_EVERY);
      }
    }
    return new Result(completed, globalErr.size(), mean(oursErr), p90(oursErr), mean(globalErr), p90(globalErr));
  }

  private static void sample(JobQueue queue, Instant now, Instant start, DurationHistory durations,
      Map<String, Instant> claimed, List<Double> requestDurations, Map<RequestId, List<double[]>> predictions) {
    QueueOrder order = queue.order();
    Map<RequestId, List<Job>> jobs = new HashMap<>();
    for (Request r : queue.store().inProgressRequests()) {
      jobs.put(r.id(), queue.store().jobs(r.id()));
      r.parentRequest().ifPresent(p -> jobs.put(p, queue.store().jobs(p)));
    }
    List<Collector> collectors = queue.store().collectors();
    Map<RequestId, Double> ours = QueueEtas.compute(queue, order, now, jobs, collectors, c -> true,
        (Lease l) -> claimed.getOrDefault(l.jobId().value() + "/" + l.attempt(), now), durations);
    double expected = requestDurations.isEmpty() ? 3 * 3600
        : DurationHistory.median(requestDurations.subList(Math.max(0, requestDurations.size() - 20),
            requestDurations.size()));
    QueueStatus status = order.status(now, Duration.ofMillis(Math.round(expected * 1000)),
        queue.settings().maxInProgress());
    double base = DurationHistory.seconds(Duration.between(start, now));
    for (QueueStatus.Entry e : status.entries()) {
      if (e.eta().isEmpty()) {
        continue;
      }
      Request r = e.placed().request();
      if (r.state() == RequestState.COMPLETED || r.state() == RequestState.CANCELLED) {
        continue;
      }
      Double o = ours.get(r.id());
      predictions.computeIfAbsent(r.id(), k -> new ArrayList<>()).add(new double[] {
          0, o == null ? Double.NaN : base + o, base + DurationHistory.seconds(e.eta().get())});
    }
  }

  private static Duration expo(Random r, Duration mean) {
    return Duration.ofSeconds(Math.max(60, Math.round(-Math.log(1 - r.nextDouble()) * mean.toSeconds())));
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private static double mean(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  private static double p90(List<Double> xs) {
    if (xs.isEmpty()) {
      return Double.NaN;
    }
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    return s.get(Math.min(s.size() - 1, (int) Math.ceil(0.9 * s.size()) - 1));
  }

  /** {@code fleet eta-error}: the report of {@link #run}. */
  @CommandLine.Command(name = "eta-error", mixinStandardHelpOptions = true,
      description = "Replays simulated days of the reference fleet and reports the ETA error of both models.")
  static final class Command implements Callable<Integer> {
    @CommandLine.Option(names = "--days", description = "simulated days (default: ${DEFAULT-VALUE})")
    int days = 7;

    @CommandLine.Option(names = "--seed", description = "seed (default: ${DEFAULT-VALUE})")
    long seed = 1;

    @Override
    public Integer call() {
      System.out.println(run(days, seed).report());
      return 0;
    }
  }
}
