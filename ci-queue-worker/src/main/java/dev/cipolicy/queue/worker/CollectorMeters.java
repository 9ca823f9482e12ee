package dev.cipolicy.queue.worker;

/**
 * The names of the Micrometer meters a {@link CollectorRuntime} registers. Every meter carries the tags
 * {@value #TAG_COLLECTOR} (the collector's name) and {@value #TAG_POOL} (its collector tag); the table in
 * docs/collector.md lists each meter with its own tags.
 */
public final class CollectorMeters {

  /** Tag: the collector's name. */
  public static final String TAG_COLLECTOR = "collector";
  /** Tag: the collector's tag, the pool it claims from. */
  public static final String TAG_POOL = "pool";

  /**
   * Counter of claim calls, tagged {@code result}: {@code jobs} (at least one job claimed), {@code empty},
   * {@code refused} (the collector is unknown or inactive) or {@code error} (the store was unreachable).
   */
  public static final String CLAIMS = "cipolicy.collector.claims";
  /** Counter of jobs claimed. */
  public static final String JOBS_CLAIMED = "cipolicy.collector.jobs.claimed";
  /** Counter of successful lease renewals. */
  public static final String LEASE_RENEWALS = "cipolicy.collector.lease.renewals";
  /**
   * Counter of leases found no longer live (expired and reclaimed, or the job gone), at a heartbeat or at the
   * report, tagged {@code status}: {@code stale_lease} or {@code not_found}.
   */
  public static final String LEASES_LOST = "cipolicy.collector.leases.lost";
  /** Counter of cancelled requests noticed for running jobs (at a heartbeat or at the report). */
  public static final String CANCELLATIONS = "cipolicy.collector.cancellations";
  /**
   * Timer of runner durations, tagged {@code group} (the job's benchmark group) and {@code disposition}
   * ({@link JobReport.Disposition}, lower case).
   */
  public static final String JOB_DURATION = "cipolicy.collector.job.duration";
  /**
   * Counter of failures reported, tagged {@code kind} ({@code transient} or {@code permanent}) and
   * {@code cause}: {@code outcome} (the runner returned a failure), {@code exception} (it threw) or
   * {@code timeout}.
   */
  public static final String FAILURES = "cipolicy.collector.failures";
  /** Counter of leases released unfinished at shutdown. */
  public static final String RELEASES = "cipolicy.collector.releases";
  /** Counter of collector heartbeats sent. */
  public static final String COLLECTOR_HEARTBEATS = "cipolicy.collector.heartbeats";
  /**
   * Counter of store calls that failed with a store exception (unreachable database), tagged
   * {@code operation}: {@code claim}, {@code heartbeat}, {@code collector_heartbeat}, {@code report},
   * {@code release}.
   */
  public static final String STORE_ERRORS = "cipolicy.collector.store.errors";
  /** Gauge of the jobs running now. */
  public static final String JOBS_RUNNING = "cipolicy.collector.jobs.running";

  private CollectorMeters() {}
}
