package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.LogWindow;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The in-memory row of one job: its current value and the bookkeeping of the claim queues and lease heap. */
final class JobRow {
  final long id;
  final RequestRow request;
  final Pool pool;
  Job job;
  /** The lease expiry while leased; the key of the lease heap. */
  Instant leaseExpiry = Instant.MIN;
  /** The row's index in its pool's lease heap, or -1. */
  int heapIndex = -1;
  /** Set when the job's request was purged: the row is no longer the job's (lookups by id miss it). */
  boolean purged;
  /** The collector whose devices the live lease holds, or null. */
  @Nullable CollectorRow host;
  /** When the live lease on devices is expected to end. */
  Instant estimatedEnd = Instant.MIN;
  /** The kept log of each attempt that appended, by attempt. */
  final Map<Integer, LogWindow> logs = new HashMap<>();
  /** The record of each attempt, oldest first. */
  final List<JobAttempt> attempts = new ArrayList<>(1);

  JobRow(Job job, RequestRow request, Pool pool) {
    this.id = job.id().value();
    this.job = job;
    this.request = request;
    this.pool = pool;
  }

  /** Gives the row its terminal job value and updates its request's counters. */
  void finish(Job terminal) {
    job = terminal;
    boolean required = !terminal.spec().optional();
    if (required) {
      request.requiredPending--;
    }
    if (terminal.state() == JobState.SUCCEEDED && required) {
      request.requiredSucceeded++;
    } else if (terminal.state() == JobState.FAILED) {
      request.anyFailed++;
      if (required) {
        request.requiredFailed++;
      }
    }
  }

  /** Records the attempt a claim just started under the row's new lease. */
  void attemptStarted(Lease lease, Instant now) {
    attempts.add(JobAttempt.started(lease, now));
  }

  /** Completes the record of the attempt whose lease {@code before} held, when the row's transition ended it. */
  void attemptEnded(Job before, Instant now) {
    JobAttempt.endOf(before, job, now).ifPresent(end -> {
      int i = end.attempt() - 1;
      if (i < attempts.size() && attempts.get(i).attempt() == end.attempt()) {
        attempts.set(i, attempts.get(i).ended(end));
      }
    });
  }

  /** Gives a terminal row its value queued again (an operator's retry) and takes its end back from the counters. */
  void unfinish(Job queued) {
    Job ended = job;
    boolean required = !ended.spec().optional();
    if (required) {
      request.requiredPending++;
    }
    if (ended.state() == JobState.SUCCEEDED && required) {
      request.requiredSucceeded--;
    } else if (ended.state() == JobState.FAILED) {
      request.anyFailed--;
      if (required) {
        request.requiredFailed--;
      }
    }
    job = queued;
  }

  /** The refusal of an operation on this row's lease, or null when the reference names its live lease. */
  @Nullable LeaseResult fence(LeaseRef ref, Instant now) {
    Optional<Lease> lease = job.lease();
    if (lease.isEmpty() || !ref.matches(lease.get()) || !lease.get().isLiveAt(now)) {
      return new LeaseResult(LeaseStatus.STALE_LEASE, Optional.of(job));
    }
    return null;
  }

  /** Appends to the log of the lease's attempt, when the lease is this row's live one. */
  LeaseStatus appendLog(LeaseRef lease, List<LogChunk> checked, Instant now) {
    if (fence(lease, now) != null) {
      return LeaseStatus.STALE_LEASE;
    }
    logs.put(lease.attempt(), logs.getOrDefault(lease.attempt(), LogWindow.emptyStore()).append(checked));
    return LeaseStatus.OK;
  }

  /** The log of an attempt from a byte offset; empty for an attempt that has not started. */
  Optional<JobLogView> log(int attempt, long from, Instant now) {
    if (attempt > job.attempt()) {
      return Optional.empty();
    }
    return Optional.of(logs.getOrDefault(attempt, LogWindow.emptyStore())
        .view(job.id(), attempt, from, LogWindow.finished(job, attempt, now)));
  }
}
