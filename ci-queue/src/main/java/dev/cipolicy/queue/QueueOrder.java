package dev.cipolicy.queue;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.WaitReason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The order in which a site runs requests, a pure and deterministic function of the open
 * requests: requests in progress (by start), then releases (by creation), then ready master and try
 * requests in topological order of "parent done" — a request waits for a ready parent; a parent in
 * progress, completed or cancelled counts as done, so the order does not change when the head completes —
 * and within a level by PR number, master before try, creation time and id. A request whose parent is
 * <b>unknown</b> (no request has that tag) is a fallback: it is placed only when no request with a done
 * (or placed) parent is left, one at a time, least first, so it never jumps ahead of ready work. Requests
 * in a parent cycle (only possible with inconsistent parents) are promoted the same way once no fallback
 * is left. Try requests waiting for artifacts come last, outside the order. Cost: O(n log n) for n
 * requests.
 *
 * <p>Whether a parent is known is decided from the given requests (of any state) and the known tags given
 * beside them: {@link #of(Collection, Set)} takes the tags of the requests a store holds but did not list
 * (the closed ones, {@link dev.cipolicy.queue.spi.QueueStore#knownTags}); {@link #of(Collection)} treats
 * the given requests as all there are.
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
    /** Its parent is completed or cancelled. */
    PARENT_DONE,
    /** No request has its parent's tag: placed after every request with a done parent (a fallback). */
    PARENT_UNKNOWN,
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
        case PARENT_DONE -> "parent " + parent + " done";
        case PARENT_UNKNOWN -> "parent " + parent + " unknown: after every request with a done parent";
        case AFTER_PARENT -> "after parent " + parent + " (level " + level + ")";
        case CYCLE_PROMOTED -> "parent cycle through " + parent + ": promoted";
        case WAITING_FOR_ARTIFACTS -> "waiting for artifacts";
      };
    }
  }

  /** Orders requests in progress by start instant, then id (a handful: at most the cap K). */
  private static final Comparator<Request> BY_START = Comparator
      .comparing((Request r) -> r.startedAt().orElse(Instant.MAX)).thenComparing(Request::id);

  private final List<Placed> ordered;
  private final List<Placed> waiting;

  private QueueOrder(Placed[] ordered, Placed[] waiting) {
    // The arrays are filled once by Ordering and never escape: read-only views need no copy.
    this.ordered = Collections.unmodifiableList(Arrays.asList(ordered));
    this.waiting = Collections.unmodifiableList(Arrays.asList(waiting));
  }

  /**
   * Orders the open requests among the given ones, taking the given requests as every request there is: a
   * parent SHA that none of them has as its tag is unknown. Completed and cancelled requests are not
   * ordered (their tags count as done parents), and the input order does not matter.
   *
   * @param requests every request, or the open ones when every parent outside them is unknown
   * @return the order
   */
  public static QueueOrder of(Collection<Request> requests) {
    return of(requests, Set.of());
  }

  /**
   * Orders the open requests among the given ones; {@code knownTags} are the tags of requests not given
   * (completed or cancelled ones), which count as done parents. A parent SHA that is neither the tag of a
   * given request nor a known tag is unknown. Completed and cancelled requests are not ordered, and the
   * input order does not matter.
   *
   * @param requests the requests, usually {@code QueueStore.openRequests()}
   * @param knownTags tags that some request outside {@code requests} has, usually
   *     {@code QueueStore.knownTags(parents of the open requests)}
   * @return the order
   */
  public static QueueOrder of(Collection<Request> requests, Set<String> knownTags) {
    if (requests == null || knownTags == null) {
      throw new InvalidQueueInputException("the queue order needs the requests and the"
          + " known tags; got " + (requests == null ? "no requests" : "no known tags"));
    }
    return new Ordering(requests.toArray(new Request[0]), knownTags).order();
  }

  /**
   * The parent SHAs of the given ready master and try requests that none of the given requests has as its
   * tag: the tags to ask a store about ({@link dev.cipolicy.queue.spi.QueueStore#knownTags}) before
   * {@link #of(Collection, Set)}. Usually a handful: the completed parents of the oldest requests.
   *
   * @param requests the requests to order
   * @return the parent SHAs outside them
   */
  public static Set<String> parentTagsOutside(Collection<Request> requests) {
    Set<String> tags = new HashSet<>();
    for (Request r : requests) {
      r.tag().ifPresent(tags::add);
    }
    Set<String> outside = new HashSet<>();
    for (Request r : requests) {
      if (r.state() == RequestState.ARTIFACTS_READY && r.kind() != RequestKind.RELEASE) {
        r.parentSha().filter(p -> !tags.contains(p)).ifPresent(outside::add);
      }
    }
    return outside;
  }

  /**
   * The computation of one order, over the requests' positions in the input array. With many requests
   * the cost is memory access, not comparisons (docs/performance.md), so: every request is read once, in
   * one pass in input order, into flat arrays (sort keys, tags, parents); its ready parent is looked up in
   * the same pass (the parent usually came earlier; a later one is looked up after the pass); and nothing
   * is allocated per request except its {@link Placed}.
   */
  private static final class Ordering {
    /** Section code (the array's default) of a request in progress, kept in {@link #running}, or closed. */
    private static final byte OTHER = 0;
    private static final byte RELEASE = 1;
    private static final byte READY = 2;
    private static final byte WAITING = 3;
    /** {@link #parent} of a ready request with a parent SHA whose lookup waits for the whole input. */
    private static final int UNRESOLVED = -2;
    /** {@link #parent} of a ready request whose parent SHA no request has: a fallback. */
    private static final int UNKNOWN = -3;

    private final Request[] all;
    private final byte[] section;
    private final SortKeys keys;
    /** The parent SHA of each ready request (null without one). */
    private final @Nullable String[] parentShas;
    /**
     * The position of each ready request's ready parent; -1 when it has none or its parent is done,
     * {@link #UNKNOWN} when no request has its parent's tag.
     */
    private final int[] parent;
    private final TagTable byTag;
    /** Tags of the given requests that are not ready master or try requests, and the known tags. */
    private final Set<String> otherTags;
    private int fallbacks;
    private final List<Request> running = new ArrayList<>();
    private int releases;
    private int ready;
    private int waiting;

    Ordering(Request[] all, Set<String> knownTags) {
      int n = all.length;
      this.otherTags = new HashSet<>(knownTags);
      this.all = all;
      this.section = new byte[n];
      this.keys = new SortKeys(n);
      this.parentShas = new String[n];
      this.parent = new int[n];
      this.byTag = new TagTable(n);
      int unresolved = 0;
      for (int i = 0; i < n; i++) {
        Request r = all[i];
        switch (r.state()) {
          case IN_PROGRESS -> running.add(r);
          case ARTIFACTS_READY -> {
            if (r.kind() == RequestKind.RELEASE) {
              section[i] = RELEASE;
              releases++;
              keys.set(i, 0, 0, r.createdAt(), r.id().value());
            } else {
              section[i] = READY;
              ready++;
              keys.set(i, r.pr().orElse(0L), r.kind() == RequestKind.MASTER ? 0 : 1, r.createdAt(), r.id().value());
              byTag.put(r.tag().orElseThrow(), i);
              String parentSha = r.parentSha().orElse(null);
              parentShas[i] = parentSha;
              int p = parentSha == null ? -1 : byTag.find(parentSha);
              if (p < 0 && parentSha != null) {
                p = UNRESOLVED;
                unresolved++;
              }
              parent[i] = p;
            }
          }
          case WAITING_FOR_ARTIFACTS -> {
            section[i] = WAITING;
            waiting++;
            keys.set(i, 0, 0, r.createdAt(), r.id().value());
          }
          default -> section[i] = OTHER; // completed or cancelled: not ordered
        }
        if (section[i] != READY) {
          r.tag().ifPresent(otherTags::add);
        }
      }
      // A parent later in the input, or a tag given twice (the last one counts), needs the whole table.
      if (unresolved > 0 || byTag.replaced()) {
        for (int i = 0; i < n; i++) {
          if (section[i] == READY && parentShas[i] != null && (parent[i] == UNRESOLVED || byTag.replaced())) {
            parent[i] = byTag.find(parentShas[i]);
          }
        }
      }
      // A parent that is no ready request is done when some request has its tag, and unknown otherwise.
      for (int i = 0; i < n; i++) {
        String parentSha = parentShas[i];
        if (section[i] == READY && parent[i] < 0 && parentSha != null && !otherTags.contains(parentSha)) {
          parent[i] = UNKNOWN;
          fallbacks++;
        }
      }
    }

    QueueOrder order() {
      Placed[] ordered = new Placed[running.size() + releases + ready];
      int next = 0;
      running.sort(BY_START);
      Set<String> runningTags = new HashSet<>();
      for (Request r : running) {
        ordered[next++] = new Placed(r, Section.IN_PROGRESS, 0, Basis.IN_PROGRESS);
        r.tag().ifPresent(runningTags::add);
      }
      for (int i : sorted(RELEASE, releases)) {
        ordered[next++] = new Placed(all[i], Section.RELEASE, 0, Basis.RELEASE);
      }
      placeReady(runningTags, ordered, next);
      Placed[] waitingPlaced = new Placed[waiting];
      next = 0;
      for (int i : sorted(WAITING, waiting)) {
        waitingPlaced[next++] = new Placed(all[i], Section.WAITING_FOR_ARTIFACTS, 0, Basis.WAITING_FOR_ARTIFACTS);
      }
      return new QueueOrder(ordered, waitingPlaced);
    }

    /** The positions of one section in input order. */
    private int[] positions(byte of, int count) {
      int[] out = new int[count];
      int k = 0;
      for (int i = 0; i < section.length && k < count; i++) {
        if (section[i] == of) {
          out[k++] = i;
        }
      }
      return out;
    }

    private int[] sorted(byte of, int count) {
      int[] out = positions(of, count);
      keys.sort(out, 0, count);
      return out;
    }

    /**
     * Appends the ready master and try requests level by level (breadth first over "parent is ready") to
     * {@code out} from {@code start}; promotes the least unplaced request when only parent cycles are left.
     */
    private void placeReady(Set<String> runningTags, Placed[] out, int start) {
      int n = all.length;
      // Children of position i, in input order: children[firstChild[i] .. firstChild[i + 1] - 1].
      int[] firstChild = new int[n + 1];
      for (int i = 0; i < n; i++) {
        if (section[i] == READY && parent[i] >= 0) {
          firstChild[parent[i] + 1]++;
        }
      }
      for (int i = 0; i < n; i++) {
        firstChild[i + 1] += firstChild[i];
      }
      int[] children = new int[firstChild[n]];
      // The queue of the breadth-first walk; [head, tail) is the current level. A request enters it once,
      // when its parent is placed (roots at the start), and promoted ones never do: ready slots suffice.
      int[] queue = new int[ready];
      int tail = 0;
      int[] fill = Arrays.copyOf(firstChild, n);
      for (int i = 0; i < n; i++) {
        if (section[i] == READY) {
          if (parent[i] == UNKNOWN) {
            continue; // a fallback: promoted when the walk runs dry
          }
          if (parent[i] < 0) {
            queue[tail++] = i;
          } else {
            children[fill[parent[i]]++] = i;
          }
        }
      }
      boolean[] placed = new boolean[n];
      int head = 0;
      int[] byOrder = null;
      int promotionCursor = 0;
      int[] fallbackOrder = fallbacks == 0 ? new int[0] : fallbackOrder();
      int fallbackCursor = 0;
      int depth = 0;
      int next = start;
      while (next - start < ready) {
        if (head == tail && fallbackCursor < fallbackOrder.length) {
          // No request with a done parent is left: the least request whose parent is unknown goes next.
          int fallback = fallbackOrder[fallbackCursor++];
          placed[fallback] = true;
          out[next++] = new Placed(all[fallback], Section.READY, depth, Basis.PARENT_UNKNOWN);
          tail = enqueueUnplaced(children, firstChild[fallback], firstChild[fallback + 1], placed, queue, tail);
          depth++;
          continue;
        }
        if (head == tail) {
          // Only requests in parent cycles are left: promote the least of them.
          if (byOrder == null) {
            byOrder = sorted(READY, ready);
          }
          while (placed[byOrder[promotionCursor]]) {
            promotionCursor++;
          }
          int promoted = byOrder[promotionCursor];
          placed[promoted] = true;
          out[next++] = new Placed(all[promoted], Section.READY, depth, Basis.CYCLE_PROMOTED);
          tail = enqueueUnplaced(children, firstChild[promoted], firstChild[promoted + 1], placed, queue, tail);
          depth++;
          continue;
        }
        int levelEnd = tail;
        keys.sort(queue, head, levelEnd);
        for (int q = head; q < levelEnd; q++) {
          int i = queue[q];
          placed[i] = true;
          out[next++] = new Placed(all[i], Section.READY, depth, basis(parentShas[i], depth, runningTags));
          tail = enqueueUnplaced(children, firstChild[i], firstChild[i + 1], placed, queue, tail);
        }
        head = levelEnd;
        depth++;
      }
    }

    /** The positions of the ready requests whose parent is unknown, in level order. */
    private int[] fallbackOrder() {
      int[] out = new int[fallbacks];
      int k = 0;
      for (int i = 0; i < section.length; i++) {
        if (section[i] == READY && parent[i] == UNKNOWN) {
          out[k++] = i;
        }
      }
      keys.sort(out, 0, k);
      return out;
    }

    private static int enqueueUnplaced(int[] children, int from, int to, boolean[] placed, int[] queue, int tail) {
      for (int c = from; c < to; c++) {
        int child = children[c];
        if (!placed[child]) {
          queue[tail++] = child;
        }
      }
      return tail;
    }

    private static Basis basis(@Nullable String parentSha, int depth, Set<String> runningTags) {
      if (parentSha == null) {
        return Basis.NO_PARENT;
      }
      if (depth > 0) {
        return Basis.AFTER_PARENT;
      }
      return runningTags.contains(parentSha) ? Basis.PARENT_IN_PROGRESS : Basis.PARENT_DONE;
    }
  }

  /**
   * An open-addressing table from tag to the position of the request with that tag (the last one put
   * when a tag repeats): no entry objects, no boxing, and each slot holds the tag's hash beside the
   * position, so that a probe reads a stored tag only when the hashes match.
   */
  private static final class TagTable {
    /** The tag of each position put, indexed by position. */
    private final String[] tags;
    /** Per slot: the tag's hash in the high half, position + 1 in the low half; 0 when empty. */
    private final long[] slots;
    private final int mask;
    private boolean replaced;

    /** A table for at most {@code positions} tags at positions 0..positions-1. */
    TagTable(int positions) {
      this.tags = new String[positions];
      int capacity = Integer.highestOneBit(Math.max(2, positions) * 2 - 1) << 1;
      this.slots = new long[capacity];
      this.mask = capacity - 1;
    }

    void put(String tag, int position) {
      int hash = tag.hashCode();
      int s = slotOf(tag, hash);
      replaced |= slots[s] != 0;
      tags[position] = tag;
      slots[s] = ((long) hash << 32) | (position + 1);
    }

    /** Whether a tag was put twice (its first position no longer counts). */
    boolean replaced() {
      return replaced;
    }

    /** The position of the last request put with this tag, or -1. */
    int find(String tag) {
      return (int) slots[slotOf(tag, tag.hashCode())] - 1;
    }

    /** The slot holding the tag, or the empty slot where it belongs. */
    private int slotOf(String tag, int hash) {
      int s = spread(hash) & mask;
      while (true) {
        long entry = slots[s];
        if (entry == 0) {
          return s;
        }
        if ((int) (entry >>> 32) == hash) {
          String other = tags[(int) entry - 1];
          if (other.equals(tag)) {
            return s;
          }
        }
        s = (s + 1) & mask;
      }
    }

    private static int spread(int hash) {
      int h = hash * 0x9E3779B9;
      return h ^ (h >>> 16);
    }
  }

  /**
   * Sort keys of n items unpacked into one long array, five per item — PR number (0 when absent), kind
   * (0 master, 1 try), creation second and nano, id — and a stable merge sort of item positions by them.
   * Creation order uses the same keys with PR and kind 0.
   */
  private static final class SortKeys {
    private static final int WIDTH = 5;
    private static final int INSERTION_SORT_MAX = 16;
    private final long[] keys;
    private int[] buffer = new int[0];

    SortKeys(int n) {
      this.keys = new long[n * WIDTH];
    }

    void set(int item, long pr, int kind, Instant created, long id) {
      int k = item * WIDTH;
      keys[k] = pr;
      keys[k + 1] = kind;
      keys[k + 2] = created.getEpochSecond();
      keys[k + 3] = created.getNano();
      keys[k + 4] = id;
    }

    /** Whether item a sorts after item b. */
    private boolean after(int a, int b) {
      int ka = a * WIDTH;
      int kb = b * WIDTH;
      for (int f = 0; f < WIDTH; f++) {
        long x = keys[ka + f];
        long y = keys[kb + f];
        if (x != y) {
          return x > y;
        }
      }
      return false;
    }

    /** Sorts the item positions {@code items[from, to)} by key, stably. */
    void sort(int[] items, int from, int to) {
      if (to - from <= INSERTION_SORT_MAX) {
        insertionSort(items, from, to);
        return;
      }
      if (buffer.length < to - from) {
        buffer = new int[to - from];
      }
      mergeSort(items, from, to);
    }

    private void insertionSort(int[] items, int from, int to) {
      for (int i = from + 1; i < to; i++) {
        int item = items[i];
        int j = i - 1;
        while (j >= from && after(items[j], item)) {
          items[j + 1] = items[j];
          j--;
        }
        items[j + 1] = item;
      }
    }

    private void mergeSort(int[] items, int from, int to) {
      if (to - from <= INSERTION_SORT_MAX) {
        insertionSort(items, from, to);
        return;
      }
      int mid = (from + to) >>> 1;
      mergeSort(items, from, mid);
      mergeSort(items, mid, to);
      if (!after(items[mid - 1], items[mid])) {
        return;
      }
      int leftLength = mid - from;
      System.arraycopy(items, from, buffer, 0, leftLength);
      int left = 0;
      int right = mid;
      int out = from;
      while (left < leftLength && right < to) {
        // Taking from the left on ties keeps the sort stable.
        items[out++] = after(buffer[left], items[right]) ? items[right++] : buffer[left++];
      }
      System.arraycopy(buffer, left, items, out, leftLength - left);
    }
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
   * Why each open request that has not started is not running, in the order: the head is the next to start
   * (or waits for the cap of requests in progress), a request whose parent is a ready request placed before
   * it waits for its parent, any other ready request waits behind the requests placed before it, and a try
   * request without artifacts waits for them.
   *
   * @param maxInProgress the cap K of requests in progress
   * @return one wait per ready or waiting request: the ready ones in order, then the waiting ones by creation
   */
  public List<RequestWait> waitReasons(int maxInProgress) {
    List<String> running = new ArrayList<>();
    for (Placed p : ordered) {
      if (p.section() == Section.IN_PROGRESS && p.request().kind().isCapped()) {
        running.add(p.request().label()); // a CI run does not hold one of the K places
      }
    }
    List<RequestWait> out = new ArrayList<>();
    int ahead = 0;
    String headLabel = null;
    for (Placed p : ordered) {
      if (p.request().state() != RequestState.ARTIFACTS_READY) {
        continue;
      }
      WaitReason reason;
      if (headLabel == null) {
        headLabel = p.request().label();
        reason = running.size() >= maxInProgress
            ? WaitReason.builder().kind(WaitReason.Kind.CAP_REACHED).cap(maxInProgress).inProgress(running).build()
            : WaitReason.builder().kind(WaitReason.Kind.NEXT_TO_START).build();
      } else if (p.basis() == Basis.AFTER_PARENT) {
        reason = WaitReason.builder().kind(WaitReason.Kind.WAITING_FOR_PARENT)
            .parentSha(p.request().parentSha().orElse("?")).level(p.level()).ahead(ahead).build();
      } else {
        reason = WaitReason.builder().kind(WaitReason.Kind.BEHIND_OLDER_REQUEST).ahead(ahead).nextToStart(headLabel)
            .build();
      }
      out.add(new RequestWait(p.request(), reason));
      ahead++;
    }
    for (Placed p : waiting) {
      out.add(new RequestWait(p.request(), WaitReason.builder().kind(WaitReason.Kind.WAITING_FOR_ARTIFACTS)
          .label(p.request().label()).build()));
    }
    return out;
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
        if (p.request().kind().isCapped()) {
          work = work.plus(own); // a CI run does not hold one of the K places
        }
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
