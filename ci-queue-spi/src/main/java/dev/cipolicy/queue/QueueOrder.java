package dev.cipolicy.queue;

import dev.cipolicy.queue.spi.Request;
import dev.cipolicy.queue.spi.RequestKind;
import dev.cipolicy.queue.spi.RequestState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The order in which a site runs requests (SPEC §13), a pure and deterministic function of the open
 * requests: requests in progress (by start), then releases (by creation), then ready master and try
 * requests in topological order of "parent done" — a request waits for a ready parent; a parent in
 * progress, completed or unknown counts as done, so the order does not change when the head completes —
 * and within a level by PR number, master before try, creation time and id. Requests in a parent cycle
 * (only possible with inconsistent parents) are promoted one at a time, least first. Try requests waiting
 * for artifacts come last, outside the order. Cost: O(n log n) for n requests.
 */
public final class QueueOrder {

  /** The part of the queue a request is in. */
  public enum Section {
    /** Started; counts against the cap. */
    IN_PROGRESS,
    /** A ready release. */
    RELEASE,
    /** A ready master or try request. */
    READY,
    /** A try request waiting for artifacts; not ordered yet. */
    WAITING_FOR_ARTIFACTS;

    /**
     * The name used in text and JSON output.
     *
     * @return e.g. {@code in_progress}
     */
    public String documentName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Why a request is where it is in the order. */
  public enum Basis {
    /** It is in progress. */
    IN_PROGRESS,
    /** It is a ready release. */
    RELEASE,
    /** A ready master or try request without a parent SHA. */
    NO_PARENT,
    /** Its parent is in progress, which counts as done. */
    PARENT_IN_PROGRESS,
    /** Its parent is completed, cancelled or not in the queue at all (promoted). */
    PARENT_DONE_OR_UNKNOWN,
    /** Its parent is a ready request placed one level before it. */
    AFTER_PARENT,
    /** It is in a parent cycle and was promoted. */
    CYCLE_PROMOTED,
    /** It waits for artifacts. */
    WAITING_FOR_ARTIFACTS
  }

  /**
   * One request at its place in the order, with why it is there.
   *
   * @param request the request
   * @param section the part of the queue
   * @param level the topological level of a ready request (0 when its parent is done), else 0
   * @param basis why it is there
   */
  public record Placed(Request request, Section section, int level, Basis basis) {

    /**
     * Why the request is there, in words.
     *
     * @return e.g. {@code after parent 3f9a0c1 (level 1)}
     */
    public String reason() {
      String parent = request.parentSha().orElse("?");
      return switch (basis) {
        case IN_PROGRESS -> "in progress since " + request.startedAt().map(Object::toString).orElse("?");
        case RELEASE -> "release, by creation time";
        case NO_PARENT -> "no parent";
        case PARENT_IN_PROGRESS -> "parent " + parent + " in progress (counts as done)";
        case PARENT_DONE_OR_UNKNOWN -> "parent " + parent + " done or unknown";
        case AFTER_PARENT -> "after parent " + parent + " (level " + level + ")";
        case CYCLE_PROMOTED -> "parent cycle through " + parent + ": promoted";
        case WAITING_FOR_ARTIFACTS -> "waiting for artifacts";
      };
    }
  }

  /** A ready master or try request with its sort key unpacked, so that sorting allocates nothing. */
  private static final class Node {
    final Request request;
    final String tag;
    final long pr;
    final int kind;
    final long createdSecond;
    final int createdNano;
    final long id;
    List<Node> children = List.of();
    boolean placed;

    Node(Request request) {
      this.request = request;
      this.tag = request.tag().orElseThrow();
      this.pr = request.pr().orElse(0L);
      this.kind = request.kind() == RequestKind.MASTER ? 0 : 1;
      this.createdSecond = request.createdAt().getEpochSecond();
      this.createdNano = request.createdAt().getNano();
      this.id = request.id().value();
    }
  }

