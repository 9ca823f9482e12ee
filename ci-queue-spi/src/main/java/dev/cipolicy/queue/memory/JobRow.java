package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.spi.Job;
import java.time.Instant;
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

  JobRow(Job job, RequestRow request, Pool pool) {
    this.id = job.id().value();
    this.job = job;
    this.request = request;
    this.pool = pool;
  }
}
