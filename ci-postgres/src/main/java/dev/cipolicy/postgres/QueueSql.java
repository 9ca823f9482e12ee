package dev.cipolicy.postgres;

/**
 * The SQL text of {@link PostgresQueueStore}, built once per schema and table prefix: every statement the
 * store prepares, with the tables named by {@link PostgresQueueOptions} (validated identifiers, so the text
 * never needs quoting). Columns read into values are listed in {@link QueueRows}.
 */
final class QueueSql {

  /** The request columns {@link QueueRows#request} reads, from requests aliased {@code r}. */
  static final String REQUEST_COLS = QueueRows.REQUEST_COLS;
  /** The job and lease columns {@link QueueRows#job} reads, from jobs {@code j} left-joined to leases {@code l}. */
  static final String JOB_COLS = QueueRows.JOB_COLS;
  /**
   * The store's now in a one-statement fast path: the bound instant (a test clock's), or when NULL is bound
   * the server's {@code statement_timestamp()}, so reading the server's clock costs no statement of its own.
   */
  static final String NOW = "coalesce(?::timestamptz, statement_timestamp())";
  /**
   * The fast paths' now, {@code t}: {@code n} the store's now ({@link #NOW}), {@code expiry} n plus the bound
   * lease duration and {@code cutoff} n minus the bound collector timeout (both in microseconds).
   */
  private static final String NOW_CTE = "t AS (SELECT n, n + ?::bigint * interval '1 microsecond' AS expiry,"
      + " n - ?::bigint * interval '1 microsecond' AS cutoff FROM (SELECT " + NOW + " AS n) x)";
  /**
   * A claimed job's columns as {@link #JOB_COLS} lists them, from the claim fast path's {@code claimed} rows
   * {@code j} with their new lease (its expiry from {@code t}, the claimer bound as a parameter).
   */
  private static final String CLAIMED_COLS = "j.id, j.request_id, j.benchmark_group, j.collector_tag, j.optional,"
      + " j.state, j.attempt, j.crash_rescues, j.transient_retries, j.affinity, j.failure_reason, j.failure_detail,"
      + " j.failure_at, j.last_error, j.created_at, j.finished_at, j.attempt, j.token, (SELECT expiry FROM t),"
      + " ?::text, false, j.collector_tag, j.gpus, j.estimate_micros, '{}'::int[], j.cadence, j.timeout_micros,"
      + " j.args";
  /** A completed job's columns as {@link #JOB_COLS} lists them (no lease), from the updated rows {@code j}. */
  private static final String DONE_COLS = "j.id, j.request_id, j.benchmark_group, j.collector_tag, j.optional,"
      + " j.state, j.attempt, j.crash_rescues, j.transient_retries, j.affinity, j.failure_reason, j.failure_detail,"
      + " j.failure_at, j.last_error, j.created_at, j.finished_at, NULL::int, NULL::bigint, NULL::timestamptz,"
      + " NULL::text, NULL::boolean, NULL::text, j.gpus, j.estimate_micros, NULL::int[], j.cadence, j.timeout_micros,"
      + " j.args";
  /**
   * The common table expression that records the end of the attempts the completion fast paths' {@code done}
   * rows succeeded in (at their finish instant), followed by a comma.
   */
  private String finishedAttempts() {
    return " finished AS (UPDATE " + attempts + " a SET ended_at = done.finished_at, outcome = 'SUCCEEDED' FROM done"
        + " WHERE a.job_id = done.id AND a.attempt = done.attempt AND a.outcome IS NULL RETURNING 1),";
  }

  /** The states of an open request. */
  static final String OPEN = "('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY', 'IN_PROGRESS')";

  final String requests;
  final String jobs;
  /** The job attempts table. */
  final String attempts;
  final String leases;
  final String queued;
  final String collectors;
  final String control;
  final String tokens;
  final String results;
  final String gpuQueued;
  final String heldDevices;
  final String collectorDevices;
  final String fleetShares;
  final String reservations;
  /** The paused pools (operator controls). */
  final String pausedPools;

  // ------------------------------------------------------------------------------------------------ requests

  /** Inserts a request unless its tag or its (kind, PR) is taken; returns its id. */
  final String insertRequest;
  /** Rewrites the mutable columns of a request by id. */
  final String updateRequest;
  /** Inserts a CI run request in progress unless its key is taken; returns its id. */
  final String insertCiRun;
  /** Serializes the CI run submissions of one repository (a transaction-scoped advisory lock on its key). */
  final String lockCiRepository;
  /** The CI run request with a key (repository, run id, attempt). */
  final String ciRunByKey;
  /** Locks the open CI runs of a repository and concurrency group, by id. */
  final String openCiGroup;
  /**
   * The requests a submission conflicts with, read in one statement (one snapshot): the request with the tag
   * and the open request of the kind and PR number; binds tag, kind and PR (a missing tag or PR binds NULL).
   */
  final String submitConflicts;
  /** The tags among an array of tags that a request has. */
  final String knownTags;
  /** Locks the single control row that serializes starts. */
  final String lockControl;
  /** Counts the requests in progress that count against the cap (every kind but CI runs). */
  final String countInProgress;
  /** Inserts a queued job unless the request has one with the same group and tag; returns its id. */
  final String insertJob;
  /** Required pending, required succeeded, required failed and any failed jobs of a request. */
  final String jobCounts;
  /** Deletes the queued-jobs rows of a request's queued jobs. */
  final String unlistQueuedJobsOfRequest;
  /** Cancels the queued jobs of a request: the values {@code Job.cancelled(now)} gives a queued job. */
  final String cancelQueuedJobsOfRequest;
  /** Flags the leases of a request's leased jobs for cancellation. */
  final String flagLeasesOfRequest;
  /** Queued jobs of the given requests that the queued-jobs table does not list (a hand-edit diagnostic). */
  final String unlistedQueuedJobs;

