package dev.cipolicy.postgres;

import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads the rows of {@link PostgresQueueStore} into queue values. Every column is checked against the rules of the value it
 * becomes (the same rules as the schema's CHECK constraints and domains, plus the rules across rows that no CHECK
 * can express: a leased job has exactly one lease row, of its attempt and tag), so that a row edited by hand
 * into an impossible state is reported as an {@link ImpossibleRowException} naming the table, the row key,
 * the column and the bad value, never as a bare {@code IllegalArgumentException} or a wrong value.
 */
final class QueueRows {

  /** The request columns {@link #request} reads, in order, from a table aliased {@code r}. */
  static final String REQUEST_COLS = "r.id, r.kind, r.state, r.tag, r.parent_sha, r.pr, r.benchmark_groups,"
      + " r.created_at, r.started_at, r.finished_at, r.outcome, r.parent_request, r.cancel_reason, r.ci_repository,"
      + " r.ci_run_id, r.ci_attempt, r.ci_commit, r.ci_cadence, r.ci_event, r.ci_pr, r.ci_labels, r.ci_workflow,"
      + " r.ci_concurrency_group, r.superseded_by";
  /** The job and lease columns {@link #job} reads, in order, from jobs {@code j} left-joined to leases {@code l}. */
  static final String JOB_COLS = "j.id, j.request_id, j.benchmark_group, j.collector_tag, j.optional, j.state,"
      + " j.attempt, j.crash_rescues, j.transient_retries, j.affinity, j.failure_reason, j.failure_detail,"
      + " j.failure_at, j.last_error, j.created_at, j.finished_at, l.attempt, l.token, l.expires_at, l.collector,"
      + " l.cancel_requested, l.collector_tag, j.gpus, j.estimate_micros, l.devices, j.cadence,"
      + " j.timeout_micros, j.args";
  /** The collector columns {@link #collector} reads, in order. */
  static final String COLLECTOR_COLS = "name, tag, active, registered_at, last_heartbeat_at, devices, device_groups,"
      + " pending_devices, pending_device_groups, retiring";

  private final String requests;
  private final String jobs;
  private final String leases;
  private final String collectors;

  QueueRows(PostgresQueueOptions options) {
    this.requests = options.display("requests");
    this.jobs = options.display("jobs");
    this.leases = options.display("leases");
    this.collectors = options.display("collectors");
  }

