package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.CiRunKey;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.LogWindow;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Precision;
import dev.cipolicy.queue.model.QueueNames;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.placement.ShareLedger;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The storage port of the job queue: every state change of requests, jobs and collectors, each one an
 * atomic, conditional operation that enforces its invariant inside the store, so that any number of site
 * and collector processes sharing the store stay correct without coordinating otherwise.
 *
 * <p>Contract (checked by {@code dev.cipolicy.queue.tck.QueueStoreCompatibilityKit}):
 * <ul>
 *   <li><b>Atomicity.</b> Each method is one transaction: it reads, checks its condition and writes as one
 *       step, linearizable with every other call on the same store. {@link #completeAll} is atomic per item
 *       (each item as one {@link #complete(LeaseRef, ResultPayload)}).
 *   <li><b>Outcomes are values.</b> A condition that does not hold (a duplicate, a stale lease, a reached
 *       cap) is reported in the result and changes nothing; methods throw only
 *       {@link InvalidQueueInputException} for unusable arguments and {@link QueueStoreException} when the
 *       store itself fails: {@link QueueStoreUnavailableException} when its database cannot be reached,
 *       {@link ImpossibleRowException} when a row the operation needs was edited into a state no
 *       operation produces.
 *   <li><b>One clock: the store's own, kept to the microsecond.</b> No method takes an instant: every
 *       operation reads the time from the store's clock ({@link #now()}), once, inside its step, and uses it
 *       for everything it records and compares: creation, start and finish instants, lease expiry
 *       ({@code now + leaseDuration}; durations are the caller's), heartbeats and a collector's liveness.
 *       So a caller whose clock is wrong (a site or collector running ahead) cannot expire a live lease,
 *       spend a crash budget or take a live collector's jobs: the processes sharing a store share its
 *       clock. An embedded store is given a clock when it is built; a database store uses the database
 *       server's time. Every instant a store keeps, compares or returns is a whole microsecond
 *       ({@link #PRECISION}, what PostgreSQL's {@code timestamptz} holds): a store truncates each instant
 *       it reads or derives with {@link #truncate}, so the value a call returns equals what the store reads
 *       back later. Heartbeat instants only move forward ({@link Collector#heartbeatAt}).
 *   <li><b>Text.</b> Every name and free text a store keeps passes {@link QueueNames} (no NUL character,
 *       no unpaired surrogate, bounded length) before anything is written, so every store accepts and
 *       refuses the same text.
 *   <li><b>Results.</b> {@link #complete(LeaseRef, ResultPayload)} keeps a job's result in the same step
 *       that marks it succeeded: a job has a result only if it succeeded by that completion, a stale
 *       attempt's result is never kept, and a kept result never changes.
 *   <li><b>Identity.</b> Request and job ids increase in creation order; lease tokens are never reused.
 *   <li><b>Fencing.</b> {@link #heartbeat}, {@link #complete(LeaseRef, ResultPayload)} (and each item of {@link #completeAll}),
 *       {@link #fail} and {@link #release} name the lease by its fence, a {@link LeaseRef} (job, attempt,
 *       token), and act only when the job is leased, its lease has this attempt and token, and the lease is
 *       live on the store's clock; otherwise they return {@link LeaseStatus#STALE_LEASE} and change nothing.
 *   <li><b>Transitions.</b> State changes use the transition methods of {@link Request} and {@link Job}
 *       (or write the same values), so that every store records the same thing.
 * </ul>
 */
public interface QueueStore {

  /** The precision of every instant a store keeps and returns: microseconds. */
  ChronoUnit PRECISION = Precision.UNIT;

  /**
   * The instant on the store's clock, the one every operation of the store measures time on, truncated to
   * {@link #PRECISION}. Reports (the status view, a collector's online status) read it, never the caller's
   * clock.
   *
   * @return the store's current instant
   */
  Instant now();

  /**
   * An instant as every store keeps it: truncated to {@link #PRECISION}, toward the past. A store applies it
   * to each instant it reads or derives before it compares or keeps it.
   *
   * @param instant any instant
   * @return the instant without its sub-microsecond part
   */
  static Instant truncate(Instant instant) {
    return Precision.truncate(instant);
  }

  /**
   * Creates a request in the state its kind fixes, unless its tag exists (any kind) or its PR has an open
   * request of the same kind; then nothing changes and the existing request is returned. Tag uniqueness is
   * checked first. Invariants: tags are unique; at most one open request per (PR, kind).
   *
   * <p>A CI run ({@link dev.cipolicy.queue.model.RequestKind#CI_RUN}) is keyed by its {@link CiRunKey}
   * instead, in one atomic step: a run whose key exists (any state) is {@code ATTACHED} and changes nothing;
   * a run with a concurrency group older than an open run of its repository and group is created cancelled,
   * without jobs, superseded by the newest such run ({@code SUPERSEDED}); otherwise it is created in progress
   * with its jobs queued, and every open run of its repository and group with an older key is cancelled as
   * {@link #cancel} does (queued jobs cancelled, leased ones flagged), with {@code Request.superseded}'s
   * reason. It has no tag, parent or backfill, and does not count against the in-progress cap.
   *
   * @param request the request
   * @return created, or the duplicate (the creation instant is the store's now)
   */
  SubmitResult submit(NewRequest request);

  /**
   * The CI run request with this key, in any state.
   *
   * @param key repository, run id and attempt
   * @return the request, if any
   */
  Optional<Request> ciRun(CiRunKey key);

  /**
   * Attaches a try request's SHA and parent: a compare-and-set that moves it from waiting for artifacts to
   * ready only if it is still waiting and no request has the SHA as its tag.
   *
   * @param id the try request
   * @param sha the head SHA, its new tag
   * @param parentSha the SHA it is compared with
   * @return what happened
   */
  AttachResult attachArtifacts(RequestId id, String sha, String parentSha);

  /**
   * The request with this id.
   *
   * @param id the id
   * @return the request, if any
   */
  Optional<Request> request(RequestId id);

  /**
   * The request with this tag, of any kind and state.
   *
   * @param tag a SHA or release tag
   * @return the request, if any
   */
  Optional<Request> requestByTag(String tag);

  /**
   * Which of the given tags some request has, of any kind and state: what tells a done parent (its request
   * completed, was cancelled or is open) from an unknown one (no request has the tag), which the queue
   * order places last. The default asks {@link #requestByTag} once per tag; stores answer in one step.
   *
   * @param tags SHAs or release tags, usually the parents of the open requests that are not open themselves
   * @return the tags among them that a request has
   * @throws InvalidQueueInputException when the collection or a tag is missing or not a storable name
   */
  default Set<String> knownTags(Collection<String> tags) {
    Checks.present(tags, "tags");
    Set<String> known = new HashSet<>();
    for (String tag : tags) {
      if (requestByTag(tag).isPresent()) {
        known.add(tag);
      }
    }
    return Set.copyOf(known);
  }

  /**
   * Every open request (waiting, ready or in progress), by id.
   *
   * @return the open requests
   */
  List<Request> openRequests();

  /**
   * Every request in progress, by id.
   *
   * @return the requests in progress
   */
  List<Request> inProgressRequests();

  /**
   * Every open request, like {@link #openRequests()}, but a row that no legal sequence of operations
   * produces (edited by hand) is reported in {@link RequestScan#impossibleRows()} instead of failing the
   * whole read. The default suits stores whose rows cannot be impossible.
   *
   * @return the open requests by id, and the impossible rows
   */
  default RequestScan scanOpenRequests() {
    return RequestScan.of(openRequests());
  }

  /**
   * Every request in progress, like {@link #inProgressRequests()}, with impossible rows reported instead of
   * failing the read (see {@link #scanOpenRequests()}).
   *
   * @return the requests in progress by id, and the impossible rows
   */
  default RequestScan scanInProgressRequests() {
    return RequestScan.of(inProgressRequests());
  }

  /**
   * Starts a ready request if fewer than {@code maxInProgress} requests are in progress: moves it to in
   * progress and creates its jobs, queued, in order; then, if asked and the request has a parent SHA whose
   * request is in progress or completed, creates for that parent each job it lacks (same group and tag;
   * existing ones are no-ops; the parent's state never changes) and records the parent as the request's
   * {@link Request#parentRequest()}. The cap check, the state check and all writes are one step:
   * concurrent calls from several sites never exceed the cap. Invariant: at most K requests in progress.
   *
   * @param command what to start and the cap
   * @return what happened
   */
  StartResult startRequest(StartCommand command);

  /**
   * Completes an in-progress request if every required job of it and of its recorded parent request is
   * terminal, with the {@link Outcome} of its own jobs; otherwise changes nothing. Exactly one of concurrent
   * callers sees {@link CompletionResult.Status#COMPLETED}. Invariant: completed is absorbing.
   *
   * @param id the request
   * @return what happened
   */
  CompletionResult completeIfDone(RequestId id);

  /**
   * Cancels an open request: its queued jobs become cancelled, its leased jobs are flagged (their holders
   * learn it on the next fenced update), and it no longer counts against the cap. Completed and cancelled
   * requests do not change.
   *
   * @param id the request
   * @param reason why, e.g. {@code PR closed}; a free text ({@link QueueNames#text})
   * @return what happened
   * @throws InvalidQueueInputException when the reason is not a storable text
   */
  CancelResult cancel(RequestId id, String reason);

  /**
   * Claims up to {@code limit} jobs of the collector's registered tag. An unknown or inactive collector gets
   * nothing and changes nothing. Otherwise, as one step, at the store's {@code now}: the collector's heartbeat
   * becomes {@code now};
   * every expired lease on a job of that tag is processed as {@link #expireLeases} would; then queued jobs
   * of that tag are leased (next attempt, fresh token, expiry {@code now + leaseDuration}, affinity to the
   * claimer) in this order: jobs with affinity to the claimer, by id; then, by id, jobs without affinity and
   * jobs whose affinity collector is inactive or whose heartbeat is at least {@code collectorTimeout} old.
   * Concurrent claims never lease the same job twice (with SQL: {@code FOR UPDATE SKIP LOCKED}). In a pool
   * that some {@link #setShares fleet share} covers, a job is leased only when {@link ShareLedger#admits}
   * admits it, judged on the pool's live leases at that moment including those this claim took before; a
   * refused job is skipped (it stays queued, its place kept) and the claim goes on with the next. The check
   * and the lease are one step: concurrent claims never exceed a share between them. Jobs that
   * need GPUs are claimed only by a collector with devices, before the jobs that need none, as
   * {@link DevicePlacement} places them (see {@link #registerCollector(String, String, boolean, Devices)}).
   * Invariants: at most one live lease per job; no device of a collector held by two live leases; no share
   *     exceeded except by its borrowing.
   *
   * @param command who claims, for how long and how much
   * @return the claims
   */
  ClaimResult claim(ClaimCommand command);

  /**
   * Renews a live lease until the store's {@code now + leaseDuration} (same attempt and token) and refreshes its
   * holder's heartbeat. If the job is flagged for cancellation it is cancelled instead and the result is
   * {@link LeaseStatus#CANCELLED}.
   *
   * @param lease the fence of the lease
   * @param leaseDuration the renewal
   * @return what happened
   */
  LeaseResult heartbeat(LeaseRef lease, Duration leaseDuration);

  /**
   * Marks the job of a live lease succeeded (or cancelled, if flagged), without a result. Invariant: a job
   * completes once.
   *
   * @param lease the fence of the lease
   * @return what happened
   */
  default LeaseResult complete(LeaseRef lease) {
    return complete(lease, null);
  }

  /**
   * Marks the job of a live lease succeeded (or cancelled, if flagged) and keeps its result, in one step:
   * the result is kept exactly when the job becomes succeeded by this call, so a crash cannot separate the
   * two, and a stale, expired, unknown or flagged lease keeps no result. A kept result never changes.
   * Invariant: a job completes once and has at most one result.
   *
   * @param lease the fence of the lease
   * @param result the job's result, or null for none
   * @return what happened
   */
  LeaseResult complete(LeaseRef lease, @Nullable ResultPayload result);

  /**
   * Completes several leases at once, for a collector that ran several jobs: each item is fenced and applied
   * exactly as {@link #complete(LeaseRef)} would apply it, and the result lists one {@link LeaseResult}
   * per item, in the given order, equal to what completing the items one by one in that order returns. A
   * stale, expired, unknown or cancel-flagged item gets its own result and does not affect the others.
   *
   * <p>Each item is atomic; the batch as a whole need not be one transaction (a store may apply the items
   * that pass a common fast path together and the others one by one). The list is checked first with
   * {@link LeaseRef#checkedBatch}: a missing list or item, or a job listed twice, is an
   * {@link InvalidQueueInputException} and changes nothing. An empty batch does nothing. When the store
   * fails part-way (a {@link QueueStoreException}), earlier items may have been applied; completing the
   * same batch again is safe, since an applied item then reports {@link LeaseStatus#STALE_LEASE} with its
   * succeeded job. The default calls {@link #complete(LeaseRef)} for each item; stores override it to save
   * round trips and commits.
   *
   * @param leases the fences of the leases to complete, each job at most once
   * @return one result per item, in order
   */
  default List<LeaseResult> completeAll(List<LeaseRef> leases) {
    List<LeaseRef> batch = LeaseRef.checkedBatch(leases);
    List<LeaseResult> results = new java.util.ArrayList<>(batch.size());
    for (LeaseRef ref : batch) {
      results.add(complete(ref));
    }
    return List.copyOf(results);
  }

  /**
   * Completes several leases at once, each with its result: item {@code i} is applied exactly as
   * {@code complete(leases.get(i), results.get(i))} would apply it, with the rules of
   * {@link #completeAll(List)}. The two lists must have the same size; that and the batch are checked
   * before anything changes. The default calls {@link #complete(LeaseRef, ResultPayload)} for each item.
   *
   * @param leases the fences of the leases to complete, each job at most once
   * @param results the result of each item, in the same order
   * @return one result per item, in order
   * @throws InvalidQueueInputException when a list or an item is missing, a job is listed twice, or the
   *     sizes differ
   */
  default List<LeaseResult> completeAll(List<LeaseRef> leases, List<ResultPayload> results) {
    List<LeaseRef> batch = LeaseRef.checkedBatch(leases);
    List<ResultPayload> payloads = ResultPayload.checkedBatch(results, batch.size());
    List<LeaseResult> out = new java.util.ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      out.add(complete(batch.get(i), payloads.get(i)));
    }
    return List.copyOf(out);
  }

  /**
   * Completes a lease and, when that ended it, claims the next jobs, for a collector that runs one job at a
   * time: the completion is exactly {@link #complete(LeaseRef, ResultPayload)} of {@code lease} (fenced,
   * cancelled instead when flagged, the result kept only on success), and the claim is exactly
   * {@link #claim(ClaimCommand)} of {@code next}, run right after it.
   *
   * <p>Fencing: the claim runs only when the completion ended the lease, {@link LeaseStatus#OK} or
   * {@link LeaseStatus#CANCELLED}. A stale, expired or unknown lease ({@link LeaseStatus#STALE_LEASE},
   * {@link LeaseStatus#NOT_FOUND}) returns that completion's result with no claim, and nothing changes: a
   * collector whose lease was taken from it learns so before it gets more work. The claim may be for another
   * collector than the lease's holder; it is checked as {@link #claim} checks it (an unknown or inactive
   * collector gets nothing, the completion still applies).
   *
   * <p>The result equals completing then claiming with two calls. The default does exactly that, two steps;
   * a store may do both in one step (PostgreSQL: one transaction, one commit), which is what makes a steady
   * one-job-at-a-time collector cost one commit per job.
   *
   * @param lease the fence of the lease to complete
   * @param result the job's result, or null for none
   * @param next the claim to run once the lease ended
   * @return the completion's result and, when it ended the lease, the claim's
   * @throws InvalidQueueInputException when the lease or the claim command is missing
   */
  default CompleteAndClaimResult completeAndClaim(LeaseRef lease, @Nullable ResultPayload result,
      ClaimCommand next) {
    Checks.present(lease, "lease");
    Checks.present(next, "claim command");
    LeaseResult done = complete(lease, result);
    return new CompleteAndClaimResult(done, CompleteAndClaimResult.endsLease(done.status())
        ? Optional.of(claim(next)) : Optional.empty());
  }

  /**
   * The result kept for a job, if it succeeded with one.
   *
   * @param id the job
   * @return the result, if any
   */
  Optional<JobResult> result(JobId id);

  /**
   * The results kept for the jobs of a request (its own and those backfilled to it), by job id; jobs
   * without a result are left out. They stay readable after the request completes.
   *
   * @param requestId the request
   * @return the results; empty for an unknown request
   */
  List<JobResult> results(RequestId requestId);

  /**
   * Records a failure of the job of a live lease (or cancels it, if flagged): a permanent failure fails it;
   * a transient failure queues it again with affinity to the holder while fewer than
   * {@code maxTransientRetries} transient retries were used, and fails it otherwise. Invariant: the
   * transient-failure budget is never exceeded.
   *
   * @param lease the fence of the lease
   * @param failure the failure
   * @param maxTransientRetries the transient-failure budget
   * @return what happened
   */
  LeaseResult fail(LeaseRef lease, Failure failure, int maxTransientRetries);

  /**
   * Hands the job of a live lease back: queued again, no budget spent, no affinity (or cancelled, if
   * flagged).
   *
   * @param lease the fence of the lease
   * @return what happened
   */
  LeaseResult release(LeaseRef lease);

  /**
   * Processes every lease expired on the store's clock (expiry not after the store's {@code now}): a flagged job is
   * cancelled; a job with fewer than {@code maxCrashRescues} rescues is queued again with one more rescue
   * and its affinity kept; any other fails with {@link JobFailure.Reason#CRASH_BUDGET_EXHAUSTED}.
   * Invariant: the crash-rescue budget is never exceeded. A store that can hold impossible rows leaves an
   * expired one unchanged and reports it in {@link ExpiryResult#impossibleRows()}, so it cannot block the
   * others.
   *
   * @param maxCrashRescues the crash-rescue budget
   * @return the jobs changed, each list by id
   */
  ExpiryResult expireLeases(int maxCrashRescues);

  /**
   * Appends output to the log of a lease's attempt, as one step, fenced like {@link #heartbeat}: only the
   * job's live lease of exactly this attempt and token appends ({@link LeaseStatus#OK}, also while the job is
   * flagged for cancellation, so the output up to its stop is kept); anything else is
   * {@link LeaseStatus#STALE_LEASE} or {@link LeaseStatus#NOT_FOUND} and changes nothing. The store keeps the
   * attempt's log bounded by {@link LogWindow} (the first {@link LogWindow#STORE_HEAD_BYTES} and the last
   * {@link LogWindow#STORE_TAIL_BYTES} bytes, and the count of every byte), whatever the job writes. An append
   * does not count as the collector's heartbeat.
   *
   * <p>The default refuses, for stores that keep no logs.
   *
   * @param lease the fence of the lease
   * @param chunks the output, in order ({@link LogWindow#checkAppend}); empty appends nothing
   * @return {@code OK}, {@code STALE_LEASE} or {@code NOT_FOUND}
   * @throws InvalidQueueInputException when the chunks are missing, too many or too large, or skip bytes
   *     before the head is full; nothing is appended
   * @throws UnsupportedOperationException when the store keeps no logs
   */
  default LeaseStatus appendLog(LeaseRef lease, List<LogChunk> chunks) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep job logs");
  }

  /**
   * Reads an attempt's log from an offset, as one step: the kept bytes at or after {@code from} (see
   * {@link LogWindow#view}). Any caller may read at any time; an attempt that appended nothing reads as an
   * empty log. {@link JobLogView#finished()} is true once the attempt's lease ended or expired.
   *
   * <p>The default refuses, for stores that keep no logs.
   *
   * @param id the job
   * @param attempt the attempt, 1 or more
   * @param from the offset already read, 0 or more; past the end reads nothing new
   * @return the view; empty when the job is unknown or has not had this attempt
   * @throws InvalidQueueInputException when the attempt or offset is out of range
   * @throws UnsupportedOperationException when the store keeps no logs
   */
  default Optional<JobLogView> log(JobId id, int attempt, long from) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep job logs");
  }

  /**
   * Reads the log of a job's latest attempt from its start.
   *
   * @param id the job
   * @return the view; empty when the job is unknown or was never claimed
   */
  default Optional<JobLogView> log(JobId id) {
    Checks.present(id, "job id");
    return job(id).filter(j -> j.attempt() >= 1).flatMap(j -> log(id, j.attempt(), 0));
  }

  /**
   * The job with this id.
   *
   * @param id the id
   * @return the job, if any
   */
  Optional<Job> job(JobId id);

  /**
   * Every attempt of a job, by attempt number: who ran it (collector and devices), when it started and, once
   * its lease ended, when and how it ended and with which error ({@link dev.cipolicy.queue.model.JobAttempt}).
   * A store writes an attempt's record in the claim's transaction and completes it in the transaction of the
   * transition that ends its lease (completion, failure, release, expiry, cancellation), with the ending
   * {@link dev.cipolicy.queue.model.JobAttempt#endOf} computes. Purging a job's request deletes its attempts.
   *
   * @param id the job
   * @return its attempts, oldest first, immutable; empty for an unknown or never claimed job
   * @throws UnsupportedOperationException when the store does not record attempts
   */
  default List<dev.cipolicy.queue.model.JobAttempt> attempts(JobId id) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not record job attempts");
  }

  /**
   * The jobs of a request (its own and those backfilled to it), by id.
   *
   * @param requestId the request
   * @return the jobs; empty for an unknown request
   */
  List<Job> jobs(RequestId requestId);

  /**
   * One page of the history: the completed requests, newest first — by completion instant, then by id, both
   * descending — each with its errors (its failed jobs, own and backfilled, by id), read as one step.
   * Cancelled requests are not listed. Paging is by keyset: {@code after} is the previous page's
   * {@link HistoryPage#next()}, and the page holds the requests that come after it in that order, so that
   * requests completing meanwhile neither repeat nor skip an entry. A purged request is no longer listed.
   *
   * @param limit the page size, 1 to {@link HistoryPage#MAX_LIMIT}
   * @param after where the page starts, or null for the newest
   * @return the page, with the cursor of the next one when more requests completed earlier
   * @throws InvalidQueueInputException when the page size is out of range
   */
  HistoryPage history(int limit, @Nullable HistoryCursor after);

  /**
   * Removes an artifact: the request with this tag, every job of it (its own and those backfilled to it)
   * and their results, as one step; other requests, their jobs and results do not change (a request that
   * recorded it as its {@link Request#parentRequest()} keeps that id; a parent the store no longer holds has
   * no pending jobs). Afterwards no request has the tag: it can be submitted again, and a request naming it as
   * its parent SHA has an unknown parent. Only a closed request is purged: an open one (waiting, ready or in
   * progress) is {@link PurgeResult.Status#REQUEST_OPEN} — cancel it first — and one with a leased job is
   * {@link PurgeResult.Status#JOB_LEASED}; its queued jobs are removed with it. An unknown tag is
   * {@link PurgeResult.Status#NOT_FOUND}, a reported no-op.
   *
   * @param tag the SHA or release tag of the artifact
   * @return what happened
   * @throws InvalidQueueInputException when the tag is not a storable name
   */
  PurgeResult purge(String tag);

  /**
   * Registers a collector without devices, active or not, with the store's {@code now} as registration and
   * heartbeat instant: {@link #registerCollector(String, String, boolean, Devices)} with {@link Devices#none()}.
   *
   * @param name the unique name
   * @param tag the tag of the jobs it runs
   * @param active whether it may claim
   * @return what happened
   */
  RegisterResult registerCollector(String name, String tag, boolean active);

  /**
   * Registers a collector with the GPU devices it advertises, with the store's {@code now} as registration and
   * heartbeat instant, as one step. Registering a name again follows {@link CollectorRegistration}: the same tag
   * and inventory is {@link RegisterResult.Status#ALREADY_REGISTERED}; another inventory is taken at once
   * ({@link RegisterResult.Status#INVENTORY_UPDATED}) unless a live lease holds a device it removes, and is
   * pending until then ({@link RegisterResult.Status#INVENTORY_PENDING}; claims use only the devices of both and
   * the collector's next claim after that lease ends takes it); another tag is
   * {@link RegisterResult.Status#NAME_TAKEN}; a retiring collector still holding a live lease is
   * {@link RegisterResult.Status#RETIRING}; a retired one is registered fresh. A collector with devices
   * claims the queued jobs of its tag that need GPUs wherever enough of its devices are free, and chooses
   * which ones by {@link DevicePlacement}: claims of a tag's GPU jobs come first (in the order and under the
   * reservation {@link DevicePlacement#place} defines), then its jobs that need none, as any collector
   * claims them. A store that keeps devices keeps each pool's reservation from one claim of a host to the
   * next ({@link DevicePlacement.KeptReservation}), so a reservation stays with its job until it starts. The devices a lease carries are freed when the lease ends: by complete, fail, release,
   * cancellation or expiry. Invariant: no device of a collector is held by two live leases.
   *
   * <p>The default accepts only an empty inventory, for stores without device support.
   *
   * @param name the unique name
   * @param tag the tag of the jobs it runs, the pool of its devices
   * @param active whether it may claim
   * @param devices the devices it advertises
   * @return what happened
   * @throws InvalidQueueInputException when the store does not support devices and some are given
   */
  default RegisterResult registerCollector(String name, String tag, boolean active, Devices devices) {
    Checks.present(devices, "collector devices");
    if (!devices.isEmpty()) {
      throw new InvalidQueueInputException("collector " + name + " advertises " + devices.size()
          + " devices, but " + getClass().getSimpleName() + " does not keep devices; expected none");
    }
    return registerCollector(name, tag, active);
  }

  /**
   * The view of a pool (a collector tag) at the store's {@code now}, computed by {@link DevicePlacement#view}
   * from the same snapshot a claim of the pool places from: the pool's live collectors (active, heartbeat
   * younger than {@code collectorTimeout}), their devices and the leases on them with their recorded estimated
   * ends, the store's fleet shares with the pool's live leases, and the reservation the pool kept from its last
   * claim of a host. Changes nothing.
   *
   * <p>The default refuses, for stores that keep no devices.
   *
   * @param tag the pool
   * @param collectorTimeout the heartbeat age after which a collector is gone
   * @return the pool's hosts, reservation and waiting jobs with their reasons
   * @throws UnsupportedOperationException when the store does not report wait reasons
   */
  default PoolView pool(String tag, Duration collectorTimeout) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not report wait reasons");
  }

  /**
   * Every queued job of a pool, by id, with why it is not running: the waits of {@link #pool}.
   *
   * @param tag the pool
   * @param collectorTimeout the heartbeat age after which a collector is gone
   * @return the waiting jobs with their reasons
   * @throws UnsupportedOperationException when the store does not report wait reasons
   */
  default List<JobWait> waitingJobs(String tag, Duration collectorTimeout) {
    return pool(tag, collectorTimeout).waits();
  }

  /**
   * Replaces the fleet shares the store enforces, as one step: every claim that starts after it returns
   * applies them (see {@link FleetShares} and {@link ShareLedger}). A database store keeps them in the
   * database, so every process sharing it enforces the same shares. Lowering a share takes no lease away:
   * the cadence's jobs wait until its leases end.
   *
   * <p>The default accepts only the empty value, for stores that enforce no shares.
   *
   * @param shares the new shares; {@link FleetShares#none()} caps nothing
   * @throws InvalidQueueInputException when the value is missing, or the store does not enforce shares and
   *     some are given
   */
  default void setShares(FleetShares shares) {
    Checks.present(shares, "fleet shares");
    if (!shares.isEmpty()) {
      throw new InvalidQueueInputException(getClass().getSimpleName() + " does not enforce fleet shares; got "
          + shares.shares().size());
    }
  }

  /**
   * The fleet shares the store enforces, as last set (none for a new store).
   *
   * @return the shares
   */
  default FleetShares shares() {
    return FleetShares.none();
  }

  /**
   * Records a collector's sign of life at the store's {@code now}.
   *
   * @param name the collector
   * @return {@code OK}, or {@code NOT_FOUND} (also for a retired collector that is gone)
   */
  CollectorResult collectorHeartbeat(String name);

  /**
   * Activates or deactivates a collector. A deactivated collector claims nothing; its requeued jobs lose
   * their affinity to it; its current leases stay valid. A retiring collector stays inactive
   * ({@code RETIRING}, nothing changes) until its name is registered again.
   *
   * @param name the collector
   * @param active the new flag
   * @return {@code OK}, {@code UNCHANGED}, {@code RETIRING} or {@code NOT_FOUND}
   */
  CollectorResult setCollectorActive(String name, boolean active);

  /**
   * Retires a collector, as one step, by {@link CollectorRegistration#retire}: it becomes inactive and claims
   * nothing more; its live leases run to their end (or expire) as any lease; it is listed, retiring, while it holds
   * a live lease and is gone after (no read, claim or heartbeat finds it, and its name may be registered again,
   * fresh). Its requeued jobs lose their affinity to it, as for a deactivated collector.
   *
   * <p>The default refuses, for stores that cannot retire collectors.
   *
   * @param name the collector
   * @return {@code RETIRED} (gone now), {@code RETIRING} (with live leases) or {@code NOT_FOUND}
   * @throws InvalidQueueInputException when the name is not a storable name
   * @throws UnsupportedOperationException when the store cannot retire collectors
   */
  default RetireResult retireCollector(String name) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not retire collectors");
  }

  /**
   * An operator's retry of a job, as one step: a failed job (any failure: permanent, a budget exhausted) or a
   * cancelled job is queued again by {@link Job#retried()}: fresh crash and transient budgets, no affinity, no
   * failure, its attempt count kept (its next claim is a new attempt). Its request (the request it belongs to:
   * the parent, for a backfilled job) must be in progress, or completed: a completed request is reopened by
   * {@link Request#reopened()} (in progress again, no outcome, gone from the history until it completes again),
   * unless it counts against the cap and {@code maxInProgress} requests are in progress
   * ({@link RetryResult.Status#CAP_REACHED}). A cancelled request stays cancelled
   * ({@link RetryResult.Status#REQUEST_CANCELLED}); a queued, leased or succeeded job is
   * {@link RetryResult.Status#NOT_RETRYABLE}. Refusals change nothing. The rule is written once, in
   * {@link JobRetry}: a store reads its facts and writes what it returns.
   *
   * <p>The default refuses, for stores without operator controls.
   *
   * @param id the job
   * @param maxInProgress the cap of requests in progress ({@code QueueSettings.maxInProgress})
   * @return what happened
   * @throws UnsupportedOperationException when the store has no operator controls
   */
  default RetryResult retryJob(JobId id, int maxInProgress) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not retry jobs");
  }

  /**
   * Pauses or resumes a pool (a collector tag), as one step; the store keeps the paused pools with the queue.
   * A claim by a collector of a paused pool refreshes its heartbeat and processes the pool's expired leases as
   * any claim does, and leases nothing ({@code OK}, no claims); leases held when it was paused run to their end.
   * Its queued jobs wait with {@link dev.cipolicy.queue.model.WaitReason.Kind#POOL_PAUSED} in {@link #pool}.
   * Every claim that starts after this returns sees the new state. A pool need not have jobs or collectors yet.
   *
   * <p>The default refuses, for stores without operator controls.
   *
   * @param tag the pool
   * @param paused true to pause, false to resume
   * @return true when the state changed, false when the pool already was so
   * @throws InvalidQueueInputException when the tag is not a storable name
   * @throws UnsupportedOperationException when the store has no operator controls
   */
  default boolean setPoolPaused(String tag, boolean paused) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not pause pools");
  }

  /**
   * The paused pools ({@link #setPoolPaused}); none for a store without operator controls.
   *
   * @return the paused pools' tags
   */
  default Set<String> pausedPools() {
    return Set.of();
  }

  /**
   * The collector with this name, unless it retired and holds no live lease.
   *
   * @param name the name
   * @return the collector, if any
   */
  Optional<Collector> collector(String name);

  /**
   * Every registered collector, by name, leaving out the retired ones that hold no live lease.
   *
   * @return the collectors
   */
  List<Collector> collectors();
}
