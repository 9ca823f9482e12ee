package dev.cipolicy.fleet.server;

import dev.cipolicy.fleet.server.Accounting.JobRun;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.HistoryEntry;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.HistoryPage;
import dev.cipolicy.queue.spi.QueueStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * Reads the job runs of a window from the store with its existing verbs: the completed requests that finished
 * inside the window ({@link QueueStore#history}, newest first, at most {@link #MAX_REQUESTS}) and the requests
 * in progress, the jobs of each, and the attempts ({@link QueueStore#attempts}) of each job that was claimed:
 *
 * <ul>
 *   <li><b>ready</b>: the job's creation instant ({@link Job#createdAt()}): the store creates a request's jobs
 *       when it starts the request (a CI run at its submission) or backfills them, and a job is claimable from
 *       then on. The store records no later instant for it.
 *   <li><b>claimed</b>: its first attempt's start (the claim that leased it first).
 *   <li><b>started</b> (the run GPU-hours count): its last attempt's start. A store that records no attempt
 *       (or none for the job) leaves stand-ins: the instant this server first saw the job's current lease (its
 *       view looks at every refresh, so to within one refresh); else, for a succeeded job whose result carries a
 *       top-level {@code seconds} (the run time its collector reported), its finish minus those seconds; else
 *       unknown: the run is counted in {@code jobsWithoutStart} and left out of GPU-hours and waits.
 *   <li><b>ended</b>: the job's finish instant ({@link Job#finishedAt()}); a leased job is still running.
 * </ul>
 *
 * A completed request's runs never change, so they are kept (at most {@link #CACHED_REQUESTS} requests, least
 * recently read dropped first) and read from the store once. So are the first and last attempt starts of each
 * job by its attempt count (at most {@link #CACHED_JOBS} jobs): a job's attempts are read again only after a
 * new claim of it, so a refresh reads the attempts of the jobs claimed since the last one, plus, once, those of
 * the completed requests it reads for the first time.
 */
final class AccountingReader {
  /** The most completed requests one answer reads. */
  static final int MAX_REQUESTS = 20_000;

  /** How many completed requests' runs are kept between answers. */
  static final int CACHED_REQUESTS = 50_000;

  /** How many jobs' attempt starts are kept between answers. */
  static final int CACHED_JOBS = 100_000;

  private static final int PAGE = 500;

  /** The first and the last attempt's starts of a job with {@code attempt} attempts. */
  private record Starts(int attempt, Instant first, Instant last) {}

  private final QueueStore store;
  private final BiFunction<JobId, Integer, @Nullable Instant> claimSeen;
  private final Map<RequestId, List<JobRun>> completed = new LinkedHashMap<>(1024, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<RequestId, List<JobRun>> eldest) {
      return size() > CACHED_REQUESTS;
    }
  };

  private final Map<Long, Starts> starts = new LinkedHashMap<>(1024, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Starts> eldest) {
      return size() > CACHED_JOBS;
    }
  };
  /** Whether the store said it records no attempts: the stand-ins only, without asking again. */
  private boolean noAttempts;

  /** What one read found. */
  record Read(List<JobRun> runs, boolean truncated) {}

  AccountingReader(QueueStore store, BiFunction<JobId, Integer, @Nullable Instant> claimSeen) {
    this.store = store;
    this.claimSeen = claimSeen;
  }

  /** The runs of the requests in progress and of those completed at or after {@code from}. */
  synchronized Read read(Instant from) {
    List<JobRun> runs = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    boolean truncated = false;
    int read = 0;
    HistoryCursor cursor = null;
    pages:
    while (true) {
      HistoryPage page = store.history(PAGE, cursor);
      for (HistoryEntry e : page.entries()) {
        Request r = e.request();
        if (r.finishedAt().isPresent() && r.finishedAt().get().isBefore(from)) {
          break pages;
        }
        if (read++ == MAX_REQUESTS) {
          truncated = true;
          break pages;
        }
        List<JobRun> got = completed.get(r.id());
        if (got == null) {
          got = runs(r, store.jobs(r.id()));
          completed.put(r.id(), got);
        }
        add(got, runs, seen);
      }
      if (page.next().isEmpty()) {
        break;
      }
      cursor = page.next().get();
    }
    for (Request r : store.inProgressRequests()) {
      add(runs(r, store.jobs(r.id())), runs, seen);
    }
    return new Read(runs, truncated);
  }

  private static void add(List<JobRun> from, List<JobRun> to, Set<Long> seen) {
    for (JobRun r : from) {
      if (seen.add(r.jobId())) {
        to.add(r);
      }
    }
  }

  private List<JobRun> runs(Request request, List<Job> jobs) {
    String requestCadence = FleetView.cadenceOf(request);
    Map<JobId, Instant> fromResults = null;
    List<JobRun> out = new ArrayList<>();
    for (Job j : jobs) {
      if (j.attempt() == 0 || j.state() == JobState.QUEUED) {
        continue; // never claimed, or its earlier attempt's end is not recorded
      }
      Starts recorded = starts(j);
      Instant claimed = recorded == null ? null : recorded.first();
      Instant start = recorded != null ? recorded.last() : claimSeen.apply(j.id(), j.attempt());
      if (start == null && j.state() == JobState.SUCCEEDED) {
        if (fromResults == null) {
          fromResults = startsFromResults(request.id(), jobs);
        }
        start = fromResults.get(j.id());
      }
      Instant end = j.state() == JobState.LEASED ? null : j.finishedAt().orElse(null);
      String cadence = j.spec().hasCadence() ? j.spec().cadence() : requestCadence;
      out.add(new JobRun(j.id().value(), cadence, j.spec().pool(), j.spec().gpus(), j.createdAt(), claimed, start,
          end));
    }
    return List.copyOf(out);
  }

  /**
   * The recorded starts of a claimed job's first and last attempts, from the cache while its attempt count is
   * the same (a job's attempt records never change once started, and a new claim adds one); null when the store
   * records no attempts or none of this job.
   */
  private @Nullable Starts starts(Job j) {
    Starts known = starts.get(j.id().value());
    if (known != null && known.attempt() == j.attempt()) {
      return known;
    }
    if (noAttempts) {
      return null;
    }
    List<JobAttempt> attempts;
    try {
      attempts = store.attempts(j.id());
    } catch (UnsupportedOperationException e) {
      noAttempts = true;
      return null;
    }
    if (attempts.isEmpty()) {
      return null;
    }
    Instant last = attempts.get(attempts.size() - 1).startedAt();
    for (JobAttempt a : attempts) {
      if (a.attempt() == j.attempt()) {
        last = a.startedAt();
      }
    }
    Starts found = new Starts(j.attempt(), attempts.get(0).startedAt(), last);
    starts.put(j.id().value(), found);
    return found;
  }

  private Map<JobId, Instant> startsFromResults(RequestId request, List<Job> jobs) {
    Map<JobId, Job> byId = new HashMap<>();
    jobs.forEach(j -> byId.put(j.id(), j));
    Map<JobId, Instant> out = new HashMap<>();
    for (JobResult r : store.results(request)) {
      Job j = byId.get(r.jobId());
      double seconds = FleetView.secondsOf(r);
      if (j != null && r.attempt() == j.attempt() && seconds >= 0) {
        out.put(j.id(), r.storedAt().minusNanos(Math.round(seconds * 1e9)));
      }
    }
    return out;
  }
}