  // ---------------------------------------------------------------------------------------------------- jobs

  /** Locks a job row. */
  final String lockJob;
  /** A job with its lease. */
  final String jobById;
  /** The jobs of a request with their leases, by id. */
  final String jobsOfRequest;
  /** Rewrites the mutable columns of a job by id. */
  final String updateJob;
  /** Ends a lease, fenced by job, attempt and token. */
  final String deleteLease;
  /** Inserts a lease. */
  final String insertLease;
  /** Records the attempt a claim started: job, attempt, collector, devices, start. */
  final String insertAttempt;
  /** Records how a running attempt ended: end, outcome, error, by job and attempt. */
  final String endAttempt;
  /** A job's attempts, oldest first. */
  final String attemptsOfJob;
  /** Deletes the queued-jobs row of a job. */
  final String unlistJob;
  /** Draws n fresh lease tokens. */
  final String nextTokens;

  // -------------------------------------------------------------------------------------------------- claims

  /** The claim's one-statement fast path ({@link #claimSql}). */
  final String claim;
  /**
   * A collector's tag, active flag, whether it has devices taken, whether an inventory is pending, and whether it
   * is gone (retired, holding no lease live at the bound instant); the row locked {@code FOR KEY SHARE}, which a
   * retirement's {@code FOR UPDATE} and the claim wait for each other on, as in the fast path's {@code go}.
   */
  final String collectorTagAndActive;
  /** Locks the queued-jobs rows of a tag with affinity to the claimer (full path). */
  final String lockOwnQueued;
  /** Locks the queued-jobs rows of a tag the claimer may take from others (full path). */
  final String lockOtherQueued;

  // -------------------------------------------------------------------------------------------------- leases

  /** Renews a live, fenced, unflagged lease; returns its holder. */
  final String renewLease;
  /** The completion's one-statement fast path ({@link #completeSql}). */
  final String complete;
  /** A completion and the next claim in one statement ({@link #completeAndClaimSql}). */
  final String completeAndClaim;
  /** The batch completion's one-statement fast path ({@link #completeAllSql}). */
  final String completeAll;

  // ------------------------------------------------------------------------------------- expiry, maintenance

  /** Locks the expired leases of one tag with their jobs. */
  final String expiredLeasesOfTag;
  /** Locks every expired lease with its job. */
  final String expiredLeases;
  /** The most dead rows of the queued-jobs and the leases tables. */
  final String deadRows;
  /** Vacuums the queued-jobs and the leases tables. */
  final String vacuum;

  // ---------------------------------------------------------------------------------------------- collectors

  /** Registers a collector unless the name is taken. */
  final String insertCollector;
  /** Flips a collector's active flag; counts 1 only when it changed. */
  final String setCollectorActive;
  /** A collector by name, retired or not, locked for update. */
  final String lockCollector;
  /**
   * A collector by name, retired or not, locked {@code FOR NO KEY UPDATE}: a claim taking a pending inventory,
   * which already holds the row's key-share lock, as may another claim of the collector waiting for the pool's
   * lock it holds; this lock does not wait for that one's key share (a {@code FOR UPDATE} would: a deadlock).
   */
  final String lockCollectorForInventory;
  /** A collector by name unless it retired and holds no lease live at the bound instant. */
  final String collectorByName;
  /** Every collector but those retired that hold no lease live at the bound instant. */
  final String allCollectors;
  /** Lists devices of a collector (those listed already stay). */
  final String insertCollectorDevices;
  /** Unlists the devices of a collector outside a set that no lease row holds. */
  final String unlistCollectorDevices;
  /** Replaces a collector's inventory state: devices, groups, pending devices and groups. */
  final String setCollectorInventory;
  /** Registers a collector afresh over a retired one's row. */
  final String replaceCollector;
  /** Marks a collector retiring and inactive. */
  final String retireCollector;
  /** Whether a collector holds a lease live at the bound instant. */
  final String holdsLiveLease;
  /** The devices of a collector that leases live at the bound instant hold. */
  final String liveHeldDevices;
  /** Serializes the GPU claims of one pool (a transaction-scoped advisory lock on its key). */
  final String lockGpuPool;
  /** The collectors of a tag that advertise devices. */
  final String gpuHosts;
  /** The live leases on devices of a tag's collectors: holder, job, devices, estimated end. */
  final String gpuHoldings;
  /** The oldest queued job of each GPU count of a tag, up to a count. */
  final String gpuCandidates;
  /** Deletes the GPU queued-jobs row of a job. */
  final String unlistGpuJob;
  /** The queued jobs of a tag with their (absent) leases, by id. */
  final String queuedJobsOfTag;
  /** The names of the collectors of a tag that are active with a heartbeat after a cut-off. */
  final String liveCollectorsOfTag;
  /** Inserts the held-device rows of a lease. */
  final String insertHeldDevices;
  /** Moves a collector's heartbeat forward (never backward). */
  final String touchCollector;