  /** Ties within a level: PR number (absent first), master before try, creation time, id. */
  private static final Comparator<Node> LEVEL_ORDER = (a, b) -> {
    int c = Long.compare(a.pr, b.pr);
    if (c == 0) {
      c = Integer.compare(a.kind, b.kind);
    }
    if (c == 0) {
      c = Long.compare(a.createdSecond, b.createdSecond);
    }
    if (c == 0) {
      c = Integer.compare(a.createdNano, b.createdNano);
    }
    return c != 0 ? c : Long.compare(a.id, b.id);
  };

  private static final Comparator<Request> BY_START = Comparator
      .comparing((Request r) -> r.startedAt().orElse(Instant.MAX)).thenComparing(Request::id);
  private static final Comparator<Request> BY_CREATION = Comparator.comparing(Request::createdAt)
      .thenComparing(Request::id);

  private final List<Placed> ordered;
  private final List<Placed> waiting;

  private QueueOrder(List<Placed> ordered, List<Placed> waiting) {
    this.ordered = List.copyOf(ordered);
    this.waiting = List.copyOf(waiting);
  }

  /**
   * Orders the open requests among the given ones; completed and cancelled requests are ignored, and the
   * input order does not matter.
   *
   * @param requests the requests, usually {@code QueueStore.openRequests()}
   * @return the order
   */
  public static QueueOrder of(Collection<Request> requests) {
    List<Request> running = new ArrayList<>();
    List<Request> releases = new ArrayList<>();
    List<Request> ready = new ArrayList<>();
    List<Request> waiting = new ArrayList<>();
    Set<String> runningTags = new HashSet<>();
    for (Request r : requests) {
      switch (r.state()) {
        case IN_PROGRESS -> {
          running.add(r);
          r.tag().ifPresent(runningTags::add);
        }
        case ARTIFACTS_READY -> (r.kind() == RequestKind.RELEASE ? releases : ready).add(r);
        case WAITING_FOR_ARTIFACTS -> waiting.add(r);
        default -> { }
      }
    }
    running.sort(BY_START);
    releases.sort(BY_CREATION);
    waiting.sort(BY_CREATION);

    List<Placed> ordered = new ArrayList<>(running.size() + releases.size() + ready.size());
    for (Request r : running) {
      ordered.add(new Placed(r, Section.IN_PROGRESS, 0, Basis.IN_PROGRESS));
    }
    for (Request r : releases) {
      ordered.add(new Placed(r, Section.RELEASE, 0, Basis.RELEASE));
    }
    placeReady(ready, runningTags, ordered);
    List<Placed> waitingPlaced = new ArrayList<>(waiting.size());
    for (Request r : waiting) {
      waitingPlaced.add(new Placed(r, Section.WAITING_FOR_ARTIFACTS, 0, Basis.WAITING_FOR_ARTIFACTS));
    }
    return new QueueOrder(ordered, waitingPlaced);
  }

  /** Appends the ready master and try requests level by level (breadth first over "parent is ready"). */
  private static void placeReady(List<Request> ready, Set<String> runningTags, List<Placed> out) {
    List<Node> nodes = new ArrayList<>(ready.size());
    Map<String, Node> byTag = new HashMap<>(ready.size() * 2);
    for (Request r : ready) {
      Node node = new Node(r);
      nodes.add(node);
      byTag.put(node.tag, node);
    }
    List<Node> level = new ArrayList<>();
    for (Node node : nodes) {
      Node parent = node.request.parentSha().map(byTag::get).orElse(null);
      if (parent == null) {
        level.add(node);
      } else {
        if (parent.children.isEmpty()) {
          parent.children = new ArrayList<>(2);
        }
        parent.children.add(node);
      }
    }
    List<Node> byOrder = null;
    int promotionCursor = 0;
    int placed = 0;
    int depth = 0;
    while (placed < nodes.size()) {
      if (level.isEmpty()) {
        // Only requests in parent cycles are left: promote the least of them.
        if (byOrder == null) {
          byOrder = new ArrayList<>(nodes);
          byOrder.sort(LEVEL_ORDER);
        }
        while (byOrder.get(promotionCursor).placed) {
          promotionCursor++;
        }
        Node promoted = byOrder.get(promotionCursor);
        promoted.placed = true;
        placed++;
        out.add(new Placed(promoted.request, Section.READY, depth, Basis.CYCLE_PROMOTED));
        level = unplacedChildren(promoted);
        depth++;
        continue;
      }
      level.sort(LEVEL_ORDER);
      List<Node> next = new ArrayList<>();
      for (Node node : level) {
        node.placed = true;
        placed++;
        out.add(new Placed(node.request, Section.READY, depth, basis(node.request, depth, runningTags)));
        next.addAll(unplacedChildren(node));
      }
      level = next;
      depth++;
    }
  }

