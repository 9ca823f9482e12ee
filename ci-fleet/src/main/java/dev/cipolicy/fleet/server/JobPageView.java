package dev.cipolicy.fleet.server;

import dev.cipolicy.fleet.job.CiJobArgs;
import dev.cipolicy.fleet.job.InvalidCiJobException;
import dev.cipolicy.fleet.server.Api.AttemptDto;
import dev.cipolicy.fleet.server.Api.CiRunDto;
import dev.cipolicy.fleet.server.Api.ErrorDto;
import dev.cipolicy.fleet.server.Api.JobDto;
import dev.cipolicy.fleet.server.Api.JobRequestDto;
import dev.cipolicy.fleet.server.Api.JobSpecDto;
import dev.cipolicy.fleet.server.Api.LeaseDto;
import dev.cipolicy.fleet.server.Api.LogDto;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LogWindow;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.QueueStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The documents of a job's own page: the job with its spec, request (and CI run), every attempt and each
 * attempt's log ({@code GET /api/v1/jobs/{id}}), and one attempt's log from a byte offset
 * ({@code GET /api/v1/jobs/{id}/log}). A malformed id, attempt or offset is a {@link FleetView.BadRequest} (400);
 * an unknown job or attempt a {@link NotFound} (404).
 */
final class JobPageView {

  private final QueueStore store;

  JobPageView(QueueStore store) {
    this.store = store;
  }

  /** The job with this id (the path's text), with its attempts and their logs. */
  JobDto job(String idText) {
    Job job = find(idText);
    Request request = store.request(job.requestId()).orElse(null);
    Instant now = store.now();
    List<AttemptDto> attempts = new ArrayList<>();
    for (JobAttempt a : attempts(job.id())) {
      attempts.add(new AttemptDto(a.attempt(), a.collector(), a.devices(), a.startedAt().toString(),
          a.endedAt().map(Instant::toString).orElse(null),
          a.outcome().map(JobAttempt.Outcome::documentName).orElse("running"), a.error().orElse(null)));
    }
    List<LogDto> logs = new ArrayList<>();
    for (int n = 1; n <= job.attempt(); n++) {
      log(job.id(), n, 0).ifPresent(v -> logs.add(dto(v)));
    }
    LeaseDto leaseDto = job.lease().map(lease -> lease(job, lease, attempts, now)).orElse(null);
    JobSpec spec = job.spec();
    return new JobDto(job.id().value(), FleetView.label(job), spec(spec), request(request), spec.pool(),
        spec.gpus(), job.state().documentName(), job.attempt(), job.crashRescues(), job.transientRetries(),
        job.cancelRequested(), job.lastError().orElse(null),
        job.failure().map(f -> new ErrorDto(f.reason().documentName(), f.detail(), f.at().toString())).orElse(null),
        job.createdAt().toString(), job.finishedAt().map(Instant::toString).orElse(null), leaseDto,
        attempts, logs);
  }

  /** The live lease, running since its attempt's start. */
  private static LeaseDto lease(Job job, Lease lease, List<AttemptDto> attempts, Instant now) {
    Instant started = now;
    for (AttemptDto a : attempts) {
      if (a.attempt() == lease.attempt()) {
        started = Instant.parse(a.startedAt());
      }
    }
    return new LeaseDto(job.id().value(), FleetView.label(job), job.requestId().value(), lease.devices(),
        lease.expiresAt().toString(), DurationHistory.seconds(Duration.between(started, now)));
  }

  /**
   * One attempt's log from an offset: {@code attempt} defaults to the job's latest and {@code offset} to 0.
   */
  LogDto log(String idText, @Nullable String attemptText, @Nullable String offsetText) {
    Job job = find(idText);
    int attempt;
    if (attemptText == null || attemptText.isBlank()) {
      attempt = job.attempt();
      if (attempt < 1) {
        throw new NotFound("job " + job.id().value() + " has not started: it has no log yet");
      }
    } else {
      long n = number(attemptText, "attempt");
      if (n < 1 || n > Integer.MAX_VALUE) {
        throw new FleetView.BadRequest("attempt " + attemptText.trim() + " is out of range; expected 1 or more");
      }
      attempt = (int) n;
    }
    long offset = 0;
    if (offsetText != null && !offsetText.isBlank()) {
      offset = number(offsetText, "offset");
      if (offset < 0) {
        throw new FleetView.BadRequest("offset " + offsetText.trim() + " is negative; expected a byte offset of 0"
            + " or more");
      }
    }
    int asked = attempt;
    return log(job.id(), attempt, offset).map(JobPageView::dto).orElseThrow(() -> new NotFound("job "
        + job.id().value() + " has no attempt " + asked + "; it has " + job.attempt()));
  }

  private Job find(String idText) {
    long id = number(idText, "job id");
    if (id < 1) {
      throw new FleetView.BadRequest("job id " + idText.trim() + " is out of range; expected 1 or more");
    }
    return store.job(JobId.of(id)).orElseThrow(() -> new NotFound("no job " + id + " in the queue"));
  }

  private List<JobAttempt> attempts(JobId id) {
    try {
      return store.attempts(id);
    } catch (UnsupportedOperationException e) {
      return List.of();
    }
  }

  private Optional<JobLogView> log(JobId id, int attempt, long offset) {
    try {
      return store.log(id, attempt, offset);
    } catch (UnsupportedOperationException e) {
      return Optional.empty();
    }
  }

  private static LogDto dto(JobLogView v) {
    return new LogDto(v.jobId().value(), v.attempt(), v.offset(), v.totalBytes(), v.totalBytes(), v.droppedBytes(),
        v.skippedBytes(), v.finished(), LogWindow.decode(v.head()), LogWindow.decode(v.tail()), v.text());
  }

  private static JobSpecDto spec(JobSpec spec) {
    List<String> command = spec.args().flatMap(JobPageView::command).orElse(null);
    return new JobSpecDto(spec.benchmarkGroup() + "@" + spec.collectorTag(), spec.benchmarkGroup(),
        spec.collectorTag(), spec.optional(), spec.gpus(), spec.cadence(),
        DurationHistory.seconds(spec.estimate()),
        spec.hasTimeout() ? DurationHistory.seconds(spec.timeout()) : null, command);
  }

  /** The command of a CI job's args; empty for args of another kind. */
  private static Optional<List<String>> command(String args) {
    try {
      return Optional.of(CiJobArgs.read(args).command());
    } catch (InvalidCiJobException e) {
      return Optional.empty();
    }
  }

  private static JobRequestDto request(@Nullable Request r) {
    if (r == null) {
      return new JobRequestDto(null, null, null);
    }
    CiRun run = r.ciRun().orElse(null);
    CiRunDto ci = run == null ? null : new CiRunDto(run.repository(), run.runId(), run.attempt(), run.commitSha(),
        run.event(), run.workflow().orElse(null), runUrl(run));
    return new JobRequestDto(FleetView.request(r), run != null ? run.commitSha() : r.tag().orElse(null), ci);
  }

  /**
   * The page of a CI run's attempt on GitHub.
   *
   * @param run the run
   * @return {@code https://github.com/<repository>/actions/runs/<run id>/attempts/<attempt>}
   */
  static String runUrl(CiRun run) {
    return "https://github.com/" + run.repository() + "/actions/runs/" + run.runId() + "/attempts/" + run.attempt();
  }

  private static long number(String text, String what) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new FleetView.BadRequest(what + " '" + text + "' is not a number");
    }
  }

  /** An unknown job or attempt, answered with 404 and one line. */
  static final class NotFound extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotFound(String message) {
      super(message);
    }
  }
}