  /** The request at the cursor ({@link #REQUEST_COLS}). */
  Request request(ResultSet rs) throws SQLException {
    long id = rs.getLong(1);
    Row row = new Row(rs, requests, "id = " + id);
    RequestKind kind = row.enumValue(2, "kind", RequestKind.class);
    RequestState state = row.enumValue(3, "state", RequestState.class);
    String tag = row.optionalToken(4, "tag");
    String parentSha = row.optionalToken(5, "parent_sha");
    Long pr = row.optionalLong(6);
    row.require(pr == null || pr >= 1, "pr", pr, "a PR number is positive");
    List<String> groups = row.groups(7, "benchmark_groups");
    Instant createdAt = row.instant(8, "created_at");
    Instant startedAt = row.optionalInstant(9);
    Instant finishedAt = row.optionalInstant(10);
    Outcome outcome = row.optionalEnum(11, "outcome", Outcome.class);
    Long parent = row.optionalLong(12);
    String cancelReason = rs.getString(13);
    String ciRepository = rs.getString(14);
    Long supersededBy = row.optionalLong(24);

    String s = state.name();
    row.require((kind == RequestKind.CI_RUN) == (ciRepository != null), "ci_repository", ciRepository,
        "a request has a CI run repository exactly when it is a CI run (kind " + kind + ")");
    row.require(supersededBy == null || (kind == RequestKind.CI_RUN && state == RequestState.CANCELLED),
        "superseded_by", supersededBy, "only a cancelled CI run is superseded (kind " + kind + ", state " + s + ")");
    row.require(state != RequestState.WAITING_FOR_ARTIFACTS || (kind == RequestKind.TRY && tag == null), "state", s,
        "only a try request without a tag waits for artifacts (kind " + kind + ", tag " + Row.literal(tag) + ")");
    row.require(tag != null || kind == RequestKind.CI_RUN || (kind == RequestKind.TRY && startedAt == null
            && (state == RequestState.WAITING_FOR_ARTIFACTS || state == RequestState.CANCELLED)), "tag", null,
        "only a CI run or a try request that never got its artifacts has no tag (kind " + kind + ", state " + s
            + ")");
    row.require(kind != RequestKind.RELEASE || parentSha == null, "parent_sha", parentSha,
        "a release has no parent SHA");
    row.require(kind != RequestKind.RELEASE || pr == null, "pr", pr, "a release has no PR number");
    row.require(kind != RequestKind.TRY || pr != null, "pr", null, "a try request needs a PR number");
    boolean started = state == RequestState.IN_PROGRESS || state == RequestState.COMPLETED;
    row.require(!started || startedAt != null, "started_at", null,
        "a request " + s + " has a start instant");
    row.require(startedAt == null || started || state == RequestState.CANCELLED, "started_at", startedAt,
        "a request " + s + " was never started");
    row.require(state.isTerminal() == (finishedAt != null), "finished_at", finishedAt,
        "a request has a finish instant exactly when completed or cancelled, and it is " + s);
    row.require((state == RequestState.COMPLETED) == (outcome != null), "outcome", outcome,
        "a request has an outcome exactly when completed, and it is " + s);
    row.require((state == RequestState.CANCELLED) == (cancelReason != null), "cancel_reason", cancelReason,
        "a request has a cancellation reason exactly when cancelled, and it is " + s);
    row.require(tag == null || !tag.equals(parentSha), "parent_sha", parentSha,
        "a request's parent SHA is not its own tag");
    row.require(parent == null || startedAt != null, "parent_request", parent,
        "a request records its parent request only once started");
    row.require(parent == null || parent != id, "parent_request", parent, "a request is not its own parent");

    var b = Request.builder().id(RequestId.of(id)).kind(kind).state(state).tag(Optional.ofNullable(tag))
        .parentSha(Optional.ofNullable(parentSha)).addAllBenchmarkGroups(groups).createdAt(createdAt)
        .startedAt(Optional.ofNullable(startedAt)).finishedAt(Optional.ofNullable(finishedAt))
        .cancelReason(Optional.ofNullable(cancelReason));
    if (pr != null) {
      b.pr(pr);
    }
    if (outcome != null) {
      b.outcome(outcome);
    }
    if (parent != null) {
      b.parentRequest(RequestId.of(parent));
    }
    if (ciRepository != null) {
      b.ciRun(ciRun(rs, row));
    }
    if (supersededBy != null) {
      b.supersededBy(RequestId.of(supersededBy));
    }
    return row.build(b::build);
  }

  /** The CI run of a CI run request row (columns 14 to 23). */
  private static CiRun ciRun(ResultSet rs, Row row) throws SQLException {
    String repository = rs.getString(14);
    Long runIdOrNull = row.optionalLong(15);
    Long attemptOrNull = row.optionalLong(16);
    String commit = row.token(17, "ci_commit");
    String cadence = java.util.Objects.requireNonNullElse(rs.getString(18), "");
    String event = row.token(19, "ci_event");
    Long pr = row.optionalLong(20);
    Array labels = rs.getArray(21);
    List<String> labelList = labels == null ? List.of() : row.groups(21, "ci_labels");
    String workflow = rs.getString(22);
    String group = rs.getString(23);
    row.require(runIdOrNull != null, "ci_run_id", null, "a CI run has a run id");
    row.require(attemptOrNull != null, "ci_attempt", null, "a CI run has an attempt");
    long runId = java.util.Objects.requireNonNull(runIdOrNull);
    long attempt = java.util.Objects.requireNonNull(attemptOrNull);
    return row.build(() -> {
      var b = CiRun.builder().repository(repository).runId(runId).attempt(Math.toIntExact(attempt))
          .commitSha(commit).cadence(cadence).event(event).labels(labelList)
          .workflow(Optional.ofNullable(workflow)).concurrencyGroup(Optional.ofNullable(group));
      if (pr != null) {
        b.pr(pr);
      }
      return b.build();
    });
  }