  // -------------------------------------------------------------------------------------------- fleet shares

  /** Every fleet share: cadence, pool, unit, amount, borrow. */
  final String allShares;
  /** The fleet shares of one pool, in the columns of {@link #allShares}. */
  final String sharesOfPool;
  /** Deletes every fleet share. */
  final String deleteShares;
  /** Inserts one fleet share. */
  final String insertShare;
  /** Locks the fleet-shares table against concurrent replacement. */
  final String lockShares;
  /** The specs of a pool's jobs with a lease (GPU budget, cadence). */
  final String leasedSpecsOfTag;
  /** The specs of a pool's queued jobs (GPU budget, cadence). */
  final String queuedSpecsOfTag;
  /** The queued jobs of a pool in claim order for a claimer, with their cadence (no lock taken). */
  final String shareCandidates;
  /** The queued GPU jobs of a pool with their GPU count, estimate and cadence, by id. */
  final String gpuQueuedOfTag;
  /** Locks the queued-jobs row of one job, unless another transaction holds it. */
  final String lockQueuedJob;

  // ------------------------------------------------------------------------------------ kept reservations

  /**
   * The reservation a pool kept: its job and host, then the job's GPU count, estimate and cadence when it is
   * still queued (NULLs otherwise).
   */
  final String keptReservation;
  /** Records the reservation of a pool (tag, job, host), replacing the one it kept. */
  final String keepReservation;
  /** Forgets the reservation of a pool. */
  final String forgetReservation;

  // ------------------------------------------------------------------------------------------------- results

  /** Inserts a job's result (the primary key refuses a second one). */
  final String insertResult;
  /** A job's result. */
  final String resultByJob;
  /** The results of a request's jobs, by job id. */
  final String resultsOfRequest;

  private final String jobFrom;

