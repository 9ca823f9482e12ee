package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.RequestWait;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.WaitReason;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of why work waits: for each pool and {@link WaitReason.Kind}, how many queued jobs wait for that
 * reason and how long the oldest of them has waited; and for each kind, how many open requests wait for it.
 * The numbers come from the store's own explanations ({@code QueueStore.waitingJobs} and
 * {@code QueueOrder.waitReasons}), so a dashboard shows the same reasons as a status page.
 *
 * <p>Every gauge is registered at zero when the meters are made, so a reason that never happens is still a
 * series. The values change only in {@link #refresh()}: a site calls it on its own schedule (each tick, or
 * every few seconds), since each refresh reads every waiting job of the pools.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>tags</th><th>value</th></tr>
 *   <tr><td>{@value #WAITING_JOBS}</td><td>pool, reason</td><td>queued jobs waiting for the reason</td></tr>
 *   <tr><td>{@value #OLDEST_WAIT}</td><td>pool, reason</td><td>seconds since the oldest of them was
 *       created, 0 when none</td></tr>
 *   <tr><td>{@value #WAITING_REQUESTS}</td><td>reason</td><td>open requests waiting for the reason</td></tr>
 * </table>
 *
 * <p>The reason tag is the kind's name in lower case, e.g. {@code share_full}, {@code reserved_for_it}.
 */
public final class WaitMeters {

  /** Queued jobs of a pool waiting for a reason. */
  public static final String WAITING_JOBS = "cipolicy.queue.jobs.waiting";
  /** Seconds the oldest queued job of a pool waiting for a reason has waited. */
  public static final String OLDEST_WAIT = "cipolicy.queue.jobs.oldest.wait";
  /** Open requests waiting for a reason. */
  public static final String WAITING_REQUESTS = "cipolicy.queue.requests.waiting";
  /** The tag naming the wait reason. */
  public static final String TAG_REASON = "reason";
  /** The most pools one set of meters watches. */
  public static final int MAX_POOLS = 256;

  private final JobQueue queue;
  private final Map<String, Map<WaitReason.Kind, AtomicLong>> jobCounts = new LinkedHashMap<>();
  private final Map<String, Map<WaitReason.Kind, AtomicLong>> oldest = new LinkedHashMap<>();
  private final Map<WaitReason.Kind, AtomicLong> requestCounts = new EnumMap<>(WaitReason.Kind.class);

  private WaitMeters(JobQueue queue) {
    this.queue = queue;
  }

  /**
   * Registers the gauges of the pools on the registry, all at zero.
   *
   * @param registry where the gauges go
   * @param queue the engine whose store explains the waits (its settings give the collector timeout and the
   *     cap of requests in progress)
   * @param pools the pools (collector tags) to watch, 1 to {@value #MAX_POOLS}
   * @return the meters, to refresh
   * @throws InvalidQueueInputException when an argument is missing, a pool is not a valid tag, or there are no
   *     or too many pools
   */
  public static WaitMeters register(MeterRegistry registry, JobQueue queue, List<String> pools) {
    Settings.present(registry, "meter registry");
    Settings.present(queue, "queue");
    Settings.present(pools, "pools");
    if (pools.isEmpty() || pools.size() > MAX_POOLS) {
      throw new InvalidQueueInputException("wait meters watch " + pools.size() + " pools; expected 1 to "
          + MAX_POOLS);
    }
    WaitMeters meters = new WaitMeters(queue);
    for (String pool : pools) {
      checkPool(pool);
      Map<WaitReason.Kind, AtomicLong> counts = new EnumMap<>(WaitReason.Kind.class);
      Map<WaitReason.Kind, AtomicLong> ages = new EnumMap<>(WaitReason.Kind.class);
      for (WaitReason.Kind kind : WaitReason.Kind.values()) {
        AtomicLong count = new AtomicLong();
        AtomicLong age = new AtomicLong();
        counts.put(kind, count);
        ages.put(kind, age);
        Gauge.builder(WAITING_JOBS, count, AtomicLong::get).tag(CollectorMeters.TAG_POOL, pool)
            .tag(TAG_REASON, tagOf(kind)).description("queued jobs waiting for the reason").register(registry);
        Gauge.builder(OLDEST_WAIT, age, AtomicLong::get).tag(CollectorMeters.TAG_POOL, pool)
            .tag(TAG_REASON, tagOf(kind)).baseUnit("seconds")
            .description("age of the oldest queued job waiting for the reason").register(registry);
      }
      meters.jobCounts.put(pool, counts);
      meters.oldest.put(pool, ages);
    }
    for (WaitReason.Kind kind : WaitReason.Kind.values()) {
      AtomicLong count = new AtomicLong();
      meters.requestCounts.put(kind, count);
      Gauge.builder(WAITING_REQUESTS, count, AtomicLong::get).tag(TAG_REASON, tagOf(kind))
          .description("open requests waiting for the reason").register(registry);
    }
    return meters;
  }

  private static void checkPool(@Nullable String pool) {
    if (pool == null || pool.isEmpty() || pool.length() > 200
        || pool.codePoints().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
      throw new InvalidQueueInputException("wait meters' pool '" + (pool == null ? "" : pool.length() > 40
          ? pool.substring(0, 40) + "..." : pool).replaceAll("\\p{Cntrl}", "?")
          + "' is not a collector tag; expected a name of 1 to 200 characters without white space");
    }
  }

  /**
   * The reason tag of a kind.
   *
   * @param kind the kind
   * @return its name in lower case
   */
  public static String tagOf(WaitReason.Kind kind) {
    return kind.name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Reads the waits from the store and sets every gauge; a pool or reason without waiting work goes back to
   * zero. A store error leaves the gauges as they were and propagates.
   *
   * @return how many jobs and requests wait, summed over the pools, per kind (kinds with none left out)
   */
  public Map<WaitReason.Kind, Integer> refresh() {
    Instant now = queue.store().now();
    Map<String, List<JobWait>> waits = new LinkedHashMap<>();
    for (String pool : jobCounts.keySet()) {
      waits.put(pool, queue.waitingJobs(pool));
    }
    List<RequestWait> requests = queue.order().waitReasons(queue.settings().maxInProgress());
    // Every read is done: now set the gauges, so a failed read changes none of them.
    Map<WaitReason.Kind, Integer> totals = new EnumMap<>(WaitReason.Kind.class);
    for (Map.Entry<String, List<JobWait>> e : waits.entrySet()) {
      Map<WaitReason.Kind, Long> count = new EnumMap<>(WaitReason.Kind.class);
      Map<WaitReason.Kind, Long> age = new EnumMap<>(WaitReason.Kind.class);
      for (JobWait w : e.getValue()) {
        WaitReason.Kind kind = w.reason().kind();
        count.merge(kind, 1L, Long::sum);
        long seconds = Math.max(0, Duration.between(w.job().createdAt(), now).toSeconds());
        age.merge(kind, seconds, Math::max);
        totals.merge(kind, 1, Integer::sum);
      }
      set(jobCounts.getOrDefault(e.getKey(), Map.of()), count);
      set(oldest.getOrDefault(e.getKey(), Map.of()), age);
    }
    Map<WaitReason.Kind, Long> requestCount = new EnumMap<>(WaitReason.Kind.class);
    for (RequestWait w : requests) {
      requestCount.merge(w.reason().kind(), 1L, Long::sum);
      totals.merge(w.reason().kind(), 1, Integer::sum);
    }
    set(requestCounts, requestCount);
    return totals;
  }

  /** Sets every gauge of the map to its value, zero for a kind without one. */
  private static void set(Map<WaitReason.Kind, AtomicLong> gauges, Map<WaitReason.Kind, Long> values) {
    for (Map.Entry<WaitReason.Kind, AtomicLong> g : gauges.entrySet()) {
      g.getValue().set(values.getOrDefault(g.getKey(), 0L));
    }
  }

  /**
   * The pools watched.
   *
   * @return the pools, in registration order
   */
  public List<String> pools() {
    return new ArrayList<>(jobCounts.keySet());
  }
}