  /** The job at the cursor with its lease row, if any ({@link #JOB_COLS}). */
  Job job(ResultSet rs) throws SQLException {
    long id = rs.getLong(1);
    Row row = new Row(rs, jobs, "id = " + id);
    long requestId = rs.getLong(2);
    String group = row.token(3, "benchmark_group");
    String tag = row.token(4, "collector_tag");
    boolean optional = rs.getBoolean(5);
    JobState state = row.enumValue(6, "state", JobState.class);
    int attempt = row.counter(7, "attempt");
    int crashRescues = row.counter(8, "crash_rescues");
    int transientRetries = row.counter(9, "transient_retries");
    String affinity = row.optionalToken(10, "affinity");
    JobFailure.Reason reason = row.optionalEnum(11, "failure_reason", JobFailure.Reason.class);
    String failureDetail = rs.getString(12);
    Instant failureAt = row.optionalInstant(13);
    String lastError = rs.getString(14);
    Instant createdAt = row.instant(15, "created_at");
    Instant finishedAt = row.optionalInstant(16);
    int gpus = rs.getInt(23);
    long estimateMicros = rs.getLong(24);
    String cadence = java.util.Objects.requireNonNullElse(rs.getString(26), "");
    long timeoutMicros = rs.getLong(27);
    String args = rs.getString(28);
    row.require(gpus >= 0 && gpus <= JobSpec.MAX_GPUS, "gpus", gpus, "a GPU budget is 0 to " + JobSpec.MAX_GPUS);
    row.require(estimateMicros >= 0, "estimate_micros", estimateMicros, "an estimate is not negative");
    row.require(timeoutMicros >= 0, "timeout_micros", timeoutMicros, "a timeout is not negative");

    String s = state.name();
    row.require(state != JobState.LEASED || attempt >= 1, "attempt", attempt, "a leased job was claimed at least once");
    row.require((state == JobState.FAILED) == (reason != null), "failure_reason", reason,
        "a job has a failure reason exactly when failed, and it is " + s);
    row.require(reason == null || failureDetail != null, "failure_detail", null, "a failed job has a failure detail");
    row.require(reason == null || failureAt != null, "failure_at", null, "a failed job has a failure instant");
    row.require(state.isTerminal() == (finishedAt != null), "finished_at", finishedAt,
        "a job has a finish instant exactly when succeeded, failed or cancelled, and it is " + s);

    int leaseAttempt = rs.getInt(17);
    boolean leased = !rs.wasNull();
    Lease lease = null;
    boolean cancelRequested = false;
    if (leased) {
      long token = rs.getLong(18);
      String holder = rs.getString(20);
      row.require(state == JobState.LEASED, "state", s, "a " + s.toLowerCase(java.util.Locale.ROOT)
          + " job has no lease, but " + leases + " holds one (job_id = " + id + ", attempt " + leaseAttempt
          + ", token " + token + ", collector " + holder + ")");
      Row leaseRow = new Row(rs, leases, "job_id = " + id);
      leaseRow.require(leaseAttempt == attempt, "attempt", leaseAttempt,
          "the lease's attempt is the job's attempt " + attempt + " (" + jobs + " id = " + id + ")");
      String leaseTag = rs.getString(22);
      leaseRow.require(tag.equals(leaseTag), "collector_tag", leaseTag,
          "the lease's tag is the job's collector tag '" + tag + "' (" + jobs + " id = " + id + ")");
      List<Integer> devices = ints(rs.getArray(25));
      lease = leaseRow.build(() -> Lease.builder().jobId(JobId.of(id)).attempt(leaseAttempt).token(token)
          .expiresAt(leaseRow.instant(19, "expires_at")).collector(leaseRow.token(20, "collector")).devices(devices)
          .build());
      cancelRequested = rs.getBoolean(21);
    } else {
      row.require(state != JobState.LEASED, "state", s, "a leased job has a lease, but " + leases
          + " holds no row for job_id = " + id);
    }
    var b = Job.builder().id(JobId.of(id)).requestId(RequestId.of(requestId)).state(state).attempt(attempt)
        .crashRescues(crashRescues).transientRetries(transientRetries).affinity(Optional.ofNullable(affinity))
        .cancelRequested(cancelRequested).lastError(Optional.ofNullable(lastError)).createdAt(createdAt)
        .finishedAt(Optional.ofNullable(finishedAt)).lease(Optional.ofNullable(lease));
    b.spec(row.build(() -> JobSpec.builder().benchmarkGroup(group).collectorTag(tag).optional(optional).gpus(gpus)
        .estimate(java.time.Duration.ofNanos(0).plus(estimateMicros, java.time.temporal.ChronoUnit.MICROS))
        .cadence(cadence).timeout(java.time.Duration.ofNanos(0).plus(timeoutMicros,
            java.time.temporal.ChronoUnit.MICROS)).args(Optional.ofNullable(args)).build()));
    if (reason != null && failureAt != null) { // a failed job's failure_at is required above
      b.failure(row.build(() -> new JobFailure(reason, failureDetail, failureAt)));
    }
    return row.build(b::build);
  }