  QueueSql(PostgresQueueOptions options) {
    requests = options.sql("requests");
    jobs = options.sql("jobs");
    leases = options.sql("leases");
    queued = options.sql("queued");
    collectors = options.sql("collectors");
    control = options.sql("control");
    tokens = options.sql("lease_tokens");
    results = options.sql("results");
    gpuQueued = options.sql("gpu_queued");
    heldDevices = options.sql("held_devices");
    collectorDevices = options.sql("collector_devices");
    fleetShares = options.sql("fleet_shares");
    reservations = options.sql("reservations");
    pausedPools = options.sql("paused_pools");
    jobFrom = " FROM " + jobs + " j LEFT JOIN " + leases + " l ON l.job_id = j.id ";

    insertRequest = "INSERT INTO " + requests + " (kind, state, tag, parent_sha, pr, benchmark_groups, created_at)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id";
    insertCiRun = "INSERT INTO " + requests + " (kind, state, benchmark_groups, created_at, started_at, ci_repository,"
        + " ci_run_id, ci_attempt, ci_commit, ci_cadence, ci_event, ci_pr, ci_labels, ci_workflow, ci_concurrency_group)"
        + " VALUES ('CI_RUN', 'IN_PROGRESS', '{}', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id";
    lockCiRepository = "SELECT pg_advisory_xact_lock(hashtext(?))";
    ciRunByKey = requestsWhere("r.ci_repository = ? AND r.ci_run_id = ? AND r.ci_attempt = ?");
    openCiGroup = requestsWhere("r.kind = 'CI_RUN' AND r.state = 'IN_PROGRESS' AND r.ci_repository = ?"
        + " AND r.ci_concurrency_group = ? ORDER BY r.id FOR UPDATE");
    updateRequest = "UPDATE " + requests + " SET state = ?, tag = ?, parent_sha = ?, started_at = ?, finished_at = ?,"
        + " outcome = ?, parent_request = ?, cancel_reason = ?, superseded_by = ? WHERE id = ?";
    submitConflicts = requestsWhere("r.tag = ? OR (r.kind = ? AND r.pr = ? AND r.state IN " + OPEN + ") ORDER BY r.id");
    knownTags = "SELECT tag FROM " + requests + " WHERE tag = ANY (?)";
    lockControl = "SELECT id FROM " + control + " WHERE id = 1 FOR UPDATE";
    countInProgress = "SELECT count(*) FROM " + requests + " WHERE state = 'IN_PROGRESS' AND kind <> 'CI_RUN'";
    insertJob = "INSERT INTO " + jobs + " (request_id, benchmark_group, collector_tag, optional, state, attempt,"
        + " crash_rescues, transient_retries, created_at, gpus, estimate_micros, cadence, timeout_micros, args)"
        + " VALUES (?, ?, ?, ?, 'QUEUED', 0, 0, 0, ?, ?, ?, ?, ?, ?)"
        + " ON CONFLICT ON CONSTRAINT " + options.object("jobs_key") + " DO NOTHING RETURNING id";
    jobCounts = "SELECT count(*) FILTER (WHERE NOT optional AND state IN ('QUEUED', 'LEASED')),"
        + " count(*) FILTER (WHERE NOT optional AND state = 'SUCCEEDED'),"
        + " count(*) FILTER (WHERE NOT optional AND state = 'FAILED'),"
        + " count(*) FILTER (WHERE state = 'FAILED') FROM " + jobs + " WHERE request_id = ?";
    unlistQueuedJobsOfRequest = "WITH ids AS (SELECT id FROM " + jobs + " WHERE request_id = ?"
        + " AND state = 'QUEUED'), cpu AS (DELETE FROM " + queued + " WHERE job_id IN (SELECT id FROM ids))"
        + " DELETE FROM " + gpuQueued + " WHERE job_id IN (SELECT id FROM ids)";
    cancelQueuedJobsOfRequest = "UPDATE " + jobs + " SET state = 'CANCELLED', finished_at = ?"
        + " WHERE request_id = ? AND state = 'QUEUED'";
    flagLeasesOfRequest = "UPDATE " + leases + " SET cancel_requested = true WHERE NOT cancel_requested"
        + " AND job_id IN (SELECT id FROM " + jobs + " WHERE request_id = ? AND state = 'LEASED')";
    unlistedQueuedJobs = "SELECT j.id, j.request_id FROM " + jobs + " j WHERE j.request_id = ANY (?)"
        + " AND j.state = 'QUEUED' AND NOT EXISTS (SELECT 1 FROM " + queued + " q WHERE q.job_id = j.id)"
        + " AND NOT EXISTS (SELECT 1 FROM " + gpuQueued + " g WHERE g.job_id = j.id)"
        + " ORDER BY j.id";

    lockJob = "SELECT id FROM " + jobs + " WHERE id = ? FOR UPDATE";
    jobById = "SELECT " + JOB_COLS + jobFrom + "WHERE j.id = ?";
    jobsOfRequest = "SELECT " + JOB_COLS + jobFrom + "WHERE j.request_id = ? ORDER BY j.id";
    updateJob = "UPDATE " + jobs + " SET state = ?, attempt = ?, crash_rescues = ?, transient_retries = ?,"
        + " affinity = ?, failure_reason = ?, failure_detail = ?, failure_at = ?, last_error = ?, finished_at = ?"
        + " WHERE id = ?";
    deleteLease = "DELETE FROM " + leases + " WHERE job_id = ? AND attempt = ? AND token = ?";
    insertLease = "INSERT INTO " + leases + " (job_id, attempt, token, expires_at, collector, collector_tag,"
        + " devices) VALUES (?, ?, ?, ?, ?, ?, ?)";
    attempts = options.sql("job_attempts");
    insertAttempt = "INSERT INTO " + attempts + " (job_id, attempt, collector, devices, started_at)"
        + " VALUES (?, ?, ?, ?, ?)";
    endAttempt = "UPDATE " + attempts + " SET ended_at = ?, outcome = ?, error = ? WHERE job_id = ? AND attempt = ?"
        + " AND outcome IS NULL";
    attemptsOfJob = "SELECT attempt, collector, devices, started_at, ended_at, outcome, error FROM " + attempts
        + " WHERE job_id = ? ORDER BY attempt";
    unlistJob = "DELETE FROM " + queued + " WHERE job_id = ?";
    nextTokens = "SELECT nextval('" + tokens + "') FROM generate_series(1, ?)";

    claim = claimSql();
    completeAndClaim = completeAndClaimSql();
    String live = "EXISTS (SELECT 1 FROM " + leases + " l WHERE l.collector = c.name AND l.expires_at > ?)";
    collectorTagAndActive = "SELECT tag, active, cardinality(devices) > 0, pending_devices IS NOT NULL,"
        + " retiring AND NOT " + live + " FROM " + collectors + " c WHERE name = ? FOR KEY SHARE OF c";
    lockOwnQueued = "SELECT q.job_id FROM " + queued + " q WHERE q.collector_tag = ? AND q.affinity = ?"
        + " ORDER BY q.job_id LIMIT ? FOR UPDATE OF q SKIP LOCKED";
    lockOtherQueued = "SELECT q.job_id FROM " + queued + " q WHERE q.collector_tag = ?"
        + " AND (q.affinity IS NULL OR (q.affinity <> ? AND NOT EXISTS (SELECT 1 FROM " + collectors
        + " c WHERE c.name = q.affinity AND c.active AND c.last_heartbeat_at > ?)))"
        + " ORDER BY q.job_id LIMIT ? FOR UPDATE OF q SKIP LOCKED";

    renewLease = "UPDATE " + leases + " SET expires_at = ? WHERE job_id = ? AND attempt = ? AND token = ?"
        + " AND expires_at > ? AND NOT cancel_requested RETURNING collector";
    complete = completeSql();
    completeAll = completeAllSql();

    String expired = "SELECT " + JOB_COLS + " FROM " + leases + " l JOIN " + jobs + " j ON j.id = l.job_id WHERE ";
    String expiredTail = "l.expires_at <= ? ORDER BY j.id FOR UPDATE OF j, l SKIP LOCKED";
    expiredLeasesOfTag = expired + "l.collector_tag = ? AND " + expiredTail;
    expiredLeases = expired + expiredTail;
    deadRows = "SELECT coalesce(max(n_dead_tup), 0) FROM pg_stat_user_tables WHERE relid IN (?::regclass,"
        + " ?::regclass)";
    vacuum = "VACUUM (SKIP_LOCKED) " + queued + ", " + leases;

    insertCollector = "INSERT INTO " + collectors + " (name, tag, active, registered_at, last_heartbeat_at,"
        + " devices, device_groups) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING";
    insertCollectorDevices = "INSERT INTO " + collectorDevices + " (collector, device) SELECT ?, unnest(?::int[])"
        + " ON CONFLICT DO NOTHING";
    unlistCollectorDevices = "DELETE FROM " + collectorDevices + " cd WHERE cd.collector = ? AND NOT (cd.device = ANY"
        + " (?::int[])) AND NOT EXISTS (SELECT 1 FROM " + heldDevices + " h WHERE h.collector = cd.collector"
        + " AND h.device = cd.device)";
    setCollectorInventory = "UPDATE " + collectors + " SET devices = ?, device_groups = ?, pending_devices = ?,"
        + " pending_device_groups = ? WHERE name = ?";
    replaceCollector = "UPDATE " + collectors + " SET tag = ?, active = ?, registered_at = ?, last_heartbeat_at = ?,"
        + " devices = ?, device_groups = ?, pending_devices = NULL, pending_device_groups = NULL, retiring = false"
        + " WHERE name = ?";
    retireCollector = "UPDATE " + collectors + " SET active = false, retiring = true WHERE name = ?";
    holdsLiveLease = "SELECT EXISTS (SELECT 1 FROM " + leases + " WHERE collector = ? AND expires_at > ?)";
    liveHeldDevices = "SELECT h.device FROM " + heldDevices + " h JOIN " + leases + " l ON l.job_id = h.job_id"
        + " WHERE h.collector = ? AND l.expires_at > ?";
    lockGpuPool = "SELECT pg_advisory_xact_lock(hashtext(?))";
    gpuHosts = "SELECT name, active, last_heartbeat_at, devices, device_groups, pending_devices,"
        + " pending_device_groups FROM " + collectors + " WHERE tag = ? AND cardinality(devices) > 0 ORDER BY name";
    gpuHoldings = "SELECT h.collector, h.job_id, array_agg(h.device ORDER BY h.device), min(h.estimated_end)"
        + " FROM " + heldDevices + " h JOIN " + collectors + " c ON c.name = h.collector JOIN " + leases
        + " l ON l.job_id = h.job_id AND l.expires_at > ? WHERE c.tag = ?"
        + " GROUP BY h.collector, h.job_id ORDER BY h.collector, h.job_id";
    gpuCandidates = "SELECT g.n, q.job_id, q.estimate_micros FROM generate_series(1, ?) g(n) CROSS JOIN LATERAL"
        + " (SELECT q.job_id, q.estimate_micros FROM " + gpuQueued + " q JOIN " + jobs + " j ON j.id = q.job_id"
        + " AND j.state = 'QUEUED' WHERE q.collector_tag = ? AND q.gpus = g.n ORDER BY q.job_id LIMIT 1) q";
    unlistGpuJob = "DELETE FROM " + gpuQueued + " WHERE job_id = ?";
    queuedJobsOfTag = "SELECT " + JOB_COLS + jobFrom + "WHERE j.collector_tag = ? AND j.state = 'QUEUED' ORDER BY j.id";
    liveCollectorsOfTag = "SELECT name FROM " + collectors + " WHERE tag = ? AND active AND last_heartbeat_at > ?";
    insertHeldDevices = "INSERT INTO " + heldDevices + " (collector, device, job_id, estimated_end)"
        + " SELECT ?, unnest(?::int[]), ?, ?";
    setCollectorActive = "UPDATE " + collectors + " SET active = ? WHERE name = ? AND active <> ?";
    lockCollector = "SELECT " + QueueRows.COLLECTOR_COLS + " FROM " + collectors + " WHERE name = ? FOR UPDATE";
    lockCollectorForInventory = "SELECT " + QueueRows.COLLECTOR_COLS + " FROM " + collectors
        + " WHERE name = ? FOR NO KEY UPDATE";
    collectorByName = "SELECT " + QueueRows.COLLECTOR_COLS + " FROM " + collectors + " c WHERE name = ?"
        + " AND (NOT retiring OR " + live + ")";
    allCollectors = "SELECT " + QueueRows.COLLECTOR_COLS + " FROM " + collectors + " c WHERE NOT retiring OR " + live;
    String resultCols = "SELECT job_id, request_id, attempt, collector, stored_at, payload FROM " + results;
    insertResult = "INSERT INTO " + results + " (job_id, request_id, attempt, collector, stored_at, payload)"
        + " VALUES (?, ?, ?, ?, ?, ?)";
    resultByJob = resultCols + " WHERE job_id = ?";
    resultsOfRequest = resultCols + " WHERE request_id = ? ORDER BY job_id";
    allShares = "SELECT cadence, pool, unit, amount, borrow FROM " + fleetShares + " ORDER BY pool, cadence";
    sharesOfPool = "SELECT cadence, pool, unit, amount, borrow FROM " + fleetShares + " WHERE pool = ?"
        + " ORDER BY cadence";
    deleteShares = "DELETE FROM " + fleetShares;
    insertShare = "INSERT INTO " + fleetShares + " (cadence, pool, unit, amount, borrow) VALUES (?, ?, ?, ?, ?)";
    lockShares = "LOCK TABLE " + fleetShares + " IN SHARE ROW EXCLUSIVE MODE";
    leasedSpecsOfTag = "SELECT j.gpus, j.cadence FROM " + leases + " l JOIN " + jobs + " j ON j.id = l.job_id"
        + " WHERE l.collector_tag = ? AND l.expires_at > ?";
    queuedSpecsOfTag = "SELECT j.gpus, j.cadence FROM " + jobs + " j WHERE j.collector_tag = ? AND j.state = 'QUEUED'";
    shareCandidates = "SELECT q.job_id, j.cadence FROM " + queued + " q JOIN " + jobs + " j ON j.id = q.job_id"
        + " WHERE q.collector_tag = ? AND j.state = 'QUEUED' AND (q.affinity IS NULL OR q.affinity = ?"
        + " OR NOT EXISTS (SELECT 1 FROM " + collectors + " c WHERE c.name = q.affinity AND c.active"
        + " AND c.last_heartbeat_at > ?)) ORDER BY (q.affinity IS NOT DISTINCT FROM ?) DESC, q.job_id";
    gpuQueuedOfTag = "SELECT q.gpus, q.job_id, q.estimate_micros, j.cadence FROM " + gpuQueued + " q JOIN " + jobs
        + " j ON j.id = q.job_id AND j.state = 'QUEUED' WHERE q.collector_tag = ? ORDER BY q.job_id";
    lockQueuedJob = "SELECT q.job_id FROM " + queued + " q WHERE q.job_id = ? FOR UPDATE OF q SKIP LOCKED";
    keptReservation = "SELECT r.job_id, r.host, g.gpus, g.estimate_micros, g.cadence FROM " + reservations + " r"
        + " LEFT JOIN (SELECT q.job_id, q.gpus, q.estimate_micros, j.cadence FROM " + gpuQueued + " q JOIN " + jobs
        + " j ON j.id = q.job_id AND j.state = 'QUEUED') g ON g.job_id = r.job_id WHERE r.collector_tag = ?";
    keepReservation = "INSERT INTO " + reservations + " (collector_tag, job_id, host) VALUES (?, ?, ?)"
        + " ON CONFLICT (collector_tag) DO UPDATE SET job_id = EXCLUDED.job_id, host = EXCLUDED.host";
    forgetReservation = "DELETE FROM " + reservations + " WHERE collector_tag = ?";
    touchCollector = "UPDATE " + collectors + " SET last_heartbeat_at = ? WHERE name = ? AND last_heartbeat_at < ?";
  }

