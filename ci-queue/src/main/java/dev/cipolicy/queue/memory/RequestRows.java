package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.CiRunKey;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.HistoryEntry;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.HistoryPage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The in-memory store's index of request rows (used under the store's monitor): by id, by tag, the open ones (and
 * the open one of each PR and kind), the ones in progress with how many count against the cap, CI runs by key and
 * the open CI runs of each concurrency group, and the completed ones, newest first.
 */
final class RequestRows {
  private static final Comparator<HistoryCursor> NEWEST_FIRST = Comparator.comparing(HistoryCursor::finishedAt)
      .thenComparing(HistoryCursor::requestId).reversed();

  private final Map<Long, RequestRow> byId = new HashMap<>();
  private final Map<String, RequestRow> byTag = new HashMap<>();
  private final Map<String, RequestRow> openByPr = new HashMap<>();
  /**
   * The open rows by id (ids only grow, so appending keeps the order), with closed rows left in place until they
   * are half of the list: listing the open requests walks an array, not a tree.
   */
  private final ArrayList<RequestRow> open = new ArrayList<>();
  private int closedInOpen;
  private final TreeMap<Long, RequestRow> inProgress = new TreeMap<>();
  /** How many requests in progress count against the cap (every kind but CI runs). */
  private int cappedInProgress;
  /** CI run requests by key, in any state. */
  private final Map<CiRunKey, RequestRow> byCiKey = new HashMap<>();
  /** The open CI runs of each (repository, concurrency group). */
  private final Map<List<String>, List<RequestRow>> openCiGroups = new HashMap<>();
  /** The completed requests, newest first: by completion instant, then id, both descending. */
  private final TreeMap<HistoryCursor, RequestRow> completed = new TreeMap<>(NEWEST_FIRST);

  @Nullable RequestRow get(long id) {
    return byId.get(id);
  }

  @Nullable RequestRow byTag(String tag) {
    return byTag.get(tag);
  }

  Set<String> knownTags(Collection<String> tags) {
    Set<String> known = new HashSet<>();
    for (String tag : tags) {
      if (byTag.containsKey(tag)) {
        known.add(tag);
      }
    }
    return Set.copyOf(known);
  }

  /** Gives a row (a try request that got its artifacts) its tag. */
  void tag(String tag, RequestRow row) {
    byTag.put(tag, row);
  }

  /** The open request of a kind for a PR, if any. */
  @Nullable RequestRow openWithPr(RequestKind kind, long pr) {
    return openByPr.get(prKey(kind, pr));
  }

  @Nullable RequestRow ciRun(CiRunKey key) {
    return byCiKey.get(key);
  }

  /** Adds a new row, open unless it is already closed (a CI run created superseded). */
  void add(RequestRow row) {
    Request r = row.request;
    byId.put(r.id().value(), row);
    r.tag().ifPresent(tag -> byTag.put(tag, row));
    r.ciRun().ifPresent(run -> byCiKey.put(run.key(), row));
    if (row.closed) {
      return;
    }
    if (r.pr().isPresent()) {
      openByPr.put(prKey(r.kind(), r.pr().getAsLong()), row);
    }
    open.add(row);
  }

  /** Records that a row's request is in progress; a CI run joins its concurrency group. */
  void started(RequestRow row) {
    inProgress.put(row.request.id().value(), row);
    if (row.request.kind().isCapped()) {
      cappedInProgress++;
    }
    group(row.request).ifPresent(g -> g.add(row));
  }

  int cappedInProgress() {
    return cappedInProgress;
  }

  /** Closes a row: it leaves the open list, the requests in progress, its PR's slot and its CI group. */
  void close(RequestRow row) {
    long id = row.request.id().value();
    row.closed = true;
    if (++closedInOpen > open.size() / 2) {
      open.removeIf(r -> r.closed);
      closedInOpen = 0;
    }
    if (inProgress.remove(id) != null && row.request.kind().isCapped()) {
      cappedInProgress--;
    }
    group(row.request).ifPresent(g -> g.remove(row));
    if (row.request.pr().isPresent()) {
      openByPr.remove(prKey(row.request.kind(), row.request.pr().getAsLong()), row);
    }
  }