  private static List<Node> unplacedChildren(Node node) {
    List<Node> out = new ArrayList<>(node.children.size());
    for (Node child : node.children) {
      if (!child.placed) {
        out.add(child);
      }
    }
    return out;
  }

  private static Basis basis(Request r, int depth, Set<String> runningTags) {
    if (r.parentSha().isEmpty()) {
      return Basis.NO_PARENT;
    }
    if (depth > 0) {
      return Basis.AFTER_PARENT;
    }
    return runningTags.contains(r.parentSha().get()) ? Basis.PARENT_IN_PROGRESS : Basis.PARENT_DONE_OR_UNKNOWN;
  }

  /**
   * The ordered requests: in progress, releases, then ready master and try requests.
   *
   * @return the placed requests in order (waiting try requests excluded)
   */
  public List<Placed> placed() {
    return ordered;
  }

  /**
   * The try requests waiting for artifacts, by creation.
   *
   * @return the waiting requests
   */
  public List<Placed> waiting() {
    return waiting;
  }

  /**
   * The ordered requests without their placement.
   *
   * @return the requests in order (waiting try requests excluded)
   */
  public List<Request> requests() {
    List<Request> out = new ArrayList<>(ordered.size());
    for (Placed p : ordered) {
      out.add(p.request());
    }
    return out;
  }

  /**
   * The ready requests (releases, master, try) in the order a site starts them.
   *
   * @return the ready requests
   */
  public List<Request> ready() {
    List<Request> out = new ArrayList<>();
    for (Placed p : ordered) {
      if (p.request().state() == RequestState.ARTIFACTS_READY) {
        out.add(p.request());
      }
    }
    return out;
  }

  /**
   * The next request to start.
   *
   * @return the first ready request, if any
   */
  public Optional<Request> head() {
    for (Placed p : ordered) {
      if (p.request().state() == RequestState.ARTIFACTS_READY) {
        return Optional.of(p.request());
      }
    }
    return Optional.empty();
  }

  /**
   * The status view: every ordered request with how many are ahead of it and an ETA, then the waiting
   * ones.
   *
   * <p>The ETA of a request is the estimated time until it completes: the remaining expected time of the
   * requests in progress (expected duration minus elapsed, at least zero) plus one expected duration per
   * ready request up to and including it, divided by the cap K (that many run side by side).
   *
   * @param now the instant of the view
   * @param expected how long a request usually takes
   * @param maxInProgress the cap K
   * @return the status
   */
  public QueueStatus status(Instant now, Duration expected, int maxInProgress) {
    List<QueueStatus.Entry> entries = new ArrayList<>(ordered.size() + waiting.size());
    Duration work = Duration.ZERO;
    int position = 0;
    for (Placed p : ordered) {
      Duration own;
      if (p.section() == Section.IN_PROGRESS) {
        Duration elapsed = Duration.between(p.request().startedAt().orElseThrow(), now);
        own = expected.minus(elapsed);
        if (own.isNegative()) {
          own = Duration.ZERO;
        }
        entries.add(new QueueStatus.Entry(position + 1, p, position, Optional.of(own)));
        work = work.plus(own);
      } else {
        work = work.plus(expected);
        entries.add(new QueueStatus.Entry(position + 1, p, position,
            Optional.of(work.dividedBy(Math.max(1, maxInProgress)))));
      }
      position++;
    }
    for (Placed p : waiting) {
      entries.add(new QueueStatus.Entry(0, p, ordered.size(), Optional.empty()));
    }
    return new QueueStatus(now, entries);
  }
}