  /** The collector at the cursor ({@link #COLLECTOR_COLS}). */
  Collector collector(ResultSet rs) throws SQLException {
    String name = rs.getString(1);
    Row row = new Row(rs, collectors, "name = " + Row.literal(name));
    String checkedName = row.token(1, "name");
    String tag = row.token(2, "tag");
    boolean active = rs.getBoolean(3);
    Instant registered = row.instant(4, "registered_at");
    Instant heartbeat = row.instant(5, "last_heartbeat_at");
    List<Integer> indices = ints(rs.getArray(6));
    List<Integer> groupOf = ints(rs.getArray(7));
    row.require(groupOf.isEmpty() || groupOf.size() == indices.size(), "device_groups", groupOf,
        "a group ordinal per device, or none");
    java.sql.Array pendingArray = rs.getArray(8);
    List<Integer> pendingIndices = ints(pendingArray);
    List<Integer> pendingGroupOf = ints(rs.getArray(9));
    row.require(pendingGroupOf.isEmpty() || pendingGroupOf.size() == pendingIndices.size(), "pending_device_groups",
        pendingGroupOf, "a group ordinal per pending device, or none");
    boolean retiring = rs.getBoolean(10);
    return row.build(() -> Collector.builder().name(checkedName).tag(tag).active(active).registeredAt(registered)
        .lastHeartbeatAt(heartbeat).devices(devices(indices, groupOf)).pendingDevices(pendingArray == null
            ? java.util.Optional.empty() : java.util.Optional.of(devices(pendingIndices, pendingGroupOf)))
        .retiring(retiring).build());
  }

  /** The devices of a collector row: indices and, when present, the group ordinal of each. */
  static Devices devices(List<Integer> indices, List<Integer> groupOf) {
    if (groupOf.isEmpty()) {
      return new Devices(indices, List.of());
    }
    java.util.TreeMap<Integer, List<Integer>> groups = new java.util.TreeMap<>();
    for (int i = 0; i < indices.size(); i++) {
      groups.computeIfAbsent(groupOf.get(i), g -> new java.util.ArrayList<>()).add(indices.get(i));
    }
    return new Devices(indices, List.copyOf(groups.values()));
  }

  /** The group ordinal of each device, in the order of {@link Devices#indices()}; empty without groups. */
  static List<Integer> groupOrdinals(Devices devices) {
    if (devices.groups().isEmpty()) {
      return List.of();
    }
    java.util.Map<Integer, Integer> of = new java.util.HashMap<>();
    for (int g = 0; g < devices.groups().size(); g++) {
      for (Integer d : devices.groups().get(g)) {
        of.put(d, g);
      }
    }
    List<Integer> out = new java.util.ArrayList<>();
    for (Integer d : devices.indices()) {
      out.add(of.get(d));
    }
    return out;
  }

  /** An {@code integer[]} column as a list; empty for NULL. */
  static List<Integer> ints(@Nullable Array array) throws SQLException {
    if (array == null) {
      return List.of();
    }
    Object[] values = (Object[]) array.getArray();
    List<Integer> out = new java.util.ArrayList<>(values.length);
    for (Object v : values) {
      out.add(((Number) v).intValue());
    }
    return List.copyOf(out);
  }

  /** One row being read: its table and key, and checks that report a bad column as an impossible row. */
  private static final class Row {
    private final ResultSet rs;
    private final String table;
    private final String key;

    Row(ResultSet rs, String table, String key) {
      this.rs = rs;
      this.table = table;
      this.key = key;
    }

    void require(boolean condition, String column, @Nullable Object value, String rule) {
      if (!condition) {
        throw new ImpossibleRowException(new ImpossibleRow(table, key, column, literal(value), rule));
      }
    }

    /** The value of a NOT NULL column; a null one makes the row impossible. */
    private <T> T present(@Nullable T value, String column, String rule) {
      if (value == null) {
        throw new ImpossibleRowException(new ImpossibleRow(table, key, column, literal(null), rule));
      }
      return value;
    }

    <E extends Enum<E>> E enumValue(int i, String column, Class<E> type) throws SQLException {
      return present(optionalEnum(i, column, type), column, "the column is NOT NULL; expected one of " + names(type));
    }

