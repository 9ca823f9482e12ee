package dev.cipolicy.postgres;

import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.Collector;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.Failure;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import dev.cipolicy.queue.spi.InvalidQueueInputException;
import dev.cipolicy.queue.spi.Job;
import dev.cipolicy.queue.spi.JobId;
import dev.cipolicy.queue.spi.LeaseRef;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.NewRequest;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.Request;
import dev.cipolicy.queue.spi.RequestId;
import dev.cipolicy.queue.spi.RequestScan;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

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
 * such rows as values and go on with the others. Every operation runs under a lock, a statement and an
 * idle-in-transaction timeout ({@link PostgresQueueOptions#timeouts()}, defaults 2 s, 10 s, 10 s), so a
 * session that stalled holding a lock (the control row, a job) blocks nobody for longer. A database that
 * cannot be reached (no connection, or the connection lost) or a reached time limit is the retryable
 * {@link QueueStoreUnavailableException} naming the operation and whether it may have committed; serialization failures, deadlocks and unique violations re-run the operation, which then reports
 * the race's outcome as a value. Instants are kept to the microsecond ({@link QueueStore#truncate}); the store
 * never reads a clock.
 *
 * <p>This class is the store's public face; its work is done by package-private parts over one shared
 * transaction runner: requests, claims, fenced lease operations, expiry and maintenance, collectors, the SQL
 * text and the row mapping.
 */
public final class PostgresQueueStore implements QueueStore {

  private final PostgresQueueOptions options;
  private final QueueContext ctx;
  private final QueueRequests requests;
  private final QueueJobs jobs;
  private final QueueCollectors collectors;
  private final QueueExpiry expiry;
  private final QueueClaims claims;
  private final QueueLeases leases;

  private PostgresQueueStore(DataSource dataSource, PostgresQueueOptions options) {
    if (dataSource == null) {
      throw new InvalidQueueInputException("the PostgreSQL queue store needs a DataSource; got none");
    }
    if (options == null) {
      throw new InvalidQueueInputException("the PostgreSQL queue store needs its options (schema, table prefix);"
          + " got none");
    }
    this.options = options;
    this.ctx = new QueueContext(dataSource, options, QueueContext.policy());
    this.requests = new QueueRequests(ctx);
    this.jobs = new QueueJobs(ctx);
    this.collectors = new QueueCollectors(ctx);
    this.expiry = new QueueExpiry(ctx, jobs);
    this.claims = new QueueClaims(ctx, jobs, expiry, collectors);
    this.leases = new QueueLeases(ctx, jobs, collectors);
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

  // ---------------------------------------------------------------------------------------------- requests

  @Override
  public SubmitResult submit(NewRequest request, Instant now) {
    return requests.submit(request, QueueStore.truncate(now));
  }

  @Override
  public AttachResult attachArtifacts(RequestId id, String sha, String parentSha, Instant now) {
    return requests.attachArtifacts(id, sha, parentSha);
  }

  @Override
  public Optional<Request> request(RequestId id) {
    return requests.request(id);
  }

  @Override
  public Optional<Request> requestByTag(String tag) {
    return requests.requestByTag(tag);
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
    return requests.start(new StartCommand(command.requestId(), command.jobs(), command.backfillParent(),
        command.maxInProgress(), QueueStore.truncate(command.now())));
  }

  @Override
  public CompletionResult completeIfDone(RequestId id, Instant now) {
    return requests.completeIfDone(id, QueueStore.truncate(now));
  }

  @Override
  public CancelResult cancel(RequestId id, String reason, Instant now) {
    return requests.cancel(id, reason, QueueStore.truncate(now));
  }

  // -------------------------------------------------------------------------------------------------- jobs

  @Override
  public ClaimResult claim(ClaimCommand command) {
    return claims.claim(truncated(command));
  }

  @Override
  public LeaseResult heartbeat(LeaseRef lease, Duration leaseDuration, Instant now) {
    return leases.heartbeat(lease, leaseDuration, QueueStore.truncate(now));
  }

  @Override
  public LeaseResult complete(LeaseRef lease, Instant now) {
    return leases.complete(lease, QueueStore.truncate(now));
  }

  /**
   * Completes a batch with one auto-committed statement (one round trip, one commit) for every item whose
   * lease is live, fenced and not flagged; each other item (stale, expired, unknown, flagged, or a row that
   * needs the full checks) then runs the full path of {@link #complete} in its own transaction, which reports
   * it exactly as completing it alone would. Each item is atomic; the batch is not one transaction.
   */
  @Override
  public List<LeaseResult> completeAll(List<LeaseRef> refs, Instant now) {
    List<LeaseRef> batch = LeaseRef.checkedBatch(refs);
    if (now == null) {
      throw new InvalidQueueInputException("completion instant is missing");
    }
    Instant at = QueueStore.truncate(now);
    if (batch.isEmpty()) {
      return List.of();
    }
    if (batch.size() == 1) {
      return List.of(leases.complete(batch.get(0), at));
    }
    return leases.completeAll(batch, at);
  }

  @Override
  public LeaseResult fail(LeaseRef lease, Failure failure, int maxTransientRetries, Instant now) {
    return leases.fail(lease, failure, maxTransientRetries, QueueStore.truncate(now));
  }

  @Override
  public LeaseResult release(LeaseRef lease, Instant now) {
    return leases.release(lease, QueueStore.truncate(now));
  }

  @Override
  public ExpiryResult expireLeases(Instant now, int maxCrashRescues) {
    return expiry.expireLeases(QueueStore.truncate(now), maxCrashRescues);
  }

  @Override
  public Optional<Job> job(JobId id) {
    return jobs.job(id);
  }

  @Override
  public List<Job> jobs(RequestId requestId) {
    return jobs.jobs(requestId);
  }

  // ---------------------------------------------------------------------------------------------- collectors

  @Override
  public RegisterResult registerCollector(String name, String tag, boolean active, Instant now) {
    return collectors.register(name, tag, active, QueueStore.truncate(now));
  }

  @Override
  public CollectorResult collectorHeartbeat(String name, Instant now) {
    return collectors.heartbeat(name, QueueStore.truncate(now));
  }

  @Override
  public CollectorResult setCollectorActive(String name, boolean active) {
    return collectors.setActive(name, active);
  }

  @Override
  public Optional<Collector> collector(String name) {
    return collectors.collector(name);
  }

  @Override
  public List<Collector> collectors() {
    return collectors.collectors();
  }

  // --------------------------------------------------------------------------------------- for this module

  /** The claim fast path's statement, for a test that checks its plan. */
  String claimStatement() {
    return ctx.sql.claim;
  }

  /** Binds the claim fast path's parameters from {@code first} on ({@link #claimStatement()}). */
  void bindClaim(PreparedStatement st, int first, ClaimCommand command, String tag) throws SQLException {
    QueueClaims.bind(st, first, truncated(command), tag);
  }

  /** Runs the opportunistic vacuum now if it is due; whether it ran. */
  boolean vacuumIfNeeded() {
    return expiry.vacuumIfNeeded();
  }

  private static ClaimCommand truncated(ClaimCommand command) {
    return new ClaimCommand(command.collector(), QueueStore.truncate(command.now()), command.leaseDuration(),
        command.collectorTimeout(), command.maxCrashRescues(), command.limit());
  }
}
