package dev.cipolicy.fleet.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.fleet.server.Api.CollectorDto;
import dev.cipolicy.fleet.server.Api.DeviceDto;
import dev.cipolicy.fleet.server.Api.ErrorDto;
import dev.cipolicy.fleet.server.Api.HistoryDto;
import dev.cipolicy.fleet.server.Api.HistoryEntryDto;
import dev.cipolicy.fleet.server.Api.HostDto;
import dev.cipolicy.fleet.server.Api.InProgressDto;
import dev.cipolicy.fleet.server.Api.JobErrorsDto;
import dev.cipolicy.fleet.server.Api.JobWaitDto;
import dev.cipolicy.fleet.server.Api.LeaseDto;
import dev.cipolicy.fleet.server.Api.OverviewDto;
import dev.cipolicy.fleet.server.Api.QueueEntryDto;
import dev.cipolicy.fleet.server.Api.RequestDto;
import dev.cipolicy.fleet.server.Api.ReservationDto;
import dev.cipolicy.fleet.server.Api.ShareDto;
import dev.cipolicy.fleet.server.Api.WaitDto;
import dev.cipolicy.fleet.server.Api.WaitingCountDto;
import dev.cipolicy.fleet.server.Api.WaitingJobsPageDto;
import dev.cipolicy.queue.CollectorStatus;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueOrder;
import dev.cipolicy.queue.RequestWait;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.HistoryEntry;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.spi.HistoryPage;
import dev.cipolicy.queue.spi.QueueStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Reads the queue's store and builds the documents of the status API. It keeps two things of its own, both
 * rebuilt from the store after a restart: the run times of succeeded jobs (read from their results, for the
 * ETAs) and the instant it first saw each lease (its claim, to within one refresh).
 */
public final class FleetView {
  private static final JsonFactory JSON = new JsonFactory();

  private final JobQueue queue;
  private final QueueStore store;
  private final boolean controls;
  private final List<FleetShare> shares;
  private final DurationHistory durations = new DurationHistory();
  private final Set<JobId> learned = ConcurrentHashMap.newKeySet();
  private final Set<RequestId> learnedRequests = ConcurrentHashMap.newKeySet();
  private final Map<String, Instant> firstSeen = new ConcurrentHashMap<>();
  private final ShareSamples shareSamples = new ShareSamples(ShareSamples.DEFAULT_EVERY,
      ShareSamples.DEFAULT_CAPACITY);
  private final AccountingReader accountingReader;

  /**
   * A view.
   *
   * @param queue the queue engine
   * @param shares the fleet shares of the policy
   * @param controls whether the cancel and deactivate controls are enabled
   */
  public FleetView(JobQueue queue, List<FleetShare> shares, boolean controls) {
    this.queue = queue;
    this.shares = List.copyOf(shares);
    this.store = queue.store();
    this.controls = controls;
    this.accountingReader = new AccountingReader(store,
        (job, attempt) -> firstSeen.get(job.value() + "/" + attempt));
  }

  /**
   * The share-use samples, offered one per refresh of the overview by {@link LiveView}.
   *
   * @return the ring
   */
  public ShareSamples shareSamples() {
    return shareSamples;
  }

  /**
   * The accounting of a window ending now (see {@link Accounting} and {@link AccountingReader} for what it
   * counts and from which records).
   *
   * @param window how far back
   * @return the document
   */
  public Api.AccountingDto accounting(Duration window) {
    Instant now = store.now();
    AccountingReader.Read read = accountingReader.read(now.minus(window));
    return Accounting.compute(now, window, read.runs(), shareSamples.samples(), read.truncated());
  }

  /**
   * The run times learned so far.
   *
   * @return the history
   */
  public DurationHistory durations() {
    return durations;
  }

  /** What one refresh reads from the store, shared by every part of the overview. */
  private final class Snapshot {
    final Instant now = store.now();
    final List<Request> open = store.openRequests();
    final Map<RequestId, Request> requests = new HashMap<>();
    final Map<RequestId, List<Job>> jobsByRequest = new LinkedHashMap<>();
    final List<Job> leased = new ArrayList<>();
    final List<Collector> collectors = store.collectors();
    /** The store's view of each pool, read once per snapshot, so every panel shows the same reservation. */
    private final Map<String, PoolView> pools = new HashMap<>();

