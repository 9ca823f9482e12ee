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

  /** The answer of a control. */
  public record ControlAnswer(String action, String target, String status) {}
}