    <E extends Enum<E>> @Nullable E optionalEnum(int i, String column, Class<E> type) throws SQLException {
      String text = rs.getString(i);
      if (text == null) {
        return null;
      }
      for (E constant : type.getEnumConstants()) {
        if (constant.name().equals(text)) {
          return constant;
        }
      }
      throw new ImpossibleRowException(new ImpossibleRow(table, key, column, literal(text),
          "expected one of " + names(type)));
    }

    String token(int i, String column) throws SQLException {
      return present(optionalToken(i, column), column, "the column is NOT NULL");
    }

    @Nullable String optionalToken(int i, String column) throws SQLException {
      String value = rs.getString(i);
      if (value != null) {
        requirePlain(value, column, "");
      }
      return value;
    }

    private void requirePlain(String value, String column, String element) {
      // Every row a claim or a completion reads passes here: the messages are built only for a bad value.
      if (value.isEmpty() || value.length() > 200) {
        require(false, column, value, element + "expected a name of 1 to 200 characters");
      }
      for (int c = 0; c < value.length(); c++) {
        char ch = value.charAt(c);
        if (Character.isWhitespace(ch) || Character.isISOControl(ch)) {
          require(false, column, value,
              element + "expected a name without white space or control characters (index " + c + ")");
        }
      }
    }

    int counter(int i, String column) throws SQLException {
      int value = rs.getInt(i);
      require(!rs.wasNull(), column, null, "the column is NOT NULL");
      require(value >= 0, column, value, "a counter is not negative");
      return value;
    }

    @Nullable Long optionalLong(int i) throws SQLException {
      long value = rs.getLong(i);
      return rs.wasNull() ? null : value;
    }

    Instant instant(int i, String column) throws SQLException {
      return present(optionalInstant(i), column, "the column is NOT NULL");
    }

    @Nullable Instant optionalInstant(int i) throws SQLException {
      OffsetDateTime value = rs.getObject(i, OffsetDateTime.class);
      return value == null ? null : value.toInstant();
    }

    List<String> groups(int i, String column) throws SQLException {
      Array array = rs.getArray(i);
      require(array != null, column, null, "the column is NOT NULL");
      Object[] values = (Object[]) array.getArray();
      Set<String> seen = new HashSet<>();
      String[] groups = new String[values.length];
      for (int g = 0; g < values.length; g++) {
        String group = (String) values[g];
        require(group != null, column, arrayText(values), "element " + (g + 1) + " is NULL; expected names");
        requirePlain(group, column, "element " + (g + 1) + " " + literal(group) + ": ");
        require(seen.add(group), column, arrayText(values), "lists " + literal(group) + " twice");
        groups[g] = group;
      }
      return List.of(groups);
    }

    /** Builds a value; a rule the explicit checks above missed still names the row. */
    <T> T build(Builder<T> builder) throws SQLException {
      try {
        return builder.build();
      } catch (ImpossibleRowException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new ImpossibleRowException(new ImpossibleRow(table, key, "(row)", "(several columns)",
            e.getMessage() == null ? e.toString() : e.getMessage()), e);
      }
    }

    private static String arrayText(Object[] values) {
      StringBuilder sb = new StringBuilder("{");
      for (int i = 0; i < values.length; i++) {
        sb.append(i == 0 ? "" : ",").append(values[i] == null ? "NULL" : values[i]);
      }
      return sb.append('}').toString();
    }

    static String literal(@Nullable Object value) {
      if (value == null) {
        return "NULL";
      }
      if (value instanceof Number || value instanceof Boolean) {
        return value.toString();
      }
      String text = value instanceof Enum<?> e ? e.name() : value.toString();
      StringBuilder sb = new StringBuilder("'");
      for (int i = 0; i < text.length() && i < 80; i++) {
        char c = text.charAt(i);
        if (c == '\'') {
          sb.append("''");
        } else if (Character.isISOControl(c)) {
          sb.append(String.format("\\u%04x", (int) c));
        } else {
          sb.append(c);
        }
      }
      return sb.append(text.length() > 80 ? "...'" : "'").toString();
    }

    private static String names(Class<? extends Enum<?>> type) {
      return Arrays.toString(type.getEnumConstants());
    }
  }

  /** Builds a value from checked columns. */
  @FunctionalInterface
  private interface Builder<T> {
    T build() throws SQLException;
  }
}
