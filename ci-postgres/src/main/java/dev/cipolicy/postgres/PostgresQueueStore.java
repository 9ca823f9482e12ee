package dev.cipolicy.postgres;

import dev.cipolicy.queue.model.CiRunKey;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.QueueNames;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.CompleteAndClaimResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.HistoryPage;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.PurgeResult;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.OperatorAction;
import dev.cipolicy.queue.spi.OperatorAudit;
import dev.cipolicy.queue.spi.RetireResult;
import dev.cipolicy.queue.spi.RetryResult;
import dev.cipolicy.queue.spi.RequestScan;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
 *       becomes queued (ADR 0003), and notify waiting collectors ({@link PostgresQueueWakeups}).
 *   <li>Fencing: lease updates and deletes are {@code WHERE job_id = ? AND attempt = ? AND token = ?}.
 * </ul>
 *
 * <p>The tables live in a schema under a prefix the host chooses ({@link PostgresQueueOptions}). A row that
 * no legal sequence of operations produces (edited by hand past the CHECK constraints, or across rows where
 * no constraint reaches) is reported as an {@link ImpossibleRowException} naming the table, row key, column
 * and value; {@link #scanOpenRequests()}, {@link #scanInProgressRequests()} and {@link #expireLeases} report
 * such rows as values and go on with the others. Every operation runs under a lock, a statement and an
 * idle-in-transaction timeout ({@link PostgresQueueOptions#timeouts()}, defaults 2 s, 10 s, 10 s), so a
 * session that stalled holding a lock (the control row, a job) blocks nobody for longer. A database that
 * cannot be reached (no connection, or the connection lost) or a reached time limit is the retryable
 * {@link QueueStoreUnavailableException} naming the operation and whether it may have committed;
 * serialization failures, deadlocks and unique violations re-run the operation, which then reports the
 * race's outcome as a value.
 *
 * <p>Time is the database server's: every operation reads the server's clock once and measures lease
 * expiry, heartbeats, collector liveness and every instant it records on it, so all processes sharing the
 * schema share one clock whatever their hosts' clocks say. Instants are kept to the microsecond
 * ({@link QueueStore#truncate}). Results ({@link #complete(LeaseRef, ResultPayload)}) are kept in a table of
 * their own, written in the transaction that marks the job succeeded.
 *
 * <p>This class is the store's public face; its work is done by package-private parts over one shared
 * transaction runner: requests, claims, fenced lease operations, expiry and maintenance, collectors, the SQL
 * text and the row mapping.
 */
public final class PostgresQueueStore implements QueueStore, OperatorAudit {

  private final PostgresQueueOptions options;
  private final QueueContext ctx;
  private final QueueRequests requests;
  private final QueueHistory history;
  private final QueueJobs jobs;
  private final QueueCollectors collectors;
  private final QueueExpiry expiry;
  private final QueueClaims claims;
  private final QueueLeases leases;
  private final QueueLogs logs;
  private final QueueOperators operators;

  private PostgresQueueStore(DataSource dataSource, PostgresQueueOptions options, @Nullable InstantSource clock) {
    if (dataSource == null) {
      throw new InvalidQueueInputException("the PostgreSQL queue store needs a DataSource; got none");
    }
    if (options == null) {
      throw new InvalidQueueInputException("the PostgreSQL queue store needs its options (schema, table prefix);"
          + " got none");
    }
    this.options = options;
    this.ctx = new QueueContext(dataSource, options, QueueContext.policy(), clock);
    this.requests = new QueueRequests(ctx);
    this.history = new QueueHistory(ctx);
    this.jobs = new QueueJobs(ctx);
    this.collectors = new QueueCollectors(ctx);
    this.expiry = new QueueExpiry(ctx, jobs);
    this.claims = new QueueClaims(ctx, jobs, expiry, collectors);
    this.leases = new QueueLeases(ctx, jobs, collectors);
    this.logs = new QueueLogs(ctx, jobs);
    this.operators = new QueueOperators(ctx, jobs);
  }

  /**
   * A store on a schema with the default table prefix, migrated to the latest version first (creating the
   * schema if needed).
   *
   * @param dataSource the database; the store opens one connection per operation and closes it
   * @param schema the schema name, a plain lower-case identifier (see {@link PostgresQueueOptions#inSchema})
   * @return the store
   * @throws InvalidQueueInputException when the schema name is not a plain identifier
   * @throws QueueStoreUnavailableException when the database cannot be reached
   * @throws QueueStoreException when the migration fails otherwise
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
   * @throws QueueStoreUnavailableException when the database cannot be reached
   * @throws QueueStoreException when the migration fails otherwise
   */
  public static PostgresQueueStore create(DataSource dataSource, PostgresQueueOptions options) {
    PostgresMigrations.migrate(dataSource, options);
    return new PostgresQueueStore(dataSource, options, null);
  }

  /**
   * A migrated store whose clock is {@code clock} instead of the database server's: for this module's tests,
   * which move time without waiting (every process on the schema must then use the same clock).
   */
  static PostgresQueueStore createOnClock(DataSource dataSource, PostgresQueueOptions options,
      InstantSource clock) {
    PostgresMigrations.migrate(dataSource, options);
    return new PostgresQueueStore(dataSource, options, clock);
  }

  /** A migrated store on a schema with the default prefix, on {@code clock} (see above). */
  static PostgresQueueStore createOnClock(DataSource dataSource, String schema, InstantSource clock) {
    return createOnClock(dataSource, PostgresQueueOptions.inSchema(schema), clock);
  }

  /** An attached store on a schema with the default prefix, on {@code clock} (see {@link #createOnClock}). */
  static PostgresQueueStore attachOnClock(DataSource dataSource, String schema, InstantSource clock) {
    return attachOnClock(dataSource, PostgresQueueOptions.inSchema(schema), clock);
  }

  /** An attached store on {@code clock} (see {@link #createOnClock}). */
  static PostgresQueueStore attachOnClock(DataSource dataSource, PostgresQueueOptions options,
      InstantSource clock) {
    return new PostgresQueueStore(dataSource, options, clock);
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
    return new PostgresQueueStore(dataSource, options, null);
  }

  /**
   * The schema this store works in.
   *
   * @return the schema name
   */
  public String schema() {
    return ctx.schema;
  }

  /**
   * Where this store keeps its tables.
   *
   * @return the schema and table prefix
   */
  public PostgresQueueOptions options() {
    return options;
  }

  /**
   * Why the last opportunistic vacuum of the churning tables could not run, if it could not (see
   * {@link #expireLeases}); autovacuum still vacuums them, only less often.
   *
   * @return the problem, or empty
   */
  public Optional<String> maintenanceProblem() {
    return expiry.maintenanceProblem();
  }

  /** The database server's {@code clock_timestamp()} (or the test clock), truncated to microseconds. */
  @Override
  public Instant now() {
    return ctx.tx.inTransaction("now", ctx::now);
  }

  // ---------------------------------------------------------------------------------------------- requests

  @Override
  public SubmitResult submit(NewRequest request) {
    return requests.submit(present(request, "request"));
  }

  @Override
  public AttachResult attachArtifacts(RequestId id, String sha, String parentSha) {
    present(id, "request id");
    QueueNames.check(sha, "try SHA");
    QueueNames.check(parentSha, "try parent SHA");
    return requests.attachArtifacts(id, sha, parentSha);
  }

  @Override
  public Optional<Request> request(RequestId id) {
    return requests.request(present(id, "request id"));
  }

  @Override
  public Optional<Request> requestByTag(String tag) {
    return requests.requestByTag(QueueNames.check(tag, "tag"));
  }

  @Override
  public Optional<Request> ciRun(CiRunKey key) {
    return requests.ciRun(dev.cipolicy.queue.model.Checks.present(key, "CI run key"));
  }

  @Override
  public Set<String> knownTags(Collection<String> tags) {
    present(tags, "tags");
    List<String> checked = new ArrayList<>(tags.size());
    for (String tag : tags) {
      checked.add(QueueNames.check(tag, "tag"));
    }
    return checked.isEmpty() ? Set.of() : requests.knownTags(checked);
  }

  @Override
  public HistoryPage history(int limit, @Nullable HistoryCursor after) {
    return history.history(HistoryPage.checkedLimit(limit), after);
  }

  @Override
  public PurgeResult purge(String tag) {
    return history.purge(QueueNames.check(tag, "tag"));
  }

  @Override
  public List<Request> openRequests() {
    return requests.openRequests();
  }

  @Override
  public List<Request> inProgressRequests() {
    return requests.inProgressRequests();
  }

  /** Like {@link #openRequests()}, with rows edited into impossible states reported, not thrown. */
  @Override
  public RequestScan scanOpenRequests() {
    return requests.scanOpenRequests();
  }

  /** Like {@link #inProgressRequests()}, with rows edited into impossible states reported, not thrown. */
  @Override
  public RequestScan scanInProgressRequests() {
    return requests.scanInProgressRequests();
  }

  @Override
  public StartResult startRequest(StartCommand command) {
    return requests.start(present(command, "start command"));
  }

  @Override
  public CompletionResult completeIfDone(RequestId id) {
    return requests.completeIfDone(present(id, "request id"));
  }

  @Override
  public CancelResult cancel(RequestId id, String reason) {
    present(id, "request id");
    return requests.cancel(id, QueueNames.text(reason, "cancellation reason"));
  }

  // -------------------------------------------------------------------------------------------------- jobs

  @Override
  public ClaimResult claim(ClaimCommand command) {
    return claims.claim(present(command, "claim command"));
  }

  @Override
  public LeaseResult heartbeat(LeaseRef lease, Duration leaseDuration) {
    present(lease, "lease");
    if (leaseDuration == null || leaseDuration.isNegative() || leaseDuration.isZero()) {
      throw new InvalidQueueInputException("lease duration is " + leaseDuration + "; expected a positive duration");
    }
    return leases.heartbeat(lease, leaseDuration);
  }

  @Override
  public LeaseResult complete(LeaseRef lease, @Nullable ResultPayload result) {
    return leases.complete(present(lease, "lease"), result);
  }

  /**
   * Completes and claims as one transaction with one commit: the completion's fast statement (or its full
   * fenced path), then, when the lease ended, the claim's fast statement (or the full claim), on one
   * connection. A steady collector that runs one job at a time so costs one commit per job instead of two.
   * A stale lease rolls back nothing it wrote (it wrote nothing) and claims nothing.
   */
  @Override
  public CompleteAndClaimResult completeAndClaim(LeaseRef lease, @Nullable ResultPayload result,
      ClaimCommand next) {
    present(lease, "lease");
    present(next, "claim command");
    // After the claim's fast statement failed (a unique violation on a stray lease row), the re-run uses
    // the full claim, as a plain claim does.
    boolean[] fastFailed = {false};
    PgTransactions.Work<QueueClaims.Combined> full = c -> {
      LeaseResult done = leases.completeOn(c, lease, result);
      if (!CompleteAndClaimResult.endsLease(done.status())) {
        return new QueueClaims.Combined(done, null, null);
      }
      boolean fast = !fastFailed[0];
      try {
        return new QueueClaims.Combined(done, claims.claimOn(c, next, fast), null);
      } catch (SQLException e) {
        if (fast && PgTransactions.UNIQUE_VIOLATION.equals(e.getSQLState())) {
          fastFailed[0] = true;
        }
        throw e;
      }
    };
    // Without a result and with the claimer's tag known, the completion and the claim are first tried as one
    // auto-committed statement (one round trip): the common step of a collector that runs one job at a time.
    String known = result == null ? claims.knownTag(next.collector()) : null;
    QueueClaims.Combined step = known == null ? ctx.tx.inTransaction("completeAndClaim", full)
        : ctx.tx.run("completeAndClaim", c -> claims.completeAndClaimFast(c, lease, next, known, ctx.boundNow()),
            full);
    if (step.pending() == null) {
      return new CompleteAndClaimResult(step.completion(), Optional.ofNullable(step.claimed()));
    }
    // The completion is committed; the claim (or the rest of its limit) runs as a claim of its own would.
    ClaimResult more = claims.claim(step.pending());
    ClaimResult claimed = step.claimed();
    if (claimed == null) {
      return new CompleteAndClaimResult(step.completion(), Optional.of(more));
    }
    List<Claim> all = new ArrayList<>(claimed.claims());
    if (more.status() == ClaimResult.Status.OK) {
      all.addAll(more.claims());
    }
    return new CompleteAndClaimResult(step.completion(), Optional.of(new ClaimResult(ClaimResult.Status.OK, all)));
  }

  /**
   * Completes a batch with one auto-committed statement (one round trip, one commit) for every item whose
   * lease is live, fenced and not flagged; each other item (stale, expired, unknown, flagged, or a row that
   * needs the full checks) then runs the full path of {@link #complete} in its own transaction, which reports
   * it exactly as completing it alone would. Each item is atomic; the batch is not one transaction.
   */
  @Override
  public List<LeaseResult> completeAll(List<LeaseRef> refs) {
    List<LeaseRef> batch = LeaseRef.checkedBatch(refs);
    if (batch.isEmpty()) {
      return List.of();
    }
    if (batch.size() == 1) {
      return List.of(leases.complete(batch.get(0), null));
    }
    return leases.completeAll(batch);
  }

  /** Completes each item with its result in a transaction of its own (the default's rule). */
  @Override
  public List<LeaseResult> completeAll(List<LeaseRef> refs, List<ResultPayload> results) {
    return QueueStore.super.completeAll(refs, results);
  }

  @Override
  public Optional<JobResult> result(JobId id) {
    return leases.result(present(id, "job id"));
  }

  @Override
  public List<JobResult> results(RequestId requestId) {
    return leases.results(present(requestId, "request id"));
  }

  @Override
  public LeaseResult fail(LeaseRef lease, Failure failure, int maxTransientRetries) {
    return leases.fail(present(lease, "lease"), present(failure, "failure"), maxTransientRetries);
  }

  @Override
  public LeaseResult release(LeaseRef lease) {
    return leases.release(present(lease, "lease"));
  }

  @Override
  public ExpiryResult expireLeases(int maxCrashRescues) {
    return expiry.expireLeases(maxCrashRescues);
  }

  @Override
  public LeaseStatus appendLog(LeaseRef lease, List<LogChunk> chunks) {
    return logs.append(Checks.present(lease, "lease"), chunks);
  }

  @Override
  public Optional<JobLogView> log(JobId id, int attempt, long from) {
    return logs.log(id, attempt, from);
  }

  @Override
  public Optional<Job> job(JobId id) {
    return jobs.job(present(id, "job id"));
  }

  /** Reads the job's rows of the attempts table, oldest first. */
  @Override
  public List<JobAttempt> attempts(JobId id) {
    return jobs.attempts(present(id, "job id"));
  }

  @Override
  public List<Job> jobs(RequestId requestId) {
    return jobs.jobs(present(requestId, "request id"));
  }

  // ---------------------------------------------------------------------------------------------- collectors

  @Override
  public void setShares(FleetShares shares) {
    claims.setShares(present(shares, "fleet shares"));
  }

  @Override
  public FleetShares shares() {
    return claims.shares();
  }

  @Override
  public PoolView pool(String tag, Duration collectorTimeout) {
    return claims.pool(QueueNames.check(tag, "collector tag"), collectorTimeout);
  }

  @Override
  public RegisterResult registerCollector(String name, String tag, boolean active) {
    return registerCollector(name, tag, active, Devices.none());
  }

  @Override
  public RegisterResult registerCollector(String name, String tag, boolean active, Devices devices) {
    if (devices == null) {
      throw new InvalidQueueInputException("collector " + name + " has no device inventory; expected one,"
          + " possibly empty");
    }
    return collectors.register(QueueNames.check(name, "collector name"), QueueNames.check(tag, "collector tag"),
        active, devices);
  }

  @Override
  public CollectorResult collectorHeartbeat(String name) {
    return collectors.heartbeat(QueueNames.check(name, "collector name"));
  }

  @Override
  public CollectorResult setCollectorActive(String name, boolean active) {
    return collectors.setActive(QueueNames.check(name, "collector name"), active);
  }

  @Override
  public RetireResult retireCollector(String name) {
    return collectors.retire(QueueNames.check(name, "collector name"));
  }

  @Override
  public RetryResult retryJob(JobId id, int maxInProgress) {
    present(id, "job id");
    return operators.retryJob(id, maxInProgress);
  }

  @Override
  public boolean setPoolPaused(String tag, boolean paused) {
    return operators.setPoolPaused(QueueNames.check(tag, "pool"), paused);
  }

  @Override
  public Set<String> pausedPools() {
    return operators.pausedPools();
  }

  @Override
  public OperatorAction recordAction(String actor, String action, String target, String result) {
    return operators.record(OperatorAction.check(actor, "actor"), OperatorAction.check(action, "action"),
        OperatorAction.check(target, "target"), OperatorAction.check(result, "result"));
  }

  @Override
  public List<OperatorAction> operatorActions(int limit) {
    return operators.actions(limit);
  }

  @Override
  public Optional<Collector> collector(String name) {
    return collectors.collector(QueueNames.check(name, "collector name"));
  }

  @Override
  public List<Collector> collectors() {
    return collectors.collectors();
  }

  private static <T> T present(@Nullable T value, String what) {
    if (value == null) {
      throw new InvalidQueueInputException(what + " is missing");
    }
    return value;
  }

  // --------------------------------------------------------------------------------------- for this module

  /** The claim fast path's statement, for a test that checks its plan. */
  String claimStatement() {
    return ctx.sql.claim;
  }

  /** Binds the claim fast path's parameters from {@code first} on ({@link #claimStatement()}) at {@code now}. */
  void bindClaim(PreparedStatement st, int first, ClaimCommand command, String tag, Instant now)
      throws SQLException {
    QueueClaims.bind(st, first, command, tag, QueueStore.truncate(now));
  }

  /** Runs the opportunistic vacuum now if it is due; whether it ran. */
  boolean vacuumIfNeeded() {
    return expiry.vacuumIfNeeded();
  }

}