  /** The requests matching a condition on {@code r} (which may end with an ORDER BY or a lock clause). */
  String requestsWhere(String condition) {
    return "SELECT " + REQUEST_COLS + " FROM " + requests + " r WHERE " + condition;
  }

  /**
   * The claim fast path, one statement: when the collector is active with the known tag and no lease of the
   * tag has expired, lock rows of the queued-jobs table ({@code FOR UPDATE SKIP LOCKED}; affinity to the
   * claimer first, then the others, each by job id), lease their jobs, delete the locked rows, insert the
   * leases and refresh the heartbeat. A locked row whose job is not queued (its state edited by hand) is
   * deleted and its job left alone. The jobs are found by {@code id = ANY (ARRAY(...))}, which the planner
   * serves from the primary key; a join against the picked rows was planned as a hash join over the whole
   * jobs table. It binds the lease duration and the collector timeout (microseconds), now (NULL: the
   * server's {@code statement_timestamp()}), the collector, its tag and the limit, in the order
   * {@link QueueClaims#bind} sets them; the lease expiry and the affinity cut-off are computed from now. Columns: the claimed job
   * rows with their new lease as in {@link #JOB_COLS} (in claim order), then whether the fast path applied,
   * how many leases it inserted and how many queued-jobs rows it locked (more than it claimed when some were
   * stale); one row with null job columns when it claimed none.
   */
  private String claimSql() {
    // The store's now, read once: the bound instant (a test clock's) or the server's statement_timestamp();
    // the lease expiry and the affinity cut-off are derived from it here, in whole microseconds.
    return "WITH " + NOW_CTE + "," + claimCtes("")
        + " touched AS (UPDATE " + collectors + " SET last_heartbeat_at = (SELECT n FROM t) WHERE name = ?::text"
        + " AND EXISTS (SELECT 1 FROM go) AND last_heartbeat_at < (SELECT n FROM t) RETURNING 1)"
        + " SELECT " + CLAIMED_COLS + ", EXISTS (SELECT 1 FROM go), (SELECT count(*) FROM leased),"
        + " (SELECT count(*) FROM picked)"
        + " FROM (SELECT 1) one LEFT JOIN (SELECT c.*, p.pass FROM claimed c JOIN picked p ON p.id = c.id) j"
        + " ON true ORDER BY j.pass, j.id";
  }

