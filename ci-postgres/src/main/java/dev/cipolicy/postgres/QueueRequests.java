package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;
import static dev.cipolicy.postgres.PgValues.setLong;
import static dev.cipolicy.postgres.PgValues.setText;

import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.CiRunKey;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.RequestScan;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The requests of {@link PostgresQueueStore}: submitting and attaching artifacts, reads and scans, the
 * guarded start (cap, jobs, backfill), completion and cancellation. Every operation is one transaction; the
 * start serializes on the control row, so starts from all sites never exceed the cap.
 */
final class QueueRequests {

  /** Request scans per check for queued jobs missing from the queued-jobs table (a hand-edit diagnostic). */
  static final int UNLISTED_CHECK_EVERY = 10;

  private final QueueContext ctx;
  private final QueueSql sql;
  private final AtomicLong scans = new AtomicLong();

  QueueRequests(QueueContext ctx) {
    this.ctx = ctx;
    this.sql = ctx.sql;
  }

  SubmitResult submit(NewRequest request) {
    if (request.kind() == RequestKind.CI_RUN) {
      return submitCiRun(request);
    }
    return ctx.tx.inTransaction("submit", c -> {
      Instant now = ctx.now(c);
      // Both checks read one snapshot: with two statements, a submission of the same commit committing
      // between them made the second one report the open PR although the tag, checked first, exists.
      Optional<SubmitResult> duplicate = duplicate(c, request);
      if (duplicate.isPresent()) {
        return duplicate.get();
      }
      try (PreparedStatement st = c.prepareStatement(sql.insertRequest)) {
        st.setString(1, request.kind().name());
        st.setString(2, request.initialState().name());
        setText(st, 3, request.tag());
        setText(st, 4, request.parentSha());
        setLong(st, 5, request.pr().isPresent() ? request.pr().getAsLong() : null);
        st.setArray(6, c.createArrayOf("text", request.benchmarkGroups().toArray()));
        setInstant(st, 7, now);
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            throw PgTransactions.rerun(); // a concurrent submit won; re-run to report it
          }
          return new SubmitResult(SubmitResult.Status.CREATED,
              Request.created(RequestId.of(rs.getLong(1)), request, now));
        }
      }
    });
  }

  /**
   * Submits a CI run: one transaction under the advisory lock of its repository, so that two submissions of a
   * repository (the same key, or one concurrency group) see each other's commits.
   */
  private SubmitResult submitCiRun(NewRequest request) {
    CiRun run = request.ciRun().orElseThrow();
    return ctx.tx.inTransaction("submit", c -> {
      try (PreparedStatement st = c.prepareStatement(sql.lockCiRepository)) {
        st.setString(1, "dev.cipolicy.queue.ci-run:" + ctx.options.display("requests") + ":" + run.repository());
        st.executeQuery().close();
      }
      Instant now = ctx.now(c);
      Optional<Request> existing = ciRun(c, run.key());
      if (existing.isPresent()) {
        return new SubmitResult(SubmitResult.Status.ATTACHED, existing.get());
      }
      List<Request> group = new ArrayList<>();
      if (run.concurrencyGroup().isPresent()) {
        try (PreparedStatement st = c.prepareStatement(sql.openCiGroup)) {
          st.setString(1, run.repository());
          st.setString(2, run.concurrencyGroup().get());
          try (ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
              group.add(ctx.rows.request(rs));
            }
          }
        }
      }
      Request newest = null;
      for (Request other : group) {
        CiRun otherRun = other.ciRun().orElseThrow();
        if (otherRun.supersedes(run)
            && (newest == null || newest.ciRun().orElseThrow().key().compareTo(otherRun.key()) < 0)) {
          newest = other;
        }
      }
      Request created;
      try (PreparedStatement st = c.prepareStatement(sql.insertCiRun)) {
        setInstant(st, 1, now);
        setInstant(st, 2, now);
        st.setString(3, run.repository());
        st.setLong(4, run.runId());
        st.setInt(5, run.attempt());
        st.setString(6, run.commitSha());
        st.setString(7, run.cadence());
        st.setString(8, run.event());
        setLong(st, 9, run.pr().isPresent() ? run.pr().getAsLong() : null);
        st.setArray(10, c.createArrayOf("text", run.labels().toArray()));
        setText(st, 11, run.workflow());
        setText(st, 12, run.concurrencyGroup());
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            throw PgTransactions.rerun(); // a concurrent submit of the key won; re-run to report it
          }
          created = Request.created(RequestId.of(rs.getLong(1)), request, now);
        }
      }
      if (newest != null) {
        Request superseded = created.superseded(newest, now);
        write(c, superseded);
        return new SubmitResult(SubmitResult.Status.SUPERSEDED, superseded);
      }
      for (JobSpec spec : request.jobs()) {
        insertJob(c, created.id(), spec, now);
      }
      List<Request> cancelled = new ArrayList<>();
      for (Request older : group) {
        if (run.supersedes(older.ciRun().orElseThrow())) {
          cancelled.add(cancelLocked(c, older.superseded(created, now), now).request().orElseThrow());
        }
      }
      return new SubmitResult(SubmitResult.Status.CREATED, created, cancelled);
    });
  }

  Optional<Request> ciRun(CiRunKey key) {
    return ctx.tx.inTransaction("ciRun", c -> ciRun(c, key));
  }

  private Optional<Request> ciRun(Connection c, CiRunKey key) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.ciRunByKey)) {
      st.setString(1, key.repository());
      st.setLong(2, key.runId());
      st.setInt(3, key.attempt());
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(ctx.rows.request(rs)) : Optional.empty();
      }
    }
  }

  AttachResult attachArtifacts(RequestId id, String sha, String parentSha) {
    return ctx.tx.inTransaction("attachArtifacts", c -> {
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
      write(c, attached); // a concurrent insert of the tag raises 23505: re-run, then DUPLICATE_TAG
      return new AttachResult(AttachResult.Status.ATTACHED, Optional.of(attached));
    });
  }

  Optional<Request> request(RequestId id) {
    return ctx.tx.inTransaction("request", c -> requestWhere(c, "r.id = ?", id.value()));
  }

  Optional<Request> requestByTag(String tag) {
    return ctx.tx.inTransaction("requestByTag", c -> requestWhere(c, "r.tag = ?", tag));
  }

  /** The tags among the given ones that a request has, in one statement. */
  Set<String> knownTags(List<String> tags) {
    return ctx.tx.inTransaction("knownTags", c -> {
      Set<String> known = new HashSet<>();
      try (PreparedStatement st = c.prepareStatement(sql.knownTags)) {
        st.setArray(1, c.createArrayOf("text", tags.toArray()));
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            known.add(rs.getString(1));
          }
        }
      }
      return Set.copyOf(known);
    });
  }

  List<Request> openRequests() {
    return ctx.tx.inTransaction("openRequests", c -> requestsWhere(c, "r.state IN " + QueueSql.OPEN
        + " ORDER BY r.id"));
  }

  List<Request> inProgressRequests() {
    return ctx.tx.inTransaction("inProgressRequests", c -> requestsWhere(c,
        "r.state = 'IN_PROGRESS' ORDER BY r.id"));
  }

  RequestScan scanOpenRequests() {
    return ctx.tx.inTransaction("scanOpenRequests", c -> scan(c, "r.state IN " + QueueSql.OPEN + " ORDER BY r.id"));
  }

  RequestScan scanInProgressRequests() {
    return ctx.tx.inTransaction("scanInProgressRequests", c -> scan(c, "r.state = 'IN_PROGRESS' ORDER BY r.id"));
  }

  /** Starts a request; the command's instant is already truncated. */
  StartResult start(StartCommand command) {
    return ctx.tx.inTransaction("startRequest", c -> {
      // The guarded transition: one control row, locked by every start, serializes cap check and start.
      try (PreparedStatement lock = c.prepareStatement(sql.lockControl); ResultSet rs = lock.executeQuery()) {
        if (!rs.next()) {
          throw new QueueStoreException("the control row " + ctx.options.display("control")
              + " (id = 1) is missing; re-create it with INSERT INTO " + sql.control + " (id) VALUES (1)");
        }
      }
      int inProgress = countInProgress(c);
      Optional<Request> found = requestWhere(c, "r.id = ? FOR UPDATE", command.requestId().value());
      Instant now = ctx.now(c);
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
        Job job = insertJob(c, request.id(), spec, now);
        if (job != null) {
          created.add(job);
        }
      }
      Backfill backfill = backfill(c, request, command, now);
      Request started = request.started(now,
          backfill.status() == Backfill.Status.ENQUEUED ? backfill.parent().orElseThrow() : null);
      write(c, started);
      return StartResult.builder().status(StartResult.Status.STARTED).request(started).jobs(created)
          .backfill(backfill).inProgress(inProgress + 1).build();
    });
  }

  private Backfill backfill(Connection c, Request request, StartCommand command, Instant now)
      throws SQLException {
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
    Optional<Backfill> refused = Backfill.refusedBy(parent);
    if (refused.isPresent()) {
      return refused.get();
    }
    List<Job> created = new ArrayList<>();
    int existing = 0;
    for (JobSpec spec : command.jobs()) {
      Job job = insertJob(c, parent.id(), spec, now);
      if (job == null) {
        existing++;
      } else {
        created.add(job);
      }
    }
    return Backfill.builder().status(Backfill.Status.ENQUEUED).parent(parent.id()).created(created).existing(existing)
        .build();
  }

  /** Inserts a queued job unless its key exists ({@code ON CONFLICT DO NOTHING}); null then. */
  private @Nullable Job insertJob(Connection c, RequestId requestId, JobSpec spec, Instant now) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.insertJob)) {
      st.setLong(1, requestId.value());
      st.setString(2, spec.benchmarkGroup());
      st.setString(3, spec.collectorTag());
      st.setBoolean(4, spec.optional());
      setInstant(st, 5, now);
      st.setInt(6, spec.gpus());
      st.setLong(7, spec.estimate().toNanos() / 1_000);
      st.setString(8, spec.cadence());
      st.setLong(9, spec.timeout().toNanos() / 1_000);
      setText(st, 10, spec.args());
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Job.created(JobId.of(rs.getLong(1)), requestId, spec, now) : null;
      }
    }
  }

  CompletionResult completeIfDone(RequestId id) {
    return ctx.tx.inTransaction("completeIfDone", c -> {
      Optional<Request> found = requestWhere(c, "r.id = ? FOR UPDATE", id.value());
      Instant now = ctx.now(c);
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
      write(c, completed);
      return new CompletionResult(CompletionResult.Status.COMPLETED, Optional.of(completed), 0);
    });
  }

  /** Required pending, required succeeded, required failed, any failed. */
  private int[] jobCounts(Connection c, RequestId id) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.jobCounts)) {
      st.setLong(1, id.value());
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return new int[] {rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getInt(4)};
      }
    }
  }

  CancelResult cancel(RequestId id, String reason) {
    return ctx.tx.inTransaction("cancel", c -> {
      Optional<Request> found = requestWhere(c, "r.id = ? FOR UPDATE", id.value());
      Instant now = ctx.now(c);
      if (found.isEmpty()) {
        return CancelResult.unchanged(CancelResult.Status.NOT_FOUND, Optional.empty());
      }
      Request request = found.get();
      if (request.state().isTerminal()) {
        return CancelResult.unchanged(CancelResult.Status.ALREADY_FINISHED, found);
      }
      return cancelLocked(c, request.cancelled(reason, now), now);
    });
  }

  /** Cancels a locked open request: its queued jobs cancelled, its leases flagged, the request written. */
  private CancelResult cancelLocked(Connection c, Request done, Instant now) throws SQLException {
    RequestId id = done.id();
    // The queued rows go first: a claim locks a queued row before its job, so taking the same order here
    // waits for a claim in flight instead of deadlocking with it (its job is then leased, and flagged below).
    try (PreparedStatement st = c.prepareStatement(sql.unlistQueuedJobsOfRequest)) {
      st.setLong(1, id.value());
      st.executeUpdate();
    }
    int cancelled;
    try (PreparedStatement st = c.prepareStatement(sql.cancelQueuedJobsOfRequest)) {
      setInstant(st, 1, now);
      st.setLong(2, id.value());
      cancelled = st.executeUpdate();
    }
    int flagged;
    try (PreparedStatement st = c.prepareStatement(sql.flagLeasesOfRequest)) {
      st.setLong(1, id.value());
      flagged = st.executeUpdate();
    }
    write(c, done);
    return CancelResult.builder().status(CancelResult.Status.CANCELLED).request(done)
        .queuedJobsCancelled(cancelled).leasedJobsFlagged(flagged).build();
  }

  private int countInProgress(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.countInProgress); ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private void write(Connection c, Request r) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.updateRequest)) {
      st.setString(1, r.state().name());
      setText(st, 2, r.tag());
      setText(st, 3, r.parentSha());
      setInstant(st, 4, r.startedAt().orElse(null));
      setInstant(st, 5, r.finishedAt().orElse(null));
      setText(st, 6, r.outcome().map(Outcome::name));
      setLong(st, 7, r.parentRequest().map(RequestId::value).orElse(null));
      setText(st, 8, r.cancelReason());
      setLong(st, 9, r.supersededBy().map(RequestId::value).orElse(null));
      st.setLong(10, r.id().value());
      st.executeUpdate();
    }
  }

  private Optional<Request> requestWhere(Connection c, String where, Object arg) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.requestsWhere(where))) {
      st.setObject(1, arg);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(ctx.rows.request(rs)) : Optional.empty();
      }
    }
  }

  /**
   * The duplicate a submission is, if any, from one read of both conflicts: the request with its tag first
   * (tags are unique across kinds), then the open request of its kind and PR.
   */
  private Optional<SubmitResult> duplicate(Connection c, NewRequest request) throws SQLException {
    if (request.tag().isEmpty() && request.pr().isEmpty()) {
      return Optional.empty();
    }
    Request byPr = null;
    try (PreparedStatement st = c.prepareStatement(sql.submitConflicts)) {
      setText(st, 1, request.tag());
      st.setString(2, request.kind().name());
      setLong(st, 3, request.pr().isPresent() ? request.pr().getAsLong() : null);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          Request existing = ctx.rows.request(rs);
          if (request.tag().isPresent() && existing.tag().equals(request.tag())) {
            return Optional.of(new SubmitResult(SubmitResult.Status.DUPLICATE_TAG, existing));
          }
          byPr = existing;
        }
      }
    }
    return byPr == null ? Optional.empty() : Optional.of(new SubmitResult(SubmitResult.Status.DUPLICATE_OPEN_PR, byPr));
  }

  private List<Request> requestsWhere(Connection c, String where) throws SQLException {
    List<Request> out = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(sql.requestsWhere(where)); ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        out.add(ctx.rows.request(rs));
      }
    }
    return out;
  }

  private RequestScan scan(Connection c, String where) throws SQLException {
    List<Request> out = new ArrayList<>();
    List<ImpossibleRow> impossible = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(sql.requestsWhere(where)); ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        try {
          out.add(ctx.rows.request(rs));
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
    try (PreparedStatement st = c.prepareStatement(sql.unlistedQueuedJobs)) {
      st.setArray(1, c.createArrayOf("bigint", ids.toArray()));
      String jobTable = ctx.options.display("jobs");
      String queuedTable = ctx.options.display("queued");
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
}
