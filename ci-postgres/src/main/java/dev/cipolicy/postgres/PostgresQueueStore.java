package dev.cipolicy.postgres;

import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.Claim;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.Collector;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.Failure;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import dev.cipolicy.queue.spi.InvalidQueueInputException;
import dev.cipolicy.queue.spi.Job;
import dev.cipolicy.queue.spi.JobFailure;
import dev.cipolicy.queue.spi.JobId;
import dev.cipolicy.queue.spi.JobSpec;
import dev.cipolicy.queue.spi.JobState;
import dev.cipolicy.queue.spi.Lease;
import dev.cipolicy.queue.spi.LeaseRef;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.NewRequest;
import dev.cipolicy.queue.spi.Outcome;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.Request;
import dev.cipolicy.queue.spi.RequestId;
import dev.cipolicy.queue.spi.RequestKind;
import dev.cipolicy.queue.spi.RequestScan;
import dev.cipolicy.queue.spi.RequestState;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL {@link QueueStore}: every operation is one JDBC transaction of prepared statements on a
 * host-supplied {@link DataSource}, and every invariant holds inside the database, so any number of site and
 * collector processes may share one schema. The hot operations, {@link #claim}, {@link #complete} and
 * {@link #completeAll}, first try one auto-committed statement that does the whole operation when its usual
 * conditions hold (one round trip, one commit; for a batch, one for all its live items) and writes nothing
 * otherwise; the full transaction then runs (for a batch, per item the statement did not apply to).
 *
 * <ul>
 *   <li>Unique tags and one open request per (PR, kind): a unique constraint and a partial unique index;
 *       inserts use {@code ON CONFLICT DO NOTHING} and report the existing row.
 *   <li>Unique job key (request, group, tag): a unique constraint; a duplicate job is
 *       {@code INSERT ... ON CONFLICT DO NOTHING}, counted as existing.
 *   <li>At most K requests in progress: {@link #startRequest} locks the single control row
 *       ({@code SELECT ... FOR UPDATE}) before it counts and starts, so starts from all sites are serialized.
 *   <li>At most one live lease per job: claims lock rows of the queued-jobs table with
 *       {@code FOR UPDATE SKIP LOCKED}, lease only jobs still queued and delete the locked rows; the lease is
 *       a row keyed by job id in the narrow leases table.
 *   <li>Every queued job is claimable: triggers on the jobs table list a job in the queued-jobs table when it
 *       becomes queued (schema v4, ADR 0003), and notify waiting collectors (v5,
 *       {@link PostgresQueueWakeups}).
 *   <li>Fencing: lease updates and deletes are {@code WHERE job_id = ? AND attempt = ? AND token = ?}.
 * </ul>
 *
 * <p>The tables live in a schema under a prefix the host chooses ({@link PostgresQueueOptions}). A row that
 * no legal sequence of operations produces (edited by hand past the CHECK constraints, or across rows where
 * no constraint reaches) is reported as an {@link ImpossibleRowException} naming the table, row key, column
 * and value; {@link #scanOpenRequests()}, {@link #scanInProgressRequests()} and {@link #expireLeases} report
 * such rows as values and go on with the others. A lost connection is a
 * {@link QueueStoreUnavailableException} naming the operation and whether it may have committed. The store
 * never reads a clock.
 */
public final class PostgresQueueStore implements QueueStore {

  private static final int MAX_TRIES = 50;
  /** Dead rows in the queued-jobs or the leases table from which {@link #expireLeases} vacuums them. */
  static final long VACUUM_DEAD_ROWS = 5_000;
  /** Request scans per check for queued jobs missing from the queued-jobs table (a hand-edit diagnostic). */
  static final int UNLISTED_CHECK_EVERY = 10;
  /** Serialization failure, deadlock, unique violation: the operation re-runs and re-checks its condition. */
  private static final Set<String> RETRYABLE = Set.of("40001", "40P01", "23505");

  /**
   * SQLSTATEs of a lost connection: class 08 (connection exception), and the server ending the session
   * (admin_shutdown after pg_terminate_backend or a fast shutdown, crash_shutdown, cannot_connect_now).
   */
  private static final Set<String> CONNECTION_LOST = Set.of("57P01", "57P02", "57P03");

  private static final String REQUEST_COLS = PostgresRows.REQUEST_COLS;
  private static final String JOB_COLS = PostgresRows.JOB_COLS;

  private final DataSource dataSource;
  private final PostgresQueueOptions options;
  private final String schema;
  private final PostgresRows rows;
  private final String requests;
  private final String jobs;
  private final String leases;
  private final String queued;
  private final String collectors;
  private final String control;
  private final String tokens;
  private final String jobFrom;
  private final String claimSql;
  private final String completeSql;
  private final String completeAllSql;
  /**
   * Collector name to tag, learnt by claims. A registered collector's tag never changes, so the claim fast
   * path can name the tag as a parameter (which lets the planner use the claim indexes); the statement still
   * checks it against the row and falls back to the full path when they differ.
   */
  private final ConcurrentHashMap<String, String> collectorTags = new ConcurrentHashMap<>();
  private volatile @Nullable String maintenanceProblem;
  private final java.util.concurrent.atomic.AtomicLong scans = new java.util.concurrent.atomic.AtomicLong();

  private PostgresQueueStore(DataSource dataSource, PostgresQueueOptions options) {
    if (dataSource == null) {
      throw new InvalidQueueInputException("the PostgreSQL queue store needs a DataSource; got none");
    }
    if (options == null) {
      throw new InvalidQueueInputException("the PostgreSQL queue store needs its options (schema, table prefix);"
          + " got none");
    }
    this.dataSource = dataSource;
    this.options = options;
    this.schema = options.schema();
    this.rows = new PostgresRows(options);
    this.requests = options.sql("requests");
    this.jobs = options.sql("jobs");
    this.leases = options.sql("leases");
    this.queued = options.sql("queued");
    this.collectors = options.sql("collectors");
    this.control = options.sql("control");
    this.tokens = options.sql("lease_tokens");
    this.jobFrom = " FROM " + jobs + " j LEFT JOIN " + leases + " l ON l.job_id = j.id ";
    this.claimSql = claimSql();
    this.completeSql = completeSql();
    this.completeAllSql = completeAllSql();
  }

  /**
   * The claim fast path, one statement: when the collector is active with the known tag and no lease of the
   * tag has expired, lock rows of the queued-jobs table ({@code FOR UPDATE SKIP LOCKED}; affinity to the
   * claimer first, then the others, each by job id), lease their jobs, delete the locked rows, insert the
   * leases and refresh the heartbeat. A locked row whose job is not queued (its state edited by hand) is
   * deleted and its job left alone. The jobs are found by {@code id = ANY (ARRAY(...))}, which the planner
   * serves from the primary key; a join against the picked rows was planned as a hash join over the whole
   * jobs table. It binds the collector, its tag, now, the limit, the affinity cut-off (now - collector
   * timeout) and the lease expiry, in the order {@link #bindClaim} sets them. Columns: the claimed job rows
   * with their new lease as in {@link #JOB_COLS} (in claim order), then whether the fast path applied, how
   * many leases it inserted and how many queued-jobs rows it locked (more than it claimed when some were stale);
   * one row with null job columns when it claimed none.
   */
  private String claimSql() {
    String notGone = "NOT EXISTS (SELECT 1 FROM " + collectors + " c WHERE c.name = q.affinity AND c.active"
        + " AND c.last_heartbeat_at > ?::timestamptz)";
    return "WITH go AS (SELECT 1 FROM " + collectors + " WHERE name = ?::text AND tag = ?::text AND active"
        + " AND NOT EXISTS (SELECT 1 FROM " + leases + " WHERE collector_tag = ?::text"
        + " AND expires_at <= ?::timestamptz)),"
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
        + " SELECT id, attempt, token, ?::timestamptz, ?::text, collector_tag FROM claimed RETURNING job_id),"
        + " touched AS (UPDATE " + collectors + " SET last_heartbeat_at = ?::timestamptz WHERE name = ?::text"
        + " AND EXISTS (SELECT 1 FROM go) AND last_heartbeat_at < ?::timestamptz RETURNING 1)"
        + " SELECT j.id, j.request_id, j.benchmark_group, j.collector_tag, j.optional, j.state, j.attempt,"
        + " j.crash_rescues, j.transient_retries, j.affinity, j.failure_reason, j.failure_detail, j.failure_at,"
        + " j.last_error, j.created_at, j.finished_at, j.attempt, j.token, ?::timestamptz, ?::text, false,"
        + " j.collector_tag, EXISTS (SELECT 1 FROM go), (SELECT count(*) FROM leased), (SELECT count(*) FROM picked)"
        + " FROM (SELECT 1) one LEFT JOIN (SELECT c.*, p.pass FROM claimed c JOIN picked p ON p.id = c.id) j"
        + " ON true ORDER BY j.pass, j.id";
  }

  /**
   * The completion fast path, one statement: when the lease is live, fenced by (job, attempt, token), not
   * flagged for cancellation and its job is leased, mark the job succeeded, end the lease and refresh the
   * holder's heartbeat. It binds the job, attempt, token and now, in the order {@link #completeFast} sets
   * them. Columns: the succeeded job row as in
   * {@link #JOB_COLS} (no lease), then how many leases it ended; no row when the fast path does not apply.
   */
  private String completeSql() {
    return "WITH l AS (SELECT job_id, collector FROM " + leases + " WHERE job_id = ?::bigint AND attempt = ?::int"
        + " AND token = ?::bigint AND expires_at > ?::timestamptz AND NOT cancel_requested FOR UPDATE),"
        // The values Job.succeeded(now) gives: succeeded, finished now, no failure, the rest kept.
        + " done AS (UPDATE " + jobs + " j SET state = 'SUCCEEDED', finished_at = ?::timestamptz,"
        + " failure_reason = NULL, failure_detail = NULL, failure_at = NULL FROM l WHERE j.id = l.job_id"
        + " AND j.state = 'LEASED' AND j.attempt = ?::int RETURNING j.*),"
        + " ended AS (DELETE FROM " + leases + " x USING done WHERE x.job_id = done.id RETURNING x.job_id),"
        + " touched AS (UPDATE " + collectors + " c SET last_heartbeat_at = ?::timestamptz FROM l, done"
        + " WHERE c.name = l.collector AND c.last_heartbeat_at < ?::timestamptz RETURNING 1)"
        + " SELECT j.id, j.request_id, j.benchmark_group, j.collector_tag, j.optional, j.state, j.attempt,"
        + " j.crash_rescues, j.transient_retries, j.affinity, j.failure_reason, j.failure_detail, j.failure_at,"
        + " j.last_error, j.created_at, j.finished_at, NULL::int, NULL::bigint, NULL::timestamptz, NULL::text,"
        + " NULL::boolean, NULL::text, (SELECT count(*) FROM ended) FROM done j";
  }

  /**
   * The batch completion fast path, one statement: {@link #completeSql} over the items of a batch, given as
   * three arrays (jobs, attempts, tokens) that {@code unnest} pairs up. Each item whose lease is live, fenced
   * by (job, attempt, token), not flagged for cancellation and whose job is leased is marked succeeded and
   * its lease ended; the holders' heartbeats are refreshed once. Lease rows are locked in job order. It binds
   * the three arrays, the job ids again and now, in the order {@link #completeAllFast} sets them. Columns:
   * one succeeded job row per applied item as in {@link #JOB_COLS} (no lease), then how many leases it ended
   * in all; no row for an item the fast path did not apply to.
   */
  private String completeAllSql() {
    return "WITH b AS (SELECT * FROM unnest(?::bigint[], ?::int[], ?::bigint[]) AS b(job_id, attempt, token)),"
        + " l AS (SELECT x.job_id, x.attempt, x.collector FROM " + leases + " x JOIN b ON x.job_id = b.job_id"
        // The job ids once more as an index condition: joined only against the unnested items, the planner
        // chose a hash join over a sequential scan of the leases, whose heap holds every lease deleted since
        // the last vacuum.
        + " AND x.attempt = b.attempt AND x.token = b.token WHERE x.job_id = ANY (?::bigint[])"
        + " AND x.expires_at > ?::timestamptz AND NOT x.cancel_requested ORDER BY x.job_id FOR UPDATE OF x),"
        // The values Job.succeeded(now) gives: succeeded, finished now, no failure, the rest kept.
        + " done AS (UPDATE " + jobs + " j SET state = 'SUCCEEDED', finished_at = ?::timestamptz,"
        + " failure_reason = NULL, failure_detail = NULL, failure_at = NULL FROM l WHERE j.id = l.job_id"
        + " AND j.state = 'LEASED' AND j.attempt = l.attempt RETURNING j.*),"
        + " ended AS (DELETE FROM " + leases + " x USING done WHERE x.job_id = done.id RETURNING x.job_id),"
        + " touched AS (UPDATE " + collectors + " c SET last_heartbeat_at = ?::timestamptz FROM (SELECT DISTINCT"
        + " l.collector FROM l JOIN done ON done.id = l.job_id) h WHERE c.name = h.collector"
        + " AND c.last_heartbeat_at < ?::timestamptz RETURNING 1)"
        + " SELECT j.id, j.request_id, j.benchmark_group, j.collector_tag, j.optional, j.state, j.attempt,"
        + " j.crash_rescues, j.transient_retries, j.affinity, j.failure_reason, j.failure_detail, j.failure_at,"
        + " j.last_error, j.created_at, j.finished_at, NULL::int, NULL::bigint, NULL::timestamptz, NULL::text,"
        + " NULL::boolean, NULL::text, (SELECT count(*) FROM ended) FROM done j";
  }

  /**
   * A store on a schema with the default table prefix, migrated to the latest version first (creating the
   * schema if needed).
   *
   * @param dataSource the database; the store opens one connection per operation and closes it
   * @param schema the schema name, a plain lower-case identifier (see {@link PostgresQueueOptions#inSchema})
   * @return the store
   * @throws InvalidQueueInputException when the schema name is not a plain identifier
   * @throws QueueStoreException when the migration fails
   */
  public static PostgresQueueStore create(DataSource dataSource, String schema) {
    return create(dataSource, PostgresQueueOptions.inSchema(schema));
  }

  /**
   * A store on the tables of the given schema and prefix, migrated to the latest version first (creating
   * the schema and tables if needed).
   *
   * @param dataSource the database; the store opens one connection per operation and closes it
   * @param options the schema and table prefix
   * @return the store
   * @throws InvalidQueueInputException when the data source or the options are missing
   * @throws QueueStoreException when the migration fails
   */
  public static PostgresQueueStore create(DataSource dataSource, PostgresQueueOptions options) {
    PostgresMigrations.migrate(dataSource, options);
    return new PostgresQueueStore(dataSource, options);
  }

  /**
   * A store on a schema with the default table prefix that is already migrated (no DDL is run).
   *
   * @param dataSource the database
   * @param schema the schema name
   * @return the store
   * @throws InvalidQueueInputException when the schema name is not a plain identifier
   */
  public static PostgresQueueStore attach(DataSource dataSource, String schema) {
    return attach(dataSource, PostgresQueueOptions.inSchema(schema));
  }

  /**
   * A store on already migrated tables of the given schema and prefix (no DDL is run).
   *
   * @param dataSource the database
   * @param options the schema and table prefix
   * @return the store
   */
  public static PostgresQueueStore attach(DataSource dataSource, PostgresQueueOptions options) {
    return new PostgresQueueStore(dataSource, options);
  }

  /**
   * The schema this store works in.
   *
   * @return the schema name
   */
  public String schema() {
    return schema;
  }

  /**
   * Where this store keeps its tables.
   *
   * @return the schema and table prefix
   */
  public PostgresQueueOptions options() {
    return options;
  }

  // ---------------------------------------------------------------------------------------------- requests

  @Override
  public SubmitResult submit(NewRequest request, Instant now) {
    return tx("submit", c -> {
      if (request.tag().isPresent()) {
        Optional<Request> existing = requestWhere(c, "r.tag = ?", request.tag().get());
        if (existing.isPresent()) {
          return new SubmitResult(SubmitResult.Status.DUPLICATE_TAG, existing.get());
        }
      }
      if (request.pr().isPresent()) {
        Optional<Request> existing = openByPr(c, request.kind(), request.pr().getAsLong());
        if (existing.isPresent()) {
          return new SubmitResult(SubmitResult.Status.DUPLICATE_OPEN_PR, existing.get());
        }
      }
      try (PreparedStatement st = c.prepareStatement("INSERT INTO " + requests + " (kind, state, tag, parent_sha, pr,"
          + " benchmark_groups, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id")) {
        st.setString(1, request.kind().name());
        st.setString(2, request.initialState().name());
        setText(st, 3, request.tag().orElse(null));
        setText(st, 4, request.parentSha().orElse(null));
        if (request.pr().isPresent()) {
          st.setLong(5, request.pr().getAsLong());
        } else {
          st.setNull(5, Types.BIGINT);
        }
        st.setArray(6, c.createArrayOf("text", request.benchmarkGroups().toArray()));
        setInstant(st, 7, now);
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            throw new Retry(); // a concurrent submit won; re-run to report it
          }
          return new SubmitResult(SubmitResult.Status.CREATED,
              Request.created(RequestId.of(rs.getLong(1)), request, now));
        }
      }
    });
  }

  @Override
  public AttachResult attachArtifacts(RequestId id, String sha, String parentSha, Instant now) {
    return tx("attachArtifacts", c -> {
      Optional<Request> found = requestWhere(c, "r.id = ? FOR UPDATE", id.value());
      if (found.isEmpty()) {
        return new AttachResult(AttachResult.Status.NOT_FOUND, Optional.empty());
      }
      Request request = found.get();
      if (request.state() != RequestState.WAITING_FOR_ARTIFACTS) {
        return new AttachResult(AttachResult.Status.NOT_WAITING, found);
      }
      if (requestWhere(c, "r.tag = ?", sha).isPresent()) {
        return new AttachResult(AttachResult.Status.DUPLICATE_TAG, found);
      }
      Request attached = request.withArtifacts(sha, parentSha);
      writeRequest(c, attached); // a concurrent insert of the tag raises 23505: re-run, then DUPLICATE_TAG
      return new AttachResult(AttachResult.Status.ATTACHED, Optional.of(attached));
    });
  }

  @Override
  public Optional<Request> request(RequestId id) {
    return tx("request", c -> requestWhere(c, "r.id = ?", id.value()));
  }

  @Override
  public Optional<Request> requestByTag(String tag) {
    return tx("requestByTag", c -> requestWhere(c, "r.tag = ?", tag));
  }

  @Override
  public List<Request> openRequests() {
    return tx("openRequests", c -> requestsWhere(c,
        "r.state IN ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY', 'IN_PROGRESS') ORDER BY r.id"));
  }

  @Override
  public List<Request> inProgressRequests() {
    return tx("inProgressRequests", c -> requestsWhere(c, "r.state = 'IN_PROGRESS' ORDER BY r.id"));
  }

  /** Like {@link #openRequests()}, with rows edited into impossible states reported, not thrown. */
  @Override
  public RequestScan scanOpenRequests() {
    return tx("scanOpenRequests", c -> scanRequests(c,
        "r.state IN ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY', 'IN_PROGRESS') ORDER BY r.id"));
  }

  /** Like {@link #inProgressRequests()}, with rows edited into impossible states reported, not thrown. */
  @Override
  public RequestScan scanInProgressRequests() {
    return tx("scanInProgressRequests", c -> scanRequests(c, "r.state = 'IN_PROGRESS' ORDER BY r.id"));
  }

  @Override
  public StartResult startRequest(StartCommand command) {
    return tx("startRequest", c -> {
      // The guarded transition: one control row, locked by every start, serializes cap check and start.
      try (PreparedStatement lock = c.prepareStatement("SELECT id FROM " + control + " WHERE id = 1 FOR UPDATE");
          ResultSet rs = lock.executeQuery()) {
        if (!rs.next()) {
          throw new QueueStoreException("the control row " + options.display("control")
              + " (id = 1) is missing; re-create it with INSERT INTO " + control + " (id) VALUES (1)");
        }
      }
      int inProgress = countInProgress(c);
      Optional<Request> found = requestWhere(c, "r.id = ? FOR UPDATE", command.requestId().value());
      if (found.isEmpty()) {
        return StartResult.unchanged(StartResult.Status.NOT_FOUND, Optional.empty(), inProgress);
      }
      Request request = found.get();
      if (request.state() != RequestState.ARTIFACTS_READY) {
        return StartResult.unchanged(StartResult.Status.NOT_READY, found, inProgress);
      }
      if (inProgress >= command.maxInProgress()) {
        return StartResult.unchanged(StartResult.Status.CAP_REACHED, found, inProgress);
      }
      List<Job> created = new ArrayList<>(command.jobs().size());
      for (JobSpec spec : command.jobs()) {
        Job job = insertJob(c, request.id(), spec, command.now());
        if (job != null) {
          created.add(job);
        }
      }
      Backfill backfill = backfill(c, request, command);
      Request started = request.started(command.now(),
          backfill.status() == Backfill.Status.ENQUEUED ? backfill.parent().orElseThrow() : null);
      writeRequest(c, started);
      return new StartResult(StartResult.Status.STARTED, Optional.of(started), created, backfill, inProgress + 1);
    });
  }

  private Backfill backfill(Connection c, Request request, StartCommand command) throws SQLException {
    if (!command.backfillParent()) {
      return Backfill.none(Backfill.Status.NOT_REQUESTED, Optional.empty());
    }
    Optional<String> parentSha = request.parentSha();
    if (parentSha.isEmpty()) {
      return Backfill.none(Backfill.Status.NO_PARENT, Optional.empty());
    }
    // FOR SHARE: a concurrent cancel of the parent waits, so no job is added to a cancelled parent.
    Optional<Request> found = requestWhere(c, "r.tag = ? FOR SHARE", parentSha.get());
    if (found.isEmpty()) {
      return Backfill.none(Backfill.Status.PARENT_UNKNOWN, Optional.empty());
    }
    Request parent = found.get();
    Optional<RequestId> parentId = Optional.of(parent.id());
    Optional<Backfill> refused = Backfill.refusedBy(parent);
    if (refused.isPresent()) {
      return refused.get();
    }
    List<Job> created = new ArrayList<>();
    int existing = 0;
    for (JobSpec spec : command.jobs()) {
      Job job = insertJob(c, parent.id(), spec, command.now());
      if (job == null) {
        existing++;
      } else {
        created.add(job);
      }
    }
    return new Backfill(Backfill.Status.ENQUEUED, parentId, created, existing);
  }

  /** Inserts a queued job unless its key exists ({@code ON CONFLICT DO NOTHING}); null then. */
  private @Nullable Job insertJob(Connection c, RequestId requestId, JobSpec spec, Instant now) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("INSERT INTO " + jobs + " (request_id, benchmark_group,"
        + " collector_tag, optional, state, attempt, crash_rescues, transient_retries, created_at)"
        + " VALUES (?, ?, ?, ?, 'QUEUED', 0, 0, 0, ?) ON CONFLICT ON CONSTRAINT " + options.object("jobs_key") + " DO NOTHING RETURNING id")) {
      st.setLong(1, requestId.value());
      st.setString(2, spec.benchmarkGroup());
      st.setString(3, spec.collectorTag());
      st.setBoolean(4, spec.optional());
      setInstant(st, 5, now);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Job.created(JobId.of(rs.getLong(1)), requestId, spec, now) : null;
      }
    }
  }

  @Override
  public CompletionResult completeIfDone(RequestId id, Instant now) {
    return tx("completeIfDone", c -> {
      Optional<Request> found = requestWhere(c, "r.id = ? FOR UPDATE", id.value());
      if (found.isEmpty()) {
        return new CompletionResult(CompletionResult.Status.NOT_FOUND, Optional.empty(), 0);
      }
      Request request = found.get();
      if (request.state() != RequestState.IN_PROGRESS) {
        return new CompletionResult(CompletionResult.Status.NOT_IN_PROGRESS, found, 0);
      }
      int[] own = jobCounts(c, request.id());
      int pending = own[0];
      if (request.parentRequest().isPresent()) {
        pending += jobCounts(c, request.parentRequest().get())[0];
      }
      if (pending > 0) {
        return new CompletionResult(CompletionResult.Status.NOT_DONE, found, pending);
      }
      Request completed = request.completed(Outcome.of(own[1], own[2], own[3]), now);
      writeRequest(c, completed);
      return new CompletionResult(CompletionResult.Status.COMPLETED, Optional.of(completed), 0);
    });
  }

  /** Required pending, required succeeded, required failed, any failed. */
  private int[] jobCounts(Connection c, RequestId id) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT"
        + " count(*) FILTER (WHERE NOT optional AND state IN ('QUEUED', 'LEASED')),"
        + " count(*) FILTER (WHERE NOT optional AND state = 'SUCCEEDED'),"
        + " count(*) FILTER (WHERE NOT optional AND state = 'FAILED'),"
        + " count(*) FILTER (WHERE state = 'FAILED') FROM " + jobs + " WHERE request_id = ?")) {
      st.setLong(1, id.value());
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return new int[] {rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getInt(4)};
      }
    }
  }

  @Override
  public CancelResult cancel(RequestId id, String reason, Instant now) {
    return tx("cancel", c -> {
      Optional<Request> found = requestWhere(c, "r.id = ? FOR UPDATE", id.value());
      if (found.isEmpty()) {
        return new CancelResult(CancelResult.Status.NOT_FOUND, Optional.empty(), 0, 0);
      }
      Request request = found.get();
      if (request.state().isTerminal()) {
        return new CancelResult(CancelResult.Status.ALREADY_FINISHED, found, 0, 0);
      }
      int cancelled;
      // The queued rows go first: a claim locks a queued row before its job, so taking the same order here
      // waits for a claim in flight instead of deadlocking with it (its job is then leased, and flagged below).
      try (PreparedStatement st = c.prepareStatement("DELETE FROM " + queued + " WHERE job_id IN (SELECT id FROM "
          + jobs + " WHERE request_id = ? AND state = 'QUEUED')")) {
        st.setLong(1, id.value());
        st.executeUpdate();
      }
      // The values Job.cancelled(now) gives a queued job: terminal, finished now, everything else kept.
      try (PreparedStatement st = c.prepareStatement("UPDATE " + jobs + " SET state = 'CANCELLED', finished_at = ?"
          + " WHERE request_id = ? AND state = 'QUEUED'")) {
        setInstant(st, 1, now);
        st.setLong(2, id.value());
        cancelled = st.executeUpdate();
      }
      int flagged;
      try (PreparedStatement st = c.prepareStatement("UPDATE " + leases + " SET cancel_requested = true"
          + " WHERE NOT cancel_requested AND job_id IN (SELECT id FROM " + jobs
          + " WHERE request_id = ? AND state = 'LEASED')")) {
        st.setLong(1, id.value());
        flagged = st.executeUpdate();
      }
      Request done = request.cancelled(reason, now);
      writeRequest(c, done);
      return new CancelResult(CancelResult.Status.CANCELLED, Optional.of(done), cancelled, flagged);
    });
  }

  // -------------------------------------------------------------------------------------------------- jobs

  @Override
  public ClaimResult claim(ClaimCommand command) {
    String known = collectorTags.get(command.collector());
    return tx("claim", known == null ? null : c -> claimFast(c, command, known), c -> {
      String tag;
      try (PreparedStatement st = c.prepareStatement("SELECT tag, active FROM " + collectors + " WHERE name = ?")) {
        st.setString(1, command.collector());
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            return new ClaimResult(ClaimResult.Status.UNKNOWN_COLLECTOR, List.of());
          }
          tag = rs.getString(1);
          collectorTags.put(command.collector(), tag);
          if (!rs.getBoolean(2)) {
            return new ClaimResult(ClaimResult.Status.INACTIVE_COLLECTOR, List.of());
          }
        }
      }
      Instant now = command.now();
      // An impossible expired row is skipped here; the site's expireLeases reports it.
      expire(c, tag, now, command.maxCrashRescues(), null, new ArrayList<>());
      // With the expired leases processed (unless another claim holds some), the one-statement claim applies;
      // when it fails on a queued job that holds a stray lease row (a unique violation), the savepoint undoes
      // it and the claim goes on job by job, skipping that job.
      Savepoint beforeQuick = c.setSavepoint();
      try {
        ClaimResult quick = claimFast(c, command, tag);
        if (quick != null) {
          return quick;
        }
      } catch (SQLException e) {
        if (!"23505".equals(e.getSQLState())) {
          throw e;
        }
        c.rollback(beforeQuick);
      }
      List<Job> candidates = new ArrayList<>(Math.min(command.limit(), 64));
      try (PreparedStatement st = c.prepareStatement("SELECT q.job_id FROM " + queued + " q WHERE q.collector_tag = ?"
          + " AND q.affinity = ? ORDER BY q.job_id LIMIT ? FOR UPDATE OF q SKIP LOCKED")) {
        st.setString(1, tag);
        st.setString(2, command.collector());
        st.setInt(3, command.limit());
        readQueuedJobs(c, st, candidates);
      }
      if (candidates.size() < command.limit()) {
        try (PreparedStatement st = c.prepareStatement("SELECT q.job_id FROM " + queued + " q WHERE q.collector_tag = ?"
            + " AND (q.affinity IS NULL OR (q.affinity <> ? AND NOT EXISTS (SELECT 1 FROM "
            + collectors + " c WHERE c.name = q.affinity AND c.active AND c.last_heartbeat_at > ?)))"
            + " ORDER BY q.job_id LIMIT ? FOR UPDATE OF q SKIP LOCKED")) {
          st.setString(1, tag);
          st.setString(2, command.collector());
          setInstant(st, 3, now.minus(command.collectorTimeout()));
          st.setInt(4, command.limit() - candidates.size());
          readQueuedJobs(c, st, candidates);
        }
      }
      List<Claim> claims = new ArrayList<>(candidates.size());
      if (!candidates.isEmpty()) {
        long[] fresh = tokens(c, candidates.size());
        Instant expiry = now.plus(command.leaseDuration());
        List<Job[]> changes = new ArrayList<>(candidates.size());
        for (int i = 0; i < candidates.size(); i++) {
          Job job = candidates.get(i);
          Lease lease = job.nextLease(fresh[i], expiry, command.collector());
          Job claimed = job.claimed(lease);
          claims.add(new Claim(claimed, lease));
          changes.add(new Job[] {job, claimed});
        }
        writeJobs(c, changes);
      }
      touchCollector(c, command.collector(), now);
      return new ClaimResult(ClaimResult.Status.OK, claims);
    });
  }

  /** The claim fast path's statement ({@link #claimSql}), for a test that checks its plan. */
  String claimStatement() {
    return claimSql;
  }

  /**
   * Binds the claim fast path's parameters from {@code first} on.
   *
   * @param st the prepared {@link #claimStatement()}, possibly behind {@code EXPLAIN}
   * @param first the index of its first parameter
   * @param command the claim
   * @param tag the collector's tag
   */
  void bindClaim(PreparedStatement st, int first, ClaimCommand command, String tag) throws SQLException {
    Instant now = command.now();
    String name = command.collector();
    int i = first;
    st.setString(i++, name);
    st.setString(i++, tag);
    st.setString(i++, tag);
    setInstant(st, i++, now);
    st.setString(i++, tag);
    st.setString(i++, name);
    st.setInt(i++, command.limit());
    st.setString(i++, tag);
    st.setString(i++, name);
    setInstant(st, i++, now.minus(command.collectorTimeout()));
    st.setInt(i++, command.limit());
    st.setInt(i++, command.limit());
    st.setString(i++, name);
    Instant expiry = now.plus(command.leaseDuration());
    setInstant(st, i++, expiry);
    st.setString(i++, name);
    setInstant(st, i++, now);
    st.setString(i++, name);
    setInstant(st, i++, now);
    setInstant(st, i++, expiry);
    st.setString(i, name);
  }

  /**
   * Runs the claim fast path. When a run met queued-jobs rows whose jobs were not queued (it deletes them), it
   * claimed fewer jobs than it locked rows; the path then runs again for the rest of the limit, so such rows
   * never make a claim come back short while claimable jobs wait. Null when the fast path does not apply
   * (unknown or inactive collector, another tag, expired leases to process first): it then wrote nothing, and
   * the full path runs.
   */
  private @Nullable ClaimResult claimFast(Connection c, ClaimCommand command, String tag) throws SQLException {
    List<Claim> claims = new ArrayList<>(Math.min(command.limit(), 64));
    ClaimCommand run = command;
    while (true) {
      long picked;
      int before = claims.size();
      try (PreparedStatement st = c.prepareStatement(claimSql)) {
        bindClaim(st, 1, run, tag);
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          if (!rs.getBoolean(23)) {
            return null;
          }
          long inserted = rs.getLong(24);
          picked = rs.getLong(25);
          do {
            rs.getLong(1);
            if (rs.wasNull()) {
              continue;
            }
            Job job = job(rs);
            claims.add(new Claim(job, lease(job)));
          } while (rs.next());
          if (inserted != claims.size() - before) {
            throw new QueueStoreException("claim in schema " + schema + " leased " + (claims.size() - before)
                + " jobs but inserted " + inserted + " leases");
          }
        }
      }
      int claimed = claims.size() - before;
      int rest = command.limit() - claims.size();
      if (picked == claimed || rest == 0) {
        return new ClaimResult(ClaimResult.Status.OK, claims);
      }
      run = new ClaimCommand(command.collector(), command.now(), command.leaseDuration(), command.collectorTimeout(),
          command.maxCrashRescues(), rest);
    }
  }


  private long[] tokens(Connection c, int n) throws SQLException {
    long[] out = new long[n];
    try (PreparedStatement st = c.prepareStatement("SELECT nextval('" + tokens + "') FROM generate_series(1, ?)")) {
      st.setInt(1, n);
      try (ResultSet rs = st.executeQuery()) {
        for (int i = 0; i < n; i++) {
          rs.next();
          out[i] = rs.getLong(1);
        }
      }
    }
    java.util.Arrays.sort(out);
    return out;
  }

  /**
   * Processes expired leases (of one tag, or all when null), locking their rows; collects changes if asked.
   * A job whose rows are impossible (edited by hand) is left unchanged and added to {@code impossible}, so
   * that it never blocks the others.
   */
  private void expire(Connection c, @Nullable String tag, Instant now, int maxCrashRescues,
      @Nullable List<List<Job>> changes, List<ImpossibleRow> impossible) throws SQLException {
    List<Job> expired = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement("SELECT " + JOB_COLS + " FROM " + leases + " l JOIN " + jobs
        + " j ON j.id = l.job_id WHERE " + (tag == null ? "" : "l.collector_tag = ? AND ")
        + "l.expires_at <= ? ORDER BY j.id FOR UPDATE OF j, l SKIP LOCKED")) {
      int i = 1;
      if (tag != null) {
        st.setString(i++, tag);
      }
      setInstant(st, i, now);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          try {
            expired.add(job(rs));
          } catch (ImpossibleRowException e) {
            impossible.add(e.row());
          }
        }
      }
    }
    if (expired.isEmpty()) {
      return;
    }
    List<Job[]> writes = new ArrayList<>(expired.size());
    for (Job job : expired) {
      Lease lease = lease(job);
      Job next;
      int list;
      if (job.cancelRequested()) {
        next = job.cancelled(now);
        list = 2;
      } else if (job.crashRescues() < maxCrashRescues) {
        next = job.rescued();
        list = 0;
      } else {
        next = job.failed(JobFailure.crashBudgetExhausted(lease.collector(), job.crashRescues(),
            lease.expiresAt(), now));
        list = 1;
      }
      writes.add(new Job[] {job, next});
      if (changes != null) {
        changes.get(list).add(next);
      }
    }
    writeJobs(c, writes);
  }

  @Override
  public LeaseResult heartbeat(JobId job, int attempt, long token, Duration leaseDuration, Instant now) {
    return tx("heartbeat", c -> {
      // Fast path: one fenced UPDATE of the narrow lease row; the job row is not rewritten.
      String holder = null;
      try (PreparedStatement st = c.prepareStatement("UPDATE " + leases + " SET expires_at = ? WHERE job_id = ?"
          + " AND attempt = ? AND token = ? AND expires_at > ? AND NOT cancel_requested RETURNING collector")) {
        setInstant(st, 1, now.plus(leaseDuration));
        st.setLong(2, job.value());
        st.setInt(3, attempt);
        st.setLong(4, token);
        setInstant(st, 5, now);
        try (ResultSet rs = st.executeQuery()) {
          if (rs.next()) {
            holder = rs.getString(1);
          }
        }
      }
      if (holder != null) {
        touchCollector(c, holder, now);
        return new LeaseResult(LeaseStatus.OK, Optional.of(loadJob(c, job, false).orElseThrow()));
      }
      Optional<Job> row = loadJob(c, job, true);
      LeaseResult refused = fence(row, job, attempt, token, now);
      if (refused != null) {
        return refused;
      }
      return cancelFlagged(c, row.get(), now); // live and fenced but not renewed: it is flagged
    });
  }

  @Override
  public LeaseResult complete(JobId job, int attempt, long token, Instant now) {
    return fenced("complete", job, attempt, token, now, c -> completeFast(c, job, attempt, token, now),
        (c, current) -> completeLocked(c, current, now));
  }

  /** The full completion path once the fence holds and the job is not flagged. */
  private LeaseResult completeLocked(Connection c, Job current, Instant now) throws SQLException {
    Job done = current.succeeded(now);
    write(c, current, done);
    touchCollector(c, lease(current).collector(), now);
    return new LeaseResult(LeaseStatus.OK, Optional.of(done));
  }

  /**
   * Completes a batch with one auto-committed statement ({@link #completeAllSql}: one round trip, one commit)
   * for every item whose lease is live, fenced and not flagged; each other item (stale, expired, unknown,
   * flagged, or a row that needs the full checks) then runs the full path of {@link #complete} in its own
   * transaction, which reports it exactly as completing it alone would. Each item is atomic; the batch is
   * not one transaction.
   */
  @Override
  public List<LeaseResult> completeAll(List<LeaseRef> leases, Instant now) {
    List<LeaseRef> batch = LeaseRef.checkedBatch(leases);
    if (now == null) {
      throw new InvalidQueueInputException("completion instant is missing");
    }
    if (batch.isEmpty()) {
      return List.of();
    }
    if (batch.size() == 1) {
      LeaseRef only = batch.get(0);
      return List.of(complete(only.jobId(), only.attempt(), only.token(), now));
    }
    // The fast statement always answers (possibly with no applied item), so the full work never runs here.
    Map<JobId, LeaseResult> applied = tx("completeAll", c -> completeAllFast(c, batch, now),
        c -> completeAllFast(c, batch, now));
    List<LeaseResult> results = new ArrayList<>(batch.size());
    for (LeaseRef ref : batch) {
      LeaseResult fast = applied.get(ref.jobId());
      results.add(fast != null ? fast : fenced("complete", ref.jobId(), ref.attempt(), ref.token(), now,
          (c, current) -> completeLocked(c, current, now)));
    }
    return List.copyOf(results);
  }

  /** Runs {@link #completeAllSql}: the results of the items it applied to, by job. */
  private Map<JobId, LeaseResult> completeAllFast(Connection c, List<LeaseRef> batch, Instant now)
      throws SQLException {
    Long[] ids = new Long[batch.size()];
    Integer[] attempts = new Integer[batch.size()];
    Long[] tokenValues = new Long[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      LeaseRef ref = batch.get(i);
      ids[i] = ref.jobId().value();
      attempts[i] = ref.attempt();
      tokenValues[i] = ref.token();
    }
    Map<JobId, LeaseResult> applied = new HashMap<>();
    try (PreparedStatement st = c.prepareStatement(completeAllSql)) {
      st.setArray(1, c.createArrayOf("bigint", ids));
      st.setArray(2, c.createArrayOf("integer", attempts));
      st.setArray(3, c.createArrayOf("bigint", tokenValues));
      st.setArray(4, c.createArrayOf("bigint", ids));
      setInstant(st, 5, now);
      setInstant(st, 6, now);
      setInstant(st, 7, now);
      setInstant(st, 8, now);
      long ended = -1;
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          Job done = job(rs);
          ended = rs.getLong(23);
          applied.put(done.id(), new LeaseResult(LeaseStatus.OK, Optional.of(done)));
        }
      }
      if (!applied.isEmpty() && ended != applied.size()) {
        throw new QueueStoreException("could not end the leases of jobs " + applied.keySet() + " in schema "
            + schema + ": ended " + ended + " of " + applied.size() + "; a row changed under its lock (edited by"
            + " hand?)");
      }
    }
    return applied;
  }

  @Override
  public LeaseResult fail(JobId job, int attempt, long token, Failure failure, int maxTransientRetries,
      Instant now) {
    return fenced("fail", job, attempt, token, now, (c, current) -> {
      Lease lease = lease(current);
      Job next;
      if (failure.kind() == Failure.Kind.PERMANENT) {
        next = current.failed(JobFailure.permanent(lease.collector(), failure.detail(), now));
      } else if (current.transientRetries() < maxTransientRetries) {
        next = current.retriedAfterTransientFailure(failure.detail());
      } else {
        next = current.failed(JobFailure.transientBudgetExhausted(lease.collector(), current.transientRetries(),
            failure.detail(), now));
      }
      write(c, current, next);
      touchCollector(c, lease.collector(), now);
      return new LeaseResult(LeaseStatus.OK, Optional.of(next));
    });
  }

  @Override
  public LeaseResult release(JobId job, int attempt, long token, Instant now) {
    return fenced("release", job, attempt, token, now, (c, current) -> {
      Job next = current.released();
      write(c, current, next);
      touchCollector(c, lease(current).collector(), now);
      return new LeaseResult(LeaseStatus.OK, Optional.of(next));
    });
  }

  /**
   * Runs {@link #completeSql}; null when the fast path does not apply (stale or expired lease, flagged job, or
   * a row that needs the full checks): it then wrote nothing, and the full path runs.
   */
  private @Nullable LeaseResult completeFast(Connection c, JobId job, int attempt, long token, Instant now)
      throws SQLException {
    try (PreparedStatement st = c.prepareStatement(completeSql)) {
      st.setLong(1, job.value());
      st.setInt(2, attempt);
      st.setLong(3, token);
      setInstant(st, 4, now);
      setInstant(st, 5, now);
      st.setInt(6, attempt);
      setInstant(st, 7, now);
      setInstant(st, 8, now);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        Job done = job(rs);
        if (rs.getLong(23) != 1) {
          throw new QueueStoreException("could not end the lease of job " + job.value() + " in schema " + schema
              + ": a row changed under its lock (edited by hand?)");
        }
        return new LeaseResult(LeaseStatus.OK, Optional.of(done));
      }
    }
  }

  private LeaseResult fenced(String op, JobId job, int attempt, long token, Instant now, LeaseWork work) {
    return fenced(op, job, attempt, token, now, null, work);
  }

  private LeaseResult fenced(String op, JobId job, int attempt, long token, Instant now, @Nullable FastPath fast,
      LeaseWork work) {
    return tx(op, fast == null ? null : fast::run, c -> {
      Optional<Job> row = loadJob(c, job, true);
      LeaseResult refused = fence(row, job, attempt, token, now);
      if (refused != null) {
        return refused;
      }
      if (row.get().cancelRequested()) {
        return cancelFlagged(c, row.get(), now);
      }
      return work.run(c, row.get());
    });
  }

  private static @Nullable LeaseResult fence(Optional<Job> row, JobId job, int attempt, long token, Instant now) {
    if (row.isEmpty()) {
      return new LeaseResult(LeaseStatus.NOT_FOUND, Optional.empty());
    }
    Optional<Lease> lease = row.get().lease();
    if (lease.isEmpty() || !lease.get().fences(job, attempt, token) || !lease.get().isLiveAt(now)) {
      return new LeaseResult(LeaseStatus.STALE_LEASE, row);
    }
    return null;
  }

  private LeaseResult cancelFlagged(Connection c, Job job, Instant now) throws SQLException {
    Job cancelled = job.cancelled(now);
    write(c, job, cancelled);
    touchCollector(c, lease(job).collector(), now);
    return new LeaseResult(LeaseStatus.CANCELLED, Optional.of(cancelled));
  }

  @Override
  public ExpiryResult expireLeases(Instant now, int maxCrashRescues) {
    ExpiryResult result = tx("expireLeases", c -> {
      List<List<Job>> changes = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
      List<ImpossibleRow> impossible = new ArrayList<>();
      expire(c, null, now, maxCrashRescues, changes, impossible);
      Comparator<Job> byId = Comparator.comparing(Job::id);
      changes.forEach(list -> list.sort(byId));
      return new ExpiryResult(changes.get(0), changes.get(1), changes.get(2), impossible);
    });
    vacuumIfNeeded();
    return result;
  }

  /**
   * Vacuums the queued-jobs and leases tables when either holds at least {@link #VACUUM_DEAD_ROWS} dead rows
   * (the server's statistics, {@code pg_stat_user_tables.n_dead_tup}); the site loop calls this through
   * {@link #expireLeases} on every tick. Both tables churn: every claim deletes queued rows, every completion
   * a lease row. Claims read the queued rows from the start of their index, where the deleted rows' entries
   * pile up until a vacuum removes them, and autovacuum visits a database at most once a minute (its
   * {@code naptime}); under a sustained backlog a minute of claims leaves hundreds of thousands of such
   * entries, and a claim's cost grows with them (docs/performance.md). Never fails the caller: a vacuum that
   * cannot run (a role that does not own the tables, a lost connection) is left to autovacuum, and
   * {@link #maintenanceProblem()} says why.
   *
   * @return whether a vacuum ran
   */
  boolean vacuumIfNeeded() {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      boolean due;
      try (PreparedStatement st = c.prepareStatement("SELECT coalesce(max(n_dead_tup), 0) FROM pg_stat_user_tables"
          + " WHERE relid IN (?::regclass, ?::regclass)")) {
        st.setString(1, queued);
        st.setString(2, leases);
        try (ResultSet rs = st.executeQuery()) {
          due = rs.next() && rs.getLong(1) >= VACUUM_DEAD_ROWS;
        }
      }
      if (due) {
        try (Statement st = c.createStatement()) {
          st.execute("VACUUM (SKIP_LOCKED) " + queued + ", " + leases);
        }
      }
      maintenanceProblem = null;
      return due;
    } catch (SQLException e) {
      maintenanceProblem = "vacuuming " + options.display("queued") + " and " + options.display("leases")
          + " failed (SQLSTATE " + e.getSQLState() + "): " + e.getMessage() + "; autovacuum still does it";
      return false;
    }
  }

  /**
   * Why the last opportunistic vacuum of the churning tables could not run, if it could not (see
   * {@link #expireLeases}); autovacuum still vacuums them, only less often.
   *
   * @return the problem, or empty
   */
  public Optional<String> maintenanceProblem() {
    return Optional.ofNullable(maintenanceProblem);
  }

  @Override
  public Optional<Job> job(JobId id) {
    return tx("job", c -> loadJob(c, id, false));
  }

  @Override
  public List<Job> jobs(RequestId requestId) {
    return tx("jobs", c -> {
      List<Job> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement("SELECT " + JOB_COLS + jobFrom
          + "WHERE j.request_id = ? ORDER BY j.id")) {
        st.setLong(1, requestId.value());
        readJobs(st, out);
      }
      return out;
    });
  }

  // ---------------------------------------------------------------------------------------------- collectors

  @Override
  public RegisterResult registerCollector(String name, String tag, boolean active, Instant now) {
    Collector fresh = new Collector(name, tag, active, now, now);
    return tx("registerCollector", c -> {
      try (PreparedStatement st = c.prepareStatement("INSERT INTO " + collectors + " (name, tag, active,"
          + " registered_at, last_heartbeat_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING")) {
        st.setString(1, name);
        st.setString(2, tag);
        st.setBoolean(3, active);
        setInstant(st, 4, now);
        setInstant(st, 5, now);
        if (st.executeUpdate() == 1) {
          collectorTags.put(name, tag);
          return new RegisterResult(RegisterResult.Status.REGISTERED, fresh);
        }
      }
      Collector existing = loadCollector(c, name).orElseThrow(Retry::new);
      collectorTags.put(name, existing.tag());
      return new RegisterResult(existing.tag().equals(tag) ? RegisterResult.Status.ALREADY_REGISTERED
          : RegisterResult.Status.NAME_TAKEN, existing);
    });
  }

  @Override
  public CollectorResult collectorHeartbeat(String name, Instant now) {
    return tx("collectorHeartbeat", c -> {
      touchCollector(c, name, now);
      Optional<Collector> row = loadCollector(c, name);
      return new CollectorResult(row.isPresent() ? CollectorResult.Status.OK : CollectorResult.Status.NOT_FOUND, row);
    });
  }

  @Override
  public CollectorResult setCollectorActive(String name, boolean active) {
    return tx("setCollectorActive", c -> {
      try (PreparedStatement st = c.prepareStatement("UPDATE " + collectors + " SET active = ? WHERE name = ?"
          + " AND active <> ?")) {
        st.setBoolean(1, active);
        st.setString(2, name);
        st.setBoolean(3, active);
        int changed = st.executeUpdate();
        Optional<Collector> row = loadCollector(c, name);
        if (row.isEmpty()) {
          return new CollectorResult(CollectorResult.Status.NOT_FOUND, row);
        }
        return new CollectorResult(changed == 1 ? CollectorResult.Status.OK : CollectorResult.Status.UNCHANGED, row);
      }
    });
  }

  @Override
  public Optional<Collector> collector(String name) {
    return tx("collector", c -> loadCollector(c, name));
  }

  @Override
  public List<Collector> collectors() {
    return tx("collectors", c -> {
      List<Collector> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement("SELECT " + PostgresRows.COLLECTOR_COLS + " FROM "
          + collectors); ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(collector(rs));
        }
      }
      out.sort(Comparator.comparing(Collector::name));
      return out;
    });
  }

  /** Moves a collector's heartbeat forward to {@code now} (never backward). */
  private void touchCollector(Connection c, String name, Instant now) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("UPDATE " + collectors + " SET last_heartbeat_at = ?"
        + " WHERE name = ? AND last_heartbeat_at < ?")) {
      setInstant(st, 1, now);
      st.setString(2, name);
      setInstant(st, 3, now);
      st.executeUpdate();
    }
  }

  private Optional<Collector> loadCollector(Connection c, String name) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT " + PostgresRows.COLLECTOR_COLS + " FROM "
        + collectors + " WHERE name = ?")) {
      st.setString(1, name);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(collector(rs)) : Optional.empty();
      }
    }
  }

  private Collector collector(ResultSet rs) throws SQLException {
    return rows.collector(rs);
  }

  // ------------------------------------------------------------------------------------------------- rows

  private Optional<Request> requestWhere(Connection c, String where, Object arg) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT " + REQUEST_COLS + " FROM " + requests + " r WHERE "
        + where)) {
      st.setObject(1, arg);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(request(rs)) : Optional.empty();
      }
    }
  }

  private Optional<Request> openByPr(Connection c, RequestKind kind, long pr) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT " + REQUEST_COLS + " FROM " + requests + " r WHERE"
        + " r.kind = ? AND r.pr = ? AND r.state IN ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY', 'IN_PROGRESS')")) {
      st.setString(1, kind.name());
      st.setLong(2, pr);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(request(rs)) : Optional.empty();
      }
    }
  }

  private List<Request> requestsWhere(Connection c, String where) throws SQLException {
    List<Request> out = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement("SELECT " + REQUEST_COLS + " FROM " + requests + " r WHERE "
        + where); ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        out.add(request(rs));
      }
    }
    return out;
  }

  private RequestScan scanRequests(Connection c, String where) throws SQLException {
    List<Request> out = new ArrayList<>();
    List<ImpossibleRow> impossible = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement("SELECT " + REQUEST_COLS + " FROM " + requests + " r WHERE "
        + where); ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        try {
          out.add(request(rs));
        } catch (ImpossibleRowException e) {
          impossible.add(e.row());
        }
      }
    }
    if (scans.getAndIncrement() % UNLISTED_CHECK_EVERY == 0) {
      unlistedQueuedJobs(c, out, impossible);
    }
    return new RequestScan(out, impossible);
  }

  /**
   * Reports the queued jobs of the scanned in-progress requests that are missing from the queued-jobs table
   * (its row deleted by hand): no claim can see them. The database's triggers list every job that becomes
   * queued, so no operation leaves a job like that. It reads every job of those requests (the job table has
   * no index on the state, so that job updates stay heap-only), so scans run it one time in
   * {@link #UNLISTED_CHECK_EVERY}, starting with the first.
   */
  private void unlistedQueuedJobs(Connection c, List<Request> scanned, List<ImpossibleRow> impossible)
      throws SQLException {
    List<Long> ids = new ArrayList<>();
    for (Request r : scanned) {
      if (r.state() == RequestState.IN_PROGRESS) {
        ids.add(r.id().value());
      }
    }
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement st = c.prepareStatement("SELECT j.id, j.request_id FROM " + jobs + " j"
        + " WHERE j.request_id = ANY (?) AND j.state = 'QUEUED' AND NOT EXISTS (SELECT 1 FROM " + queued
        + " q WHERE q.job_id = j.id) ORDER BY j.id")) {
      st.setArray(1, c.createArrayOf("bigint", ids.toArray()));
      String jobTable = options.display("jobs");
      String queuedTable = options.display("queued");
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          long id = rs.getLong(1);
          impossible.add(new ImpossibleRow(jobTable, "id = " + id, "state", "'QUEUED'", "a queued job is listed in "
              + queuedTable + ", which claims read, but job " + id + " of request " + rs.getLong(2) + " is not, so"
              + " no collector can claim it; list it with INSERT INTO " + queuedTable + " (job_id, collector_tag,"
              + " affinity) SELECT id, collector_tag, affinity FROM " + jobTable + " WHERE id = " + id));
        }
      }
    }
  }

  private int countInProgress(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT count(*) FROM " + requests + " WHERE state = 'IN_PROGRESS'");
        ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private Request request(ResultSet rs) throws SQLException {
    return rows.request(rs);
  }

  private void writeRequest(Connection c, Request r) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("UPDATE " + requests + " SET state = ?, tag = ?, parent_sha = ?,"
        + " started_at = ?, finished_at = ?, outcome = ?, parent_request = ?, cancel_reason = ? WHERE id = ?")) {
      st.setString(1, r.state().name());
      setText(st, 2, r.tag().orElse(null));
      setText(st, 3, r.parentSha().orElse(null));
      setInstant(st, 4, r.startedAt().orElse(null));
      setInstant(st, 5, r.finishedAt().orElse(null));
      setText(st, 6, r.outcome().map(Outcome::name).orElse(null));
      if (r.parentRequest().isPresent()) {
        st.setLong(7, r.parentRequest().get().value());
      } else {
        st.setNull(7, Types.BIGINT);
      }
      setText(st, 8, r.cancelReason().orElse(null));
      st.setLong(9, r.id().value());
      st.executeUpdate();
    }
  }

  private Optional<Job> loadJob(Connection c, JobId id, boolean lock) throws SQLException {
    if (lock) {
      try (PreparedStatement st = c.prepareStatement("SELECT id FROM " + jobs + " WHERE id = ? FOR UPDATE")) {
        st.setLong(1, id.value());
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
        }
      }
    }
    List<Job> out = new ArrayList<>(1);
    try (PreparedStatement st = c.prepareStatement("SELECT " + JOB_COLS + jobFrom + "WHERE j.id = ?")) {
      st.setLong(1, id.value());
      readJobs(st, out);
    }
    return out.isEmpty() ? Optional.empty() : Optional.of(out.get(0));
  }

  /**
   * Runs a query that locks rows of the queued-jobs table and returns their job ids, then locks and reads
   * each job. A job that is not queued (its state edited by hand) is not a candidate; its row is deleted.
   */
  private void readQueuedJobs(Connection c, PreparedStatement lockIds, List<Job> out) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (ResultSet rs = lockIds.executeQuery()) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    for (long id : ids) {
      Optional<Job> job;
      try {
        job = loadJob(c, JobId.of(id), true);
      } catch (ImpossibleRowException e) {
        // E.g. a queued job with a stray lease row: left as it is for the site to report (expireLeases, once
        // the stray lease has expired) and for an operator to repair; the claim takes the other jobs.
        continue;
      }
      if (job.isPresent() && job.get().state() == JobState.QUEUED) {
        out.add(job.get());
      } else {
        try (PreparedStatement st = c.prepareStatement("DELETE FROM " + queued + " WHERE job_id = ?")) {
          st.setLong(1, id);
          st.executeUpdate();
        }
      }
    }
  }

  private void readJobs(PreparedStatement st, List<Job> out) throws SQLException {
    try (ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        out.add(job(rs));
      }
    }
  }

  private Job job(ResultSet rs) throws SQLException {
    return rows.job(rs);
  }

  private void write(Connection c, Job before, Job after) throws SQLException {
    writeJobs(c, List.<Job[]>of(new Job[] {before, after}));
  }

  /**
   * Writes job transitions: the job row when its columns changed, the lease row fenced by attempt and token,
   * and the queued-jobs row of a job that stops being queued (first, the order claims lock in). A job that
   * becomes queued gets its queued-jobs row from the database's trigger.
   */
  private void writeJobs(Connection c, List<Job[]> changes) throws SQLException {
    try (PreparedStatement upd = c.prepareStatement("UPDATE " + jobs + " SET state = ?, attempt = ?, crash_rescues = ?,"
        + " transient_retries = ?, affinity = ?, failure_reason = ?, failure_detail = ?, failure_at = ?,"
        + " last_error = ?, finished_at = ? WHERE id = ?");
        PreparedStatement del = c.prepareStatement("DELETE FROM " + leases
            + " WHERE job_id = ? AND attempt = ? AND token = ?");
        PreparedStatement ins = c.prepareStatement("INSERT INTO " + leases + " (job_id, attempt, token, expires_at,"
            + " collector, collector_tag) VALUES (?, ?, ?, ?, ?, ?)");
        PreparedStatement deq = c.prepareStatement("DELETE FROM " + queued + " WHERE job_id = ?")) {
      int dequeues = 0;
      int updates = 0;
      int deletes = 0;
      int inserts = 0;
      for (Job[] change : changes) {
        Job before = change[0];
        Job after = change[1];
        if (before.state() == JobState.QUEUED && after.state() != JobState.QUEUED) {
          deq.setLong(1, after.id().value());
          deq.addBatch();
          dequeues++;
        }
        if (!sameRow(before, after)) {
          upd.setString(1, after.state().name());
          upd.setInt(2, after.attempt());
          upd.setInt(3, after.crashRescues());
          upd.setInt(4, after.transientRetries());
          setText(upd, 5, after.affinity().orElse(null));
          JobFailure f = after.failure().orElse(null);
          setText(upd, 6, f == null ? null : f.reason().name());
          setText(upd, 7, f == null ? null : f.detail());
          setInstant(upd, 8, f == null ? null : f.at());
          setText(upd, 9, after.lastError().orElse(null));
          setInstant(upd, 10, after.finishedAt().orElse(null));
          upd.setLong(11, after.id().value());
          upd.addBatch();
          updates++;
        }
        Lease old = before.lease().orElse(null);
        Lease now = after.lease().orElse(null);
        if (old != null && (now == null || now.token() != old.token())) {
          del.setLong(1, old.jobId().value());
          del.setInt(2, old.attempt());
          del.setLong(3, old.token());
          del.addBatch();
          deletes++;
        }
        if (now != null && (old == null || now.token() != old.token())) {
          ins.setLong(1, now.jobId().value());
          ins.setInt(2, now.attempt());
          ins.setLong(3, now.token());
          setInstant(ins, 4, now.expiresAt());
          ins.setString(5, now.collector());
          ins.setString(6, after.spec().collectorTag());
          ins.addBatch();
          inserts++;
        }
      }
      if (dequeues > 0) {
        deq.executeBatch();
      }
      if (updates > 0) {
        expectAll(upd.executeBatch(), "update job rows");
      }
      if (deletes > 0) {
        expectAll(del.executeBatch(), "end leases (fenced by job, attempt and token)");
      }
      if (inserts > 0) {
        expectAll(ins.executeBatch(), "insert leases");
      }
    }
  }

  private void expectAll(int[] counts, String what) {
    for (int n : counts) {
      if (n == 0) {
        throw new QueueStoreException("could not " + what + " in schema " + schema
            + ": a row changed under its lock (edited by hand?)");
      }
    }
  }

  private static boolean sameRow(Job a, Job b) {
    return a.state() == b.state() && a.attempt() == b.attempt() && a.crashRescues() == b.crashRescues()
        && a.transientRetries() == b.transientRetries() && a.affinity().equals(b.affinity())
        && a.failure().equals(b.failure()) && a.lastError().equals(b.lastError())
        && a.finishedAt().equals(b.finishedAt());
  }

  private static Lease lease(Job job) {
    return job.lease().orElseThrow(() -> new QueueStoreException("job " + job.id().value() + " has no lease"));
  }

  // ------------------------------------------------------------------------------------------ plumbing

  /**
   * Runs one operation as one transaction on a connection of the pool. Serialization failures, deadlocks and
   * unique violations re-run it. A lost connection (no connection to be had, the session terminated, the
   * server restarted) is a {@link QueueStoreUnavailableException} that names the operation and says whether
   * the change may have been committed: only when the connection was lost during the commit itself.
   */
  private <T> T tx(String op, SqlWork<T> work) {
    return tx(op, null, work);
  }

  /**
   * Runs an operation: first its fast path, if any, as one auto-committed statement (atomic on its own, so
   * it needs no transaction and no separate commit round trip; it writes only when it applies), then, when
   * that returns null, the full work in one transaction. Retryable failures re-run both.
   */
  private <T> T tx(String op, @Nullable FastWork<T> fast, SqlWork<T> work) {
    boolean fastFailed = false;
    for (int attempt = 1; ; attempt++) {
      Connection c;
      try {
        c = dataSource.getConnection();
      } catch (SQLException e) {
        throw new QueueStoreUnavailableException(op, false, op + " on " + options.display("*")
            + ": could not get a database connection (SQLSTATE " + e.getSQLState() + ": " + e.getMessage()
            + "); nothing was done, retry later", e);
      }
      boolean committing = false;
      boolean selfCommitting = false;
      try {
        if (fast != null && !fastFailed) {
          c.setAutoCommit(true);
          // The fast statement is its own commit: a connection lost during it leaves the outcome unknown
          // (the server may have committed it, e.g. while waiting for synchronous replication).
          committing = true;
          selfCommitting = true;
          T quick = fast.run(c);
          committing = false;
          selfCommitting = false;
          if (quick != null) {
            return quick;
          }
        }
        c.setAutoCommit(false);
        T result = work.run(c);
        committing = true;
        c.commit();
        return result;
      } catch (Retry e) {
        rollbackQuietly(c, e);
        if (attempt >= MAX_TRIES) {
          throw new QueueStoreException(op + " on " + options.display("*") + " did not settle after " + attempt
              + " tries under contention");
        }
      } catch (SQLException e) {
        rollbackQuietly(c, e);
        // A fast statement that failed (and, being auto-committed, changed nothing) is not tried again: the
        // retry runs the full transaction, which reports or works around what made it fail.
        fastFailed |= selfCommitting;
        if (connectionLost(e)) {
          throw new QueueStoreUnavailableException(op, committing, op + " on " + options.display("*")
              + ": the database connection was lost " + (committing
                  ? (selfCommitting ? "during its one-statement fast path, which commits on its own" : "during the commit")
                      + " (SQLSTATE " + e.getSQLState() + ": " + e.getMessage() + "); the outcome is"
                      + " unknown: the change may have been committed, so re-read before acting (a fenced retry"
                      + " is safe: it reports a stale lease if the first one took effect)"
                  : "before the commit (SQLSTATE " + e.getSQLState() + ": " + e.getMessage() + "); the database"
                      + " rolled the transaction back, nothing changed, retry the operation"), e);
        }
        if (attempt >= MAX_TRIES || e.getSQLState() == null || !RETRYABLE.contains(e.getSQLState())) {
          throw new QueueStoreException(op + " on " + options.display("*") + " failed (SQLSTATE "
              + e.getSQLState() + "): " + e.getMessage(), e);
        }
      } catch (RuntimeException e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        closeQuietly(c);
      }
    }
  }

  /** Whether an error means the session is gone (rather than a statement failing in a live session). */
  private static boolean connectionLost(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.io.IOException) {
        return true;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null
          && (sql.getSQLState().startsWith("08") || CONNECTION_LOST.contains(sql.getSQLState()))) {
        return true;
      }
    }
    return false;
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      // The pool discards a broken connection; the operation's outcome is already decided.
    }
  }

  /**
   * Rolls back the open transaction; a failure of a fast-path statement left none (auto-commit: the
   * statement was its own transaction), and the driver would refuse a rollback there with an error that
   * would only clutter the real cause.
   */
  private static void rollbackQuietly(Connection c, Exception cause) {
    try {
      if (!c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  private static void setText(PreparedStatement st, int i, @Nullable String value) throws SQLException {
    if (value == null) {
      st.setNull(i, Types.VARCHAR);
    } else {
      st.setString(i, value);
    }
  }

  private static void setInstant(PreparedStatement st, int i, @Nullable Instant value) throws SQLException {
    if (value == null) {
      st.setNull(i, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      st.setObject(i, OffsetDateTime.ofInstant(value, ZoneOffset.UTC));
    }
  }

  /** A unit of work in one transaction. */
  @FunctionalInterface
  private interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** An operation's fast path: its result, or null when the full transaction must run. */
  @FunctionalInterface
  private interface FastWork<T> {
    @Nullable T run(Connection c) throws SQLException;
  }

  /** The work of a fenced update once the fence holds. */
  @FunctionalInterface
  private interface LeaseWork {
    LeaseResult run(Connection c, Job current) throws SQLException;
  }

  /** A one-statement attempt at a fenced update; null when the full path must run. */
  @FunctionalInterface
  private interface FastPath {
    @Nullable LeaseResult run(Connection c) throws SQLException;
  }

  /** Re-runs the transaction: a concurrent writer won a race that the next run reports. */
  private static final class Retry extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Retry() {
      super(null, null, false, false);
    }
  }
}