    PoolView pool(String tag) {
      return pools.computeIfAbsent(tag, queue::pool);
    }

    Snapshot() {
      for (Request r : open) {
        requests.put(r.id(), r);
      }
      Set<JobId> seen = new HashSet<>();
      for (Request r : open) {
        if (r.state() != RequestState.IN_PROGRESS) {
          continue;
        }
        addJobs(r.id(), seen);
        r.parentRequest().ifPresent(p -> {
          store.request(p).ifPresent(pr -> requests.put(p, pr));
          addJobs(p, seen);
        });
      }
    }

    private void addJobs(RequestId id, Set<JobId> seen) {
      List<Job> jobs = store.jobs(id);
      jobsByRequest.put(id, jobs);
      for (Job j : jobs) {
        if (j.state() == JobState.LEASED && j.lease().isPresent() && seen.add(j.id())) {
          leased.add(j);
          firstSeen.putIfAbsent(leaseKey(j.lease().get()), now);
        }
      }
    }

    Instant claimedAt(Lease lease) {
      return firstSeen.getOrDefault(leaseKey(lease), now);
    }

    boolean holdsLiveLease(String collector) {
      return leased.stream().anyMatch(j -> j.lease().get().collector().equals(collector)
          && j.lease().get().isLiveAt(now));
    }
  }

  private static String leaseKey(Lease l) {
    return l.jobId().value() + "/" + l.attempt();
  }

  // ------------------------------------------------------------------------------------------- learning

  /** Reads the run times of the jobs that succeeded since the last refresh. */
  private void learn(Snapshot s) {
    for (Map.Entry<RequestId, List<Job>> e : s.jobsByRequest.entrySet()) {
      learnJobs(e.getKey(), e.getValue());
    }
    HistoryPage recent = store.history(50, null);
    for (HistoryEntry h : recent.entries()) {
      if (learnedRequests.add(h.request().id())) {
        learnJobs(h.request().id(), store.jobs(h.request().id()));
      }
    }
  }

  private void learnJobs(RequestId request, List<Job> jobs) {
    boolean any = false;
    for (Job j : jobs) {
      if (j.state() == JobState.SUCCEEDED && !learned.contains(j.id())) {
        any = true;
      }
    }
    if (!any) {
      return;
    }
    Map<JobId, Job> byId = new HashMap<>();
    jobs.forEach(j -> byId.put(j.id(), j));
    for (JobResult r : store.results(request)) {
      Job j = byId.get(r.jobId());
      if (j != null && learned.add(j.id())) {
        double seconds = secondsOf(r);
        if (seconds >= 0) {
          durations.record(j.spec(), seconds);
        }
      }
    }
  }

