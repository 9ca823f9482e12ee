package dev.cipolicy.fleet.server;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The JSON documents of the status API, version 1 ({@code /api/v1/...}); every instant is ISO-8601 UTC,
 * every duration in seconds. Fields are only ever added within a version.
 */
public final class Api {
  private Api() {}

  /** The API version in the paths. */
  public static final String VERSION = "v1";

  /** A request; {@code pr} is a try's pull request or a CI run's. */
  public record RequestDto(long id, String label, String kind, String cadence, @Nullable String tag,
      @Nullable Long pr, String state, String createdAt, @Nullable String startedAt, @Nullable String finishedAt,
      @Nullable String outcome) {}

  /** One error of a job. */
  public record ErrorDto(String reason, String detail, @Nullable String at) {}

  /** The errors of one job. */
  public record JobErrorsDto(long jobId, String job, String pool, List<ErrorDto> errors) {}

  /**
   * Why something waits: a kind to act on, a sentence to show, and the instant the reason names (when the
   * reserved host is expected free), the very instant of the host's {@link ReservationDto#until()}.
   */
  public record WaitDto(String kind, String sentence, @Nullable String at) {}

  /** The request in progress. */
  public record InProgressDto(RequestDto request, int jobsDone, int jobsTotal, int jobsFailed, int jobsRunning,
      double durationSeconds, @Nullable Double etaSeconds, @Nullable String etaAt, List<JobErrorsDto> errors) {}

  /** One request of the queue, in order. */
  public record QueueEntryDto(int position, RequestDto request, String section, String placement,
      @Nullable Double etaSeconds, @Nullable String etaAt, @Nullable WaitDto waitReason) {}

  /**
   * A queued job, the request it belongs to (a pull request's run, a nightly, a master commit), why it waits and
   * when it is expected to start ({@code expectedStartAt}, else {@code expectedStartUnknown} says why not). With
   * {@code state} {@code not-started} it is a job of a request that has not started yet: it has no job id yet,
   * and its reason is its request's.
   */
  public record JobWaitDto(@Nullable Long jobId, String job, long requestId, String pool, int gpus,
      double expectedSeconds, WaitDto reason, @Nullable RequestDto request, String state,
      @Nullable String expectedStartAt, @Nullable String expectedStartUnknown) {}

  /** A job a collector holds. */
  public record LeaseDto(long jobId, String job, long requestId, List<Integer> devices, String expiresAt,
      double runningSeconds) {}

  /** A collector. */
  public record CollectorDto(String name, String pool, int devices, boolean active, String state,
      double heartbeatAgeSeconds, String lastHeartbeatAt, List<LeaseDto> jobs) {}

  /** One device of a host. */
  public record DeviceDto(int index, String state, @Nullable Long jobId, @Nullable String job) {}

  /** A host's reservation for the head of its pool. */
  public record ReservationDto(long jobId, String job, int gpus, String until) {}

  /** The GPU occupancy of a host. */
  public record HostDto(String name, String pool, String state, int size, int free, List<DeviceDto> devices,
      @Nullable ReservationDto reservation) {}

  /** A cadence's use of a pool against its share. */
  public record ShareDto(String cadence, String pool, String unit, int used, int limit, int capacity,
      boolean borrow, String source) {}

  /**
   * Everything the page shows but the history; {@code queue} and {@code waitingJobs} as filtered,
   * {@code waitingJobs} one page of the matching jobs ({@code waitingJobsPage} says which and how many match),
   * {@code pools} and {@code cadences} every value the filters may take now.
   */
  public record OverviewDto(String version, String at, boolean controls, double leaseSeconds,
      List<InProgressDto> inProgress, List<QueueEntryDto> queue, List<JobWaitDto> waitingJobs,
      List<CollectorDto> collectors, List<HostDto> hosts, List<ShareDto> shares, List<String> pools,
      List<String> cadences, WaitingJobsPageDto waitingJobsPage) {}

  /**
   * Which of the waiting jobs matching the filters a list holds: from {@code offset} (0 for the first), at most
   * {@code limit}; {@code total} match, {@code waiting} of them queued jobs of requests in progress and
   * {@code notStarted} jobs of requests not started; {@code pools} the same counts per pool.
   */
  public record WaitingJobsPageDto(int offset, int limit, int total, int waiting, int notStarted,
      List<WaitingCountDto> pools) {}

  /** How many waiting jobs matching the filters one pool has, of requests in progress and not started. */
  public record WaitingCountDto(String pool, int waiting, int notStarted) {}

  /** One completed request. */
  public record HistoryEntryDto(RequestDto request, String outcome, double durationSeconds,
      List<JobErrorsDto> errors) {}

  /** One page of completed requests, newest first. */
  public record HistoryDto(List<HistoryEntryDto> entries, @Nullable String next) {}