  /**
   * The common table expressions of the claim fast path from {@code go} (whether it applies) to {@code leased}
   * (the inserted leases), each followed by a comma; {@code goAlso} is one more condition of {@code go}. They
   * bind the collector, its tag (three times), the collector, the limit, the tag, the collector, the limit
   * twice and the collector again, and read {@code t} ({@link #NOW_CTE}).
   */
  private String claimCtes(String goAlso) {
    String notGone = "NOT EXISTS (SELECT 1 FROM " + collectors + " c WHERE c.name = q.affinity AND c.active"
        + " AND c.last_heartbeat_at > (SELECT cutoff FROM t))";
    return " go AS (SELECT 1 FROM " + collectors + " WHERE name = ?::text AND tag = ?::text AND active"
        // A collector with devices claims GPU jobs first, in the full path; so does any claim of a pool
        // with fleet shares, whose check needs the pool's lock.
        + " AND cardinality(devices) = 0 AND NOT EXISTS (SELECT 1 FROM " + fleetShares + " s WHERE s.pool = tag)"
        // A paused pool claims nothing: its claims take the full path, which returns no claim.
        + " AND NOT EXISTS (SELECT 1 FROM " + pausedPools + " pp WHERE pp.pool = tag)"
        + " AND NOT EXISTS (SELECT 1 FROM " + leases + " WHERE collector_tag = ?::text"
        + " AND expires_at <= (SELECT n FROM t))" + goAlso
        // The collector row's key-share lock: a retirement (or registration) holds the row FOR UPDATE from its
        // check for live leases to its commit, so a claim waits for it and then re-reads the row (inactive:
        // no claim), or holds the lock first and the retirement then sees the lease it took.
        + " FOR KEY SHARE),"
        + " own AS (SELECT q.job_id AS id FROM " + queued + " q WHERE EXISTS (SELECT 1 FROM go)"
        + " AND q.collector_tag = ?::text AND q.affinity = ?::text ORDER BY q.job_id LIMIT ?::int"
        + " FOR UPDATE OF q SKIP LOCKED),"
        // Each pass is limited by a bound parameter (a limit computed from the first pass made the planner
        // guess a tenth of the table); rows locked beyond the overall limit are released at the commit.
        + " other AS (SELECT q.job_id AS id FROM " + queued + " q WHERE EXISTS (SELECT 1 FROM go)"
        + " AND q.collector_tag = ?::text AND (q.affinity IS NULL OR (q.affinity <> ?::text AND " + notGone + "))"
        + " ORDER BY q.job_id LIMIT ?::int FOR UPDATE OF q SKIP LOCKED),"
        + " picked AS (SELECT id, pass FROM (SELECT id, 0 AS pass FROM own UNION ALL SELECT id, 1 FROM other) u"
        + " ORDER BY pass, id LIMIT ?::int),"
        // The values Job.claimed(lease) gives: leased, next attempt, affinity to the claimer, no failure.
        + " claimed AS (UPDATE " + jobs + " j SET state = 'LEASED', attempt = j.attempt + 1, affinity = ?::text,"
        + " failure_reason = NULL, failure_detail = NULL, failure_at = NULL, finished_at = NULL"
        + " WHERE j.id = ANY (ARRAY(SELECT id FROM picked)) AND j.state = 'QUEUED'"
        + " RETURNING j.*, nextval('" + tokens + "') AS token),"
        + " dequeued AS (DELETE FROM " + queued + " q WHERE q.job_id = ANY (ARRAY(SELECT id FROM picked))"
        + " RETURNING q.job_id),"
        + " leased AS (INSERT INTO " + leases + " (job_id, attempt, token, expires_at, collector, collector_tag)"
        + " SELECT id, attempt, token, (SELECT expiry FROM t), ?::text, collector_tag FROM claimed"
        + " RETURNING job_id, attempt, collector),"
        // The attempt each lease starts (QueueStore.attempts), at the claim's now.
        + " attempted AS (INSERT INTO " + attempts + " (job_id, attempt, collector, started_at)"
        + " SELECT job_id, attempt, collector, (SELECT n FROM t) FROM leased RETURNING 1),";
  }

