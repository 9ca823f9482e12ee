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

  /** Why something waits: a kind to act on and a sentence to show. */
  public record WaitDto(String kind, String sentence) {}

  /** The request in progress. */
  public record InProgressDto(RequestDto request, int jobsDone, int jobsTotal, int jobsFailed, int jobsRunning,
      double durationSeconds, @Nullable Double etaSeconds, @Nullable String etaAt, List<JobErrorsDto> errors) {}

  /** One request of the queue, in order. */
  public record QueueEntryDto(int position, RequestDto request, String section, String placement,
      @Nullable Double etaSeconds, @Nullable String etaAt, @Nullable WaitDto waitReason) {}

  /** A queued job, the request it belongs to (a pull request's run, a nightly, a master commit) and why it waits. */
  public record JobWaitDto(long jobId, String job, long requestId, String pool, int gpus, double expectedSeconds,
      WaitDto reason, @Nullable RequestDto request) {}

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

  /** Everything the page shows but the history. */
  public record OverviewDto(String version, String at, boolean controls, double leaseSeconds,
      List<InProgressDto> inProgress, List<QueueEntryDto> queue, List<JobWaitDto> waitingJobs,
      List<CollectorDto> collectors, List<HostDto> hosts, List<ShareDto> shares) {}

  /** One completed request. */
  public record HistoryEntryDto(RequestDto request, String outcome, double durationSeconds,
      List<JobErrorsDto> errors) {}

  /** One page of completed requests, newest first. */
  public record HistoryDto(List<HistoryEntryDto> entries, @Nullable String next) {}

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