  /**
   * Opens a completed row again with its reopened (in progress) request: out of the history, back in the open
   * list at its place by id, in progress, in its PR's slot and CI group.
   */
  void reopen(RequestRow row, Request reopened) {
    completed.remove(HistoryCursor.after(row.request));
    open.removeIf(r -> r.closed);
    closedInOpen = 0;
    row.closed = false;
    row.request = reopened;
    int at = 0;
    while (at < open.size() && open.get(at).request.id().value() < reopened.id().value()) {
      at++;
    }
    open.add(at, row);
    if (reopened.pr().isPresent()) {
      openByPr.put(prKey(reopened.kind(), reopened.pr().getAsLong()), row);
    }
    started(row);
  }

  /** Records a closed row's completion in the history. */
  void completed(RequestRow row) {
    completed.put(HistoryCursor.after(row.request), row);
  }

  /** Forgets a purged row. */
  void remove(RequestRow row) {
    byId.remove(row.request.id().value());
    row.request.tag().ifPresent(tag -> byTag.remove(tag, row));
    if (row.request.finishedAt().isPresent() && row.request.state() == RequestState.COMPLETED) {
      completed.remove(HistoryCursor.after(row.request));
    }
  }

  List<Request> open() {
    List<Request> out = new ArrayList<>(open.size() - closedInOpen);
    for (RequestRow row : open) {
      if (!row.closed) {
        out.add(row.request);
      }
    }
    return out;
  }

  List<Request> inProgress() {
    List<Request> out = new ArrayList<>(inProgress.size());
    for (RequestRow row : inProgress.values()) {
      out.add(row.request);
    }
    return out;
  }

  /** The newest open CI run of the run's group that supersedes it, if any. */
  @Nullable RequestRow newestSuperseding(CiRun run) {
    RequestRow newest = null;
    for (RequestRow other : openGroup(run)) {
      CiRun otherRun = other.request.ciRun().orElseThrow();
      if (otherRun.supersedes(run) && (newest == null
          || newest.request.ciRun().orElseThrow().key().compareTo(otherRun.key()) < 0)) {
        newest = other;
      }
    }
    return newest;
  }

  /** The open CI runs of the run's group that it supersedes. */
  List<RequestRow> supersededBy(CiRun run) {
    List<RequestRow> out = new ArrayList<>();
    for (RequestRow older : openGroup(run)) {
      if (run.supersedes(older.request.ciRun().orElseThrow())) {
        out.add(older);
      }
    }
    return out;
  }

  HistoryPage history(int limit, @Nullable HistoryCursor after) {
    Map<HistoryCursor, RequestRow> from = after == null ? completed : completed.tailMap(after, false);
    List<HistoryEntry> read = new ArrayList<>(Math.min(limit + 1, completed.size()));
    for (RequestRow row : from.values()) {
      if (read.size() > limit) {
        break;
      }
      List<Job> failed = new ArrayList<>();
      for (JobRow job : row.jobs) {
        if (job.job.state() == JobState.FAILED) {
          failed.add(job.job);
        }
      }
      read.add(new HistoryEntry(row.request, failed));
    }
    return HistoryPage.of(read, limit);
  }

  private List<RequestRow> openGroup(CiRun run) {
    return run.concurrencyGroup().map(g -> openCiGroups.getOrDefault(List.of(run.repository(), g), List.of()))
        .map(List::copyOf).orElse(List.of());
  }

  private java.util.Optional<List<RequestRow>> group(Request request) {
    return request.ciRun().flatMap(run -> run.concurrencyGroup().map(g ->
        openCiGroups.computeIfAbsent(List.of(run.repository(), g), k -> new ArrayList<>())));
  }

  private static String prKey(RequestKind kind, long pr) {
    return kind.name() + '#' + pr;
  }
}