  /**
   * The completion fast path, one statement: when the lease is live, fenced by (job, attempt, token), not
   * flagged for cancellation and its job is leased, mark the job succeeded, end the lease and refresh the
   * holder's heartbeat. It binds the job, attempt, token and now (NULL: the server's
   * {@code statement_timestamp()}, so the store's clock costs no statement of its own), in the order
   * {@code QueueLeases.completeFast} sets them. Columns: the succeeded job row as in {@link #JOB_COLS} (no
   * lease), then how many leases it ended; no row when the fast path does not apply.
   */
  private String completeSql() {
    return "WITH l AS (SELECT job_id, collector FROM " + leases + " WHERE job_id = ?::bigint AND attempt = ?::int"
        + " AND token = ?::bigint AND expires_at > " + NOW + " AND NOT cancel_requested FOR UPDATE),"
        // The values Job.succeeded(now) gives: succeeded, finished now, no failure, the rest kept.
        + " done AS (UPDATE " + jobs + " j SET state = 'SUCCEEDED', finished_at = " + NOW + ","
        + " failure_reason = NULL, failure_detail = NULL, failure_at = NULL FROM l WHERE j.id = l.job_id"
        + " AND j.state = 'LEASED' AND j.attempt = ?::int RETURNING j.*),"
        + " ended AS (DELETE FROM " + leases + " x USING done WHERE x.job_id = done.id RETURNING x.job_id),"
        + finishedAttempts()
        + " touched AS (UPDATE " + collectors + " c SET last_heartbeat_at = " + NOW + " FROM l, done"
        + " WHERE c.name = l.collector AND c.last_heartbeat_at < " + NOW + " RETURNING 1)"
        + " SELECT " + DONE_COLS + ","
        + " (SELECT count(*) FROM ended)"
        + " FROM done j";
  }