  // ---- a job's own page (GET /api/v1/jobs/{id} and /api/v1/jobs/{id}/log) ----

  /**
   * What a job runs: {@code name} its label, {@code group} its benchmark group, the pool (collector tag) and
   * GPUs it needs, its cadence ({@code ""} for none), estimate and timeout in seconds (null for none) and, for a
   * CI job, the command its args carry (null otherwise).
   */
  public record JobSpecDto(String name, String group, String pool, boolean optional, int gpus, String cadence,
      double estimateSeconds, @Nullable Double timeoutSeconds, @Nullable List<String> command) {}

  /**
   * The CI run a request is: repository, workflow run id and attempt, commit, event, workflow, and the run's
   * page ({@code https://github.com/<repository>/actions/runs/<run id>/attempts/<attempt>}).
   */
  public record CiRunDto(String repository, long runId, int attempt, String commit, String event,
      @Nullable String workflow, String url) {}

  /** The request a job belongs to; {@code commit} the commit it tests (a CI run's, else its tag); its CI run. */
  public record JobRequestDto(@Nullable RequestDto request, @Nullable String commit, @Nullable CiRunDto ciRun) {}

  /**
   * One attempt of a job: the host (collector) that ran it, the devices its lease held, start and end
   * (null while it runs), outcome ({@code running} while it runs) and error.
   */
  public record AttemptDto(int attempt, String host, List<Integer> devices, String startedAt,
      @Nullable String endedAt, String outcome, @Nullable String error) {}

  /**
   * One attempt's log from a byte offset, as stored: {@code head} and {@code tail} the kept bytes as text,
   * {@code skippedBytes} the bytes between them that were not kept, {@code text} the three joined as the store
   * renders them, {@code next} the offset to read from next (every byte written so far), {@code finished}
   * whether the attempt can write no more.
   */
  public record LogDto(long jobId, int attempt, long offset, long next, long totalBytes, long droppedBytes,
      long skippedBytes, boolean finished, String head, String tail, String text) {}

  /**
   * A job: its spec and request, state, attempt counters, current lease, failure, every attempt and the log
   * of each attempt that started.
   */
  public record JobDto(long id, String label, JobSpecDto spec, JobRequestDto request, String pool, int gpus,
      String state, int attempt, int crashRescues, int transientRetries, boolean cancelRequested,
      @Nullable String lastError, @Nullable ErrorDto failure, String createdAt, @Nullable String finishedAt,
      @Nullable LeaseDto lease, List<AttemptDto> attempts, List<LogDto> logs) {}

  // ---- accounting (GET /api/v1/accounting) ----

  /** GPU-hours one cadence used of one pool in the window, over {@code runs} job runs. */
  public record GpuHoursDto(String cadence, String pool, double gpuHours, int runs) {}

  /** The wait from ready to claim of the jobs needing {@code gpus} GPUs claimed in the window, in seconds. */
  public record WaitPercentilesDto(int gpus, int jobs, @Nullable Double p50Seconds, @Nullable Double p90Seconds,
      @Nullable Double p99Seconds) {}

  /** One cadence's sampled use of one pool: {@code used[i]} at {@code at[i]}, against {@code limit}. */
  public record ShareSeriesDto(String cadence, String pool, String unit, int limit, List<String> at,
      List<Integer> used) {}

  /**
   * The accounting of the window [{@code from}, {@code at}]; {@code jobsWithoutStart} ran in it with no recorded
   * start (left out of hours and waits); {@code truncated} when the window held more requests than are read.
   */
  public record AccountingDto(String at, String from, double windowSeconds, List<GpuHoursDto> gpuHours,
      List<WaitPercentilesDto> waits, List<ShareSeriesDto> shareUse, int jobsWithoutStart, boolean truncated) {}

  /** An error answer. */
  public record ErrorAnswer(String error) {}

  /**
   * The answer of a control: what was done to which target, how it ended, by whom and when (the audit record's
   * instant; null when the store could not record it).
   */
  public record ControlAnswer(String action, String target, String status, @Nullable String operator,
      @Nullable String at) {}

  /**
   * Who the page is: the operator (null when read-only), whether controls are on at all, whether a bearer token is
   * taken, the trusted proxy's header (null when none) and why the credentials sent were refused (null if not).
   */
  public record SessionDto(@Nullable String operator, boolean authenticated, boolean controls, boolean token,
      @Nullable String proxyHeader, @Nullable String refused) {}

  /** A pool: whether an operator paused it, its collectors and its queued jobs (of the requests in progress). */
  public record PoolDto(String pool, boolean paused, int collectors, int queuedJobs) {}

  /** One recorded operator action, newest first in {@code GET /api/v1/audit}. */
  public record AuditDto(long id, String at, String actor, String action, String target, String result) {}
}
