package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.Request;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The in-memory row of one request: its current value, its jobs, and the counters completion reads. */
final class RequestRow {
  Request request;
  /** Set once the request completed or was cancelled; listing open requests reads only this flag. */
  boolean closed;
  /** The request's jobs in creation (id) order. */
  final List<JobRow> jobs = new ArrayList<>();
  /** The request's jobs by benchmark group and collector tag. */
  final Map<JobKey, JobRow> jobsByKey = new HashMap<>();
  int requiredPending;
  int requiredSucceeded;
  int requiredFailed;
  int anyFailed;

  RequestRow(Request request) {
    this.request = request;
  }

  /** A job's identity within its request; hashing reuses the strings' cached hashes. */
  record JobKey(String benchmarkGroup, String collectorTag) {}
}