  /**
   * A completion and the next claim of a one-job-at-a-time collector in one auto-committed statement: the
   * completion fast path ({@link #completeSql}) and, only when it ended the lease, the claim fast path
   * ({@link #claimSql}) under the same conditions, reading one now. The holder's and the claimer's heartbeats
   * are refreshed by one update (they are usually the same row, which one statement may change only once).
   * It binds the lease duration and the collector timeout (microseconds), now (NULL: the server's
   * {@code statement_timestamp()}), the lease's job, attempt and token, the attempt again, then the claim's
   * collector, tag and limits in the order {@code QueueClaims.completeAndClaimFast} sets them. Columns: 1–28
   * a job row as in {@link #JOB_COLS}, 29 how many leases the completion ended, 30 whether the claim's fast
   * path applied, 31 how many leases it inserted, 32 how many queued-jobs rows it locked, 33 the part (0 the
   * completed job, 1 a claimed job, or one row with null job columns when none was claimed), 34 the claim
   * order. No row of part 0 when the completion's fast path did not apply: then the statement wrote nothing.
   */
  private String completeAndClaimSql() {
    return "WITH " + NOW_CTE + ","
        + " l AS (SELECT job_id, collector FROM " + leases + " WHERE job_id = ?::bigint AND attempt = ?::int"
        + " AND token = ?::bigint AND expires_at > (SELECT n FROM t) AND NOT cancel_requested FOR UPDATE),"
        // The values Job.succeeded(now) gives: succeeded, finished now, no failure, the rest kept.
        + " done AS (UPDATE " + jobs + " j SET state = 'SUCCEEDED', finished_at = (SELECT n FROM t),"
        + " failure_reason = NULL, failure_detail = NULL, failure_at = NULL FROM l WHERE j.id = l.job_id"
        + " AND j.state = 'LEASED' AND j.attempt = ?::int RETURNING j.*),"
        + " ended AS (DELETE FROM " + leases + " x USING done WHERE x.job_id = done.id RETURNING x.job_id),"
        + finishedAttempts()
        // The claim applies as its own fast path would, and only after a completion that ended the lease.
        + claimCtes(" AND EXISTS (SELECT 1 FROM done)")
        + " touched AS (UPDATE " + collectors + " c SET last_heartbeat_at = (SELECT n FROM t)"
        + " WHERE c.last_heartbeat_at < (SELECT n FROM t) AND ((c.name = (SELECT collector FROM l)"
        + " AND EXISTS (SELECT 1 FROM done)) OR (c.name = ?::text AND EXISTS (SELECT 1 FROM go))) RETURNING 1)"
        + " SELECT " + DONE_COLS + ","
        + " (SELECT count(*) FROM ended) AS ended, NULL::boolean AS go, NULL::bigint AS leased,"
        + " NULL::bigint AS picked, 0 AS part, 0 AS ord"
        + " FROM done j"
        + " UNION ALL"
        + " SELECT " + CLAIMED_COLS + ", NULL::bigint,"
        + " EXISTS (SELECT 1 FROM go), (SELECT count(*) FROM leased), (SELECT count(*) FROM picked), 1, j.pass"
        + " FROM (SELECT 1) one LEFT JOIN (SELECT c.*, p.pass FROM claimed c JOIN picked p ON p.id = c.id) j"
        + " ON true ORDER BY part, ord, id";
  }

  /**
   * The batch completion fast path, one statement: {@link #completeSql} over the items of a batch, given as
   * three arrays (jobs, attempts, tokens) that {@code unnest} pairs up. Each item whose lease is live, fenced
   * by (job, attempt, token), not flagged for cancellation and whose job is leased is marked succeeded and
   * its lease ended; the holders' heartbeats are refreshed once. Lease rows are locked in job order. It binds
   * the three arrays, the job ids again and now (NULL: the server's {@code statement_timestamp()}), in the
   * order {@code QueueLeases.completeAllFast} sets them.
   * Columns: one succeeded job row per applied item as in {@link #JOB_COLS} (no lease), then how many leases
   * it ended in all; no row for an item the fast path did not apply to.
   */
  private String completeAllSql() {
    return "WITH b AS (SELECT * FROM unnest(?::bigint[], ?::int[], ?::bigint[]) AS b(job_id, attempt, token)),"
        + " l AS (SELECT x.job_id, x.attempt, x.collector FROM " + leases + " x JOIN b ON x.job_id = b.job_id"
        // The job ids once more as an index condition: joined only against the unnested items, the planner
        // chose a hash join over a sequential scan of the leases, whose heap holds every lease deleted since
        // the last vacuum.
        + " AND x.attempt = b.attempt AND x.token = b.token WHERE x.job_id = ANY (?::bigint[])"
        + " AND x.expires_at > " + NOW + " AND NOT x.cancel_requested ORDER BY x.job_id FOR UPDATE OF x),"
        // The values Job.succeeded(now) gives: succeeded, finished now, no failure, the rest kept.
        + " done AS (UPDATE " + jobs + " j SET state = 'SUCCEEDED', finished_at = " + NOW + ","
        + " failure_reason = NULL, failure_detail = NULL, failure_at = NULL FROM l WHERE j.id = l.job_id"
        + " AND j.state = 'LEASED' AND j.attempt = l.attempt RETURNING j.*),"
        + " ended AS (DELETE FROM " + leases + " x USING done WHERE x.job_id = done.id RETURNING x.job_id),"
        + finishedAttempts()
        + " touched AS (UPDATE " + collectors + " c SET last_heartbeat_at = " + NOW + " FROM (SELECT DISTINCT"
        + " l.collector FROM l JOIN done ON done.id = l.job_id) h WHERE c.name = h.collector"
        + " AND c.last_heartbeat_at < " + NOW + " RETURNING 1)"
        + " SELECT " + DONE_COLS + ","
        + " (SELECT count(*) FROM ended)"
        + " FROM done j";
  }
}