  /** The top-level number {@code seconds} of a result's JSON payload, or -1 when it has none. */
  static double secondsOf(JobResult r) {
    try (JsonParser p = JSON.createParser(r.payload().text())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return -1;
      }
      for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if ("seconds".equals(name) && v.isNumeric()) {
          return p.getDoubleValue();
        }
        p.skipChildren();
      }
      return -1;
    } catch (java.io.IOException | RuntimeException e) {
      return -1;
    }
  }

  // ------------------------------------------------------------------------------------------- overview

  /**
   * The overview now, as the page first gets it: nothing filtered, the first {@value WaitingPage#DEFAULT_LIMIT}
   * waiting jobs.
   *
   * @return the document
   */
  public OverviewDto overview() {
    return overview(WorkFilter.NONE, controls);
  }

  /**
   * The overview now, its queue and waiting jobs filtered (the first page of the waiting jobs).
   *
   * @param filter the filter of the waiting work
   * @return the document
   */
  OverviewDto overview(WorkFilter filter) {
    return overview(filter, controls);
  }

  /**
   * The overview now, for a reader whose controls are on or off (the server's operator controls decide it per
   * request).
   *
   * @param controls whether the reader may use the controls
   * @return the document
   */
  public OverviewDto overview(boolean controls) {
    return overview(WorkFilter.NONE, controls);
  }

  /**
   * The overview now, its queue and waiting jobs filtered (the first page of the waiting jobs), for a reader whose
   * controls are on or off.
   *
   * @param filter the filter of the waiting work
   * @param controls whether the reader may use the controls
   * @return the document
   */
  OverviewDto overview(WorkFilter filter, boolean controls) {
    return compute().view(filter, WaitingPage.FIRST, controls);
  }

  /**
   * Reads the store once and computes every panel of the overview, unfiltered, keeping each row of the queue and
   * of the waiting jobs with what the filters match it by: {@link Computed#view} then picks a filtered page of it
   * without reading the store again.
   *
   * @return the computed overview
   */
  Computed compute() {
    Snapshot s = new Snapshot();
    learn(s);
    QueueOrder order = queue.order();
    Map<String, Double> etas = etas(s, order);
    List<InProgressDto> inProgress = new ArrayList<>();
    for (QueueOrder.Placed p : order.placed()) {
      if (p.section() == QueueOrder.Section.IN_PROGRESS) {
        inProgress.add(inProgress(s, p.request(), etas));
      }
    }
    Map<RequestId, RequestWait> waits = new HashMap<>();
    for (RequestWait w : order.waitReasons(queue.settings().maxInProgress())) {
      waits.put(w.request().id(), w);
    }
    Map<RequestId, List<JobSpec>> planned = new LinkedHashMap<>();
    for (QueueOrder.Placed p : order.placed()) {
      if (p.section() != QueueOrder.Section.IN_PROGRESS) {
        planned.put(p.request().id(), planned(p.request()));
      }
    }
    List<QueueRow> entries = new ArrayList<>();
    int position = 0;
    for (QueueOrder.Placed p : order.placed()) {
      position++;
      entries.add(queueRow(s, position, p, etas, waits, planned));
    }
    for (QueueOrder.Placed p : order.waiting()) {
      entries.add(queueRow(s, 0, p, etas, waits, planned));
    }
    List<ShareDto> shareUse = ShareUse.of(s.leased, s.requests, s.collectors, shares);
    Set<String> pools = pools(s);
    planned.values().forEach(js -> js.forEach(j -> pools.add(j.pool())));
    Set<String> cadences = new TreeSet<>();
    cadences.add("regular");
    s.open.forEach(r -> cadences.add(cadenceOf(r)));
    shareUse.forEach(x -> cadences.add(x.cadence()));
    return new Computed(s.now.toString(), DurationHistory.seconds(queue.settings().leaseDuration()), inProgress,
        entries, waitingRows(s, order, planned, waits), collectors(s), hosts(s), shareUse, List.copyOf(pools),
        List.copyOf(cadences));
  }

  /** A row of the queue and what the filters match it by: its request, cadence, jobs' pools and state. */
  private record QueueRow(QueueEntryDto dto, Request request, String cadence, Set<String> pools, String state) {}

  /**
   * A row of the waiting jobs and what the filters match it by (its pool as the one element of {@code pools});
   * its document is built when it is listed (a queued job's is built already, a job of a request not started is
   * built from its spec).
   */
  private record WaitRow(@Nullable Request request, String cadence, List<String> pools, String state,
      Supplier<JobWaitDto> dto) {}

  /**
   * One computation of the overview: every panel as computed, the queue and the waiting jobs unfiltered, each
   * row with what the filters match it by. Immutable; {@link #view} answers a filter and a page from it.
   */
  static final class Computed {
    private final String at;
    private final double leaseSeconds;
    private final List<InProgressDto> inProgress;
    private final List<QueueRow> queue;
    private final List<WaitRow> waiting;
    private final List<CollectorDto> collectors;
    private final List<HostDto> hosts;
    private final List<ShareDto> shares;
    private final List<String> pools;
    private final List<String> cadences;

    Computed(String at, double leaseSeconds, List<InProgressDto> inProgress, List<QueueRow> queue,
        List<WaitRow> waiting, List<CollectorDto> collectors, List<HostDto> hosts, List<ShareDto> shares,
        List<String> pools, List<String> cadences) {
      this.at = at;
      this.leaseSeconds = leaseSeconds;
      this.inProgress = List.copyOf(inProgress);
      this.queue = List.copyOf(queue);
      this.waiting = List.copyOf(waiting);
      this.collectors = List.copyOf(collectors);
      this.hosts = List.copyOf(hosts);
      this.shares = List.copyOf(shares);
      this.pools = pools;
      this.cadences = cadences;
    }

    /**
     * The overview for a filter and a page of the waiting jobs: the queue's matching requests, the matching
     * waiting jobs of the page and how many match (in all, by state and by pool); the other panels as computed.
     *
     * @param filter the filter of the waiting work
     * @param page which of the matching waiting jobs to list
     * @param controls whether the reader may use the controls
     * @return the document
     */
    OverviewDto view(WorkFilter filter, WaitingPage page, boolean controls) {
      List<QueueEntryDto> entries = new ArrayList<>();
      for (QueueRow q : queue) {
        if (filter.matches(q.request(), q.cadence(), q.pools(), q.state())) {
          entries.add(q.dto());
        }
      }
      List<JobWaitDto> listed = new ArrayList<>();
      Map<String, int[]> byPool = new TreeMap<>();
      int total = 0;
      int waitingJobs = 0;
      for (WaitRow w : waiting) {
        if (!filter.matches(w.request(), w.cadence(), w.pools(), w.state())) {
          continue;
        }
        if (total >= page.offset() && listed.size() < page.limit()) {
          listed.add(w.dto().get());
        }
        total++;
        boolean queued = w.state().equals(WorkFilter.WAITING);
        if (queued) {
          waitingJobs++;
        }
        byPool.computeIfAbsent(w.pools().get(0), k -> new int[2])[queued ? 0 : 1]++;
      }
      List<WaitingCountDto> counts = new ArrayList<>();
      byPool.forEach((pool, n) -> counts.add(new WaitingCountDto(pool, n[0], n[1])));
      return new OverviewDto(Api.VERSION, at, controls, leaseSeconds, inProgress, entries, listed, collectors,
          hosts, shares, pools, cadences, new WaitingJobsPageDto(page.offset(), page.limit(), total, waitingJobs,
              total - waitingJobs, counts));
    }
  }

  /** The jobs a request not started yet will get, or none when its planner cannot say now. */
  private List<JobSpec> planned(Request r) {
    try {
      return queue.jobsFor(r);
    } catch (RuntimeException e) {
      return List.of();
    }
  }

  private QueueRow queueRow(Snapshot s, int position, QueueOrder.Placed p, Map<String, Double> etas,
      Map<RequestId, RequestWait> waits, Map<RequestId, List<JobSpec>> planned) {
    Request r = p.request();
    Set<String> pools = new HashSet<>();
    String state;
    if (p.section() == QueueOrder.Section.IN_PROGRESS) {
      state = WorkFilter.WAITING;
      s.jobsByRequest.getOrDefault(r.id(), List.of()).forEach(j -> pools.add(j.spec().pool()));
    } else {
      state = WorkFilter.NOT_STARTED;
      planned.getOrDefault(r.id(), List.of()).forEach(j -> pools.add(j.pool()));
    }
    return new QueueRow(entry(s, position, p, etas, waits), r, cadenceOf(r), Set.copyOf(pools), state);
  }

  private QueueEntryDto entry(Snapshot s, int position, QueueOrder.Placed p, Map<String, Double> etas,
      Map<RequestId, RequestWait> waits) {
    Double eta = etas.get(key(p.request().id()));
    RequestWait w = waits.get(p.request().id());
    return new QueueEntryDto(position, request(p.request()), p.section().documentName(), p.reason(), eta,
        eta == null ? null : s.now.plusMillis(Math.round(eta * 1000)).toString(),
        w == null ? null : wait(w.reason()));
  }

  private InProgressDto inProgress(Snapshot s, Request r, Map<String, Double> etas) {
    List<Job> jobs = s.jobsByRequest.getOrDefault(r.id(), List.of());
    int done = 0;
    int failed = 0;
    int running = 0;
    for (Job j : jobs) {
      if (j.state().isTerminal()) {
        done++;
      }
      if (j.state() == JobState.FAILED) {
        failed++;
      }
      if (j.state() == JobState.LEASED) {
        running++;
      }
    }
    Instant started = r.startedAt().orElse(r.createdAt());
    Double eta = etas.get(key(r.id()));
    return new InProgressDto(request(r), done, jobs.size(), failed, running,
        DurationHistory.seconds(Duration.between(started, s.now)), eta,
        eta == null ? null : s.now.plusMillis(Math.round(eta * 1000)).toString(), errors(jobs));
  }

  /** The errors of jobs, grouped by job: its final failure and, before it, its last transient error. */
  static List<JobErrorsDto> errors(List<Job> jobs) {
    List<JobErrorsDto> out = new ArrayList<>();
    for (Job j : jobs) {
      List<ErrorDto> errs = new ArrayList<>();
      j.lastError().ifPresent(e -> {
        if (j.failure().isEmpty() || !j.failure().get().detail().equals(e)) {
          errs.add(new ErrorDto("transient", e, null));
        }
      });
      j.failure().ifPresent(f -> errs.add(new ErrorDto(f.reason().documentName(), f.detail(), f.at().toString())));
      if (!errs.isEmpty()) {
        out.add(new JobErrorsDto(j.id().value(), label(j), j.spec().pool(), errs));
      }
    }
    return out;
  }

  private static String key(RequestId id) {
    return Long.toString(id.value());
  }

  private Map<String, Double> etas(Snapshot s, QueueOrder order) {
    Duration timeout = queue.settings().collectorTimeout();
    Map<String, Double> out = new HashMap<>();
    QueueEtas.compute(queue, order, s.now, s.jobsByRequest, s.collectors,
        c -> c.isLiveAt(s.now, timeout) || s.holdsLiveLease(c.name()), s::claimedAt, durations)
        .forEach((id, v) -> out.put(key(id), v));
    return out;
  }

  /** The pools of the collectors and of the jobs of the requests in progress. */
  private static Set<String> pools(Snapshot s) {
    Set<String> pools = new TreeSet<>();
    s.collectors.forEach(c -> pools.add(c.tag()));
    s.jobsByRequest.values().forEach(js -> js.forEach(j -> pools.add(j.spec().pool())));
    return pools;
  }

  /**
   * Every waiting job, unfiltered: the queued jobs of the requests in progress by job id, then the jobs the
   * planner gives each request not started yet, in queue order.
   */
  private List<WaitRow> waitingRows(Snapshot s, QueueOrder order, Map<RequestId, List<JobSpec>> planned,
      Map<RequestId, RequestWait> waits) {
    Map<RequestId, RequestDto> requestDocs = new HashMap<>();
    List<Map.Entry<Long, WaitRow>> queued = new ArrayList<>();
    for (String pool : pools(s)) {
      PoolView view = s.pool(pool);
      Map<JobId, WaitingStarts.Start> starts = WaitingStarts.of(view, durations::expectedSeconds);
      List<String> pools = List.of(pool);
      for (JobWait w : view.waits()) {
        Job j = w.job();
        Request r = s.requests.get(j.requestId());
        WaitingStarts.Start start = starts.get(j.id());
        JobWaitDto dto = new JobWaitDto(j.id().value(), label(j), j.requestId().value(), pool, j.spec().gpus(),
            durations.expectedSeconds(j.spec()), wait(w.reason()),
            r == null ? null : requestDocs.computeIfAbsent(r.id(), id -> request(r)),
            WorkFilter.WAITING, start == null || start.at() == null ? null : start.at().toString(),
            start == null ? "no estimate for this job" : start.unknownBecause());
        queued.add(Map.entry(j.id().value(), new WaitRow(r, r == null ? "regular" : cadenceOf(r), pools,
            WorkFilter.WAITING, () -> dto)));
      }
    }
    queued.sort(Map.Entry.comparingByKey());
    List<WaitRow> out = new ArrayList<>();
    queued.forEach(e -> out.add(e.getValue()));
    for (QueueOrder.Placed p : order.placed()) {
      Request r = p.request();
      List<JobSpec> specs = planned.getOrDefault(r.id(), List.of());
      if (specs.isEmpty()) {
        continue;
      }
      RequestWait rw = waits.get(r.id());
      WaitDto reason = rw == null ? new WaitDto("not-started", "its request has not started", null) : wait(rw.reason());
      String cadence = cadenceOf(r);
      for (JobSpec spec : specs) {
        out.add(new WaitRow(r, cadence, List.of(spec.pool()), WorkFilter.NOT_STARTED, () -> new JobWaitDto(null,
            spec.benchmarkGroup() + "@" + spec.collectorTag(), r.id().value(), spec.pool(), spec.gpus(),
            durations.expectedSeconds(spec), reason, request(r), WorkFilter.NOT_STARTED, null,
            "its request has not started")));
      }
    }
    return out;
  }

  private List<CollectorDto> collectors(Snapshot s) {
    List<CollectorDto> out = new ArrayList<>();
    Duration timeout = queue.settings().collectorTimeout();
    for (Collector c : s.collectors) {
      CollectorStatus st = CollectorStatus.of(c, s.now, timeout);
      List<LeaseDto> jobs = new ArrayList<>();
      for (Job j : s.leased) {
        Lease l = j.lease().get();
        if (l.collector().equals(c.name())) {
          jobs.add(new LeaseDto(j.id().value(), label(j), j.requestId().value(), l.devices(), l.expiresAt().toString(),
              DurationHistory.seconds(Duration.between(s.claimedAt(l), s.now))));
        }
      }
      out.add(new CollectorDto(c.name(), c.tag(), c.devices().size(), c.active(), state(st, s), 
          DurationHistory.seconds(st.heartbeatAge()), c.lastHeartbeatAt().toString(), jobs));
    }
    return out;
  }

  /** Online while it holds a live lease, whatever its heartbeat's age; else as the queue reports it. */
  private static String state(CollectorStatus st, Snapshot s) {
    if (st.state() == CollectorStatus.State.OFFLINE && s.holdsLiveLease(st.collector().name())) {
      return CollectorStatus.State.ONLINE.documentName();
    }
    return st.state().documentName();
  }

  /**
   * The GPU map: each host's devices as the store's view of its pool records them (the same view the waiting
   * jobs read, so the reservation here and the wait reasons name the same instant); a host the view does not
   * list (not live) shows the leases of the snapshot.
   */
  private List<HostDto> hosts(Snapshot s) {
    Duration timeout = queue.settings().collectorTimeout();
    Map<JobId, Job> known = new HashMap<>();
    s.jobsByRequest.values().forEach(js -> js.forEach(j -> known.put(j.id(), j)));
    List<Collector> gpuHosts = new ArrayList<>();
    for (Collector c : s.collectors) {
      if (!c.devices().isEmpty()) {
        gpuHosts.add(c);
      }
    }
    gpuHosts.sort(Comparator.comparing(Collector::name));
    List<HostDto> out = new ArrayList<>();
    for (Collector c : gpuHosts) {
      PoolView view = s.pool(c.tag());
      view.waits().forEach(w -> known.putIfAbsent(w.job().id(), w.job()));
      Map<Integer, JobId> holder = new HashMap<>();
      Optional<DevicePlacement.Host> listed = view.hosts().stream().filter(h -> h.name().equals(c.name())).findFirst();
      if (listed.isPresent()) {
        listed.get().holdings().forEach(x -> x.devices().forEach(d -> holder.put(d, x.job())));
      } else {
        for (Job j : s.leased) {
          Lease l = j.lease().get();
          if (l.collector().equals(c.name())) {
            l.devices().forEach(d -> holder.put(d, j.id()));
          }
        }
      }
      DevicePlacement.Reservation res = view.reservation().filter(r -> r.host().equals(c.name())).orElse(null);
      List<DeviceDto> devices = new ArrayList<>();
      int free = 0;
      for (int index : c.devices().indices()) {
        JobId j = holder.get(index);
        if (j != null) {
          devices.add(new DeviceDto(index, "busy", j.value(), label(j, known)));
        } else {
          free++;
          devices.add(res != null ? new DeviceDto(index, "reserved", res.job().value(), label(res.job(), known))
              : new DeviceDto(index, "free", null, null));
        }
      }
      String state = !c.active() ? "inactive" : c.isLiveAt(s.now, timeout) || s.holdsLiveLease(c.name())
          ? "online" : "offline";
      out.add(new HostDto(c.name(), c.tag(), state, c.devices().size(), free, devices, res == null ? null
          : new ReservationDto(res.job().value(), label(res.job(), known), res.gpus(), res.until().toString())));
    }
    return out;
  }

  private static String label(JobId id, Map<JobId, Job> known) {
    Job j = known.get(id);
    return j == null ? "job #" + id.value() : label(j);
  }

  // ------------------------------------------------------------------------------------------- history

  /**
   * One page of the history.
   *
   * @param limit the page size
   * @param cursor the previous page's {@code next}, or null for the newest
   * @return the page
   */
  public HistoryDto history(int limit, @Nullable String cursor) {
    HistoryPage page = queue.history(limit, cursor == null ? null : Cursors.parse(cursor));
    List<HistoryEntryDto> entries = new ArrayList<>();
    for (HistoryEntry e : page.entries()) {
      Request r = e.request();
      Instant start = r.startedAt().orElse(r.createdAt());
      Instant end = r.finishedAt().orElse(start);
      entries.add(new HistoryEntryDto(request(r), r.outcome().map(o -> o.documentName()).orElse("unknown"),
          DurationHistory.seconds(Duration.between(start, end)), errors(e.failedJobs())));
    }
    return new HistoryDto(entries, page.next().map(Cursors::format).orElse(null));
  }

  // ------------------------------------------------------------------------------------------- helpers

  /** A request's pull request: its own (a try), else its CI run's. */
  private static @Nullable Long pr(Request r) {
    if (r.pr().isPresent()) {
      return r.pr().getAsLong();
    }
    return r.ciRun().filter(c -> c.pr().isPresent()).map(c -> c.pr().getAsLong()).orElse(null);
  }

  static RequestDto request(Request r) {
    return new RequestDto(r.id().value(), r.label(), r.kind().documentName(), cadenceOf(r),
        r.tag().orElse(null), pr(r),
        r.state().name().toLowerCase(java.util.Locale.ROOT), r.createdAt().toString(),
        r.startedAt().map(Instant::toString).orElse(null), r.finishedAt().map(Instant::toString).orElse(null),
        r.outcome().map(o -> o.documentName()).orElse(null));
  }

  /**
   * The cadence a request runs: its CI run's cadence, else {@code regular}.
   *
   * @param request a request
   * @return the cadence name
   */
  public static String cadenceOf(Request request) {
    return request.ciRun().map(CiRun::cadence).filter(c -> !c.isEmpty()).orElse("regular");
  }

  static String label(@Nullable Job j) {
    return j == null ? "?" : j.spec().benchmarkGroup() + "@" + j.spec().collectorTag() + " #" + j.id().value();
  }

  private static WaitDto wait(dev.cipolicy.queue.model.WaitReason r) {
    return new WaitDto(r.kind().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'), r.sentence(),
        r.expectedFree().map(Instant::toString).orElse(null));
  }

  /** History cursors as opaque strings: {@code <finished epoch micros>-<request id>}. */
  static final class Cursors {
    private Cursors() {}

    static String format(HistoryCursor c) {
      long micros = java.time.temporal.ChronoUnit.MICROS.between(Instant.EPOCH, c.finishedAt());
      return micros + "-" + c.requestId().value();
    }

    static HistoryCursor parse(String text) {
      int dash = text.indexOf('-');
      try {
        long micros = Long.parseLong(text.substring(0, dash));
        long id = Long.parseLong(text.substring(dash + 1));
        return new HistoryCursor(Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
            Math.floorMod(micros, 1_000_000L) * 1_000L), RequestId.of(id));
      } catch (RuntimeException e) {
        throw new BadRequest("cursor '" + text + "' is not a history cursor; pass the 'next' of a previous page");
      }
    }
  }

  /** A bad request parameter, answered with 400 and one line. */
  static final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }

    /**
     * A query value as a message quotes it: printable ASCII only (anything else as {@code ?}), cut at 40
     * characters.
     */
    static String printable(String s) {
      String p = s.replaceAll("[^\\x20-\\x7e]", "?");
      return p.length() > 40 ? p.substring(0, 40) + "..." : p;
    }
  }

  static Optional<Request> find(QueueStore store, long id) {
    return id < 1 ? Optional.empty() : store.request(RequestId.of(id));
  }
}
