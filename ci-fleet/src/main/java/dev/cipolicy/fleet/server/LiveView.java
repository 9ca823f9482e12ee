package dev.cipolicy.fleet.server;

import dev.cipolicy.fleet.server.Api.OverviewDto;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What the HTTP handlers answer from: the overview, computed once per refresh by one thread (not once per
 * request: every page endpoint but the history is a part of it), each part a request has asked for written to
 * JSON by the same thread before the overview is published (so a request only copies text); a filtered view, an
 * operator's and a further page of the waiting jobs pick their rows from the same computation
 * ({@link FleetView.Computed}), as old as the unfiltered one, each written once per refresh (at most
 * {@value #MAX_VIEWS_KEPT} of them). The accounting per window is kept for
 * {@link #ACCOUNTING_TTL}, and each history page for one refresh delay, then recomputed in the background when a
 * request finds them older (that request gets the kept one; at most {@value #MAX_WINDOWS_KEPT} windows and
 * {@value #MAX_HISTORY_PAGES_KEPT} pages are kept). Each refresh also offers the share bars to the
 * {@link ShareSamples} ring. Without a refresh delay (null) every request computes what it answers itself.
 */
public final class LiveView implements AutoCloseable {
  /** The delay between two refreshes of the overview unless one is given. */
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(1);

  /** How long an accounting answer is served before it is recomputed. */
  public static final Duration ACCOUNTING_TTL = Duration.ofSeconds(10);

  /** How many history pages are kept at once; more drop them all. */
  static final int MAX_HISTORY_PAGES_KEPT = 64;

  /** How many windows' accounting is kept at once; more drop them all. */
  static final int MAX_WINDOWS_KEPT = 16;

  private final FleetView view;
  private final @Nullable Duration refresh;
  private final Consumer<RuntimeException> onError;
  private final @Nullable ScheduledExecutorService refresher;
  private final ExecutorService background;
  private volatile @Nullable Rendered latest;
  private volatile long latestAt;
  /** Whether the last refresh failed: then a kept overview older than {@link #staleAfter} is not answered. */
  private volatile boolean failing;
  private final Object computing = new Object();
  private final Map<Duration, Kept> accounting = new HashMap<>();
  private final Map<String, Kept> history = new HashMap<>();
  /** The parts requests asked for so far: each refresh writes them before it publishes the overview. */
  private final Map<String, Function<OverviewDto, Object>> asked = new ConcurrentHashMap<>();

  /** A document already written as JSON and encoded in UTF-8, answered as it is. */
  static final class JsonText {
    private final String text;
    private final byte[] bytes;

    JsonText(String text) {
      this.text = text;
      this.bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The JSON. */
    String text() {
      return text;
    }

    /** The encoded JSON; never modified. */
    byte[] bytes() {
      return bytes;
    }
  }

  /** The parts of the overview the endpoints answer, by name, each written to JSON once per refresh. */
  static final Map<String, Function<OverviewDto, Object>> PARTS = Map.of("overview", o -> o, "in-progress",
      OverviewDto::inProgress, "queue", OverviewDto::queue, "waiting-jobs", OverviewDto::waitingJobs, "collectors",
      OverviewDto::collectors, "hosts", OverviewDto::hosts, "shares", OverviewDto::shares);

  /**
   * The parts of the overview a filter and a page leave as they are, by component of {@link OverviewDto}: their
   * part's name; {@code queue} only without a filter, {@code waitingJobs} only for the first page without one.
   */
  private static final Map<String, String> KEPT_PARTS = Map.of("inProgress", "in-progress", "collectors",
      "collectors", "hosts", "hosts", "shares", "shares");

  private static final java.lang.reflect.RecordComponent[] OVERVIEW = OverviewDto.class.getRecordComponents();

  /**
   * One computed overview, its page as the page first gets it (nothing filtered, the first page of the waiting
   * jobs, read-only) and that page's parts, each written to JSON once.
   */
  private static final class Rendered {
    final FleetView.Computed computed;
    final OverviewDto dto;
    final Map<String, JsonText> parts = new ConcurrentHashMap<>();
    /** The filtered, paged and operators' answers written so far, at most {@value #MAX_VIEWS_KEPT}. */
    final Map<ViewKey, Answer> views = new ConcurrentHashMap<>();

    Rendered(FleetView.Computed computed) {
      this.computed = computed;
      this.dto = computed.view(WorkFilter.NONE, WaitingPage.FIRST, false);
    }
  }

  private static final class Kept {
    final JsonText json;
    final long at;
    final AtomicBoolean renewing = new AtomicBoolean();

    Kept(Object dto, long at) {
      this.json = new JsonText(JsonWriter.write(dto));
      this.at = at;
    }
  }

  /**
   * Starts refreshing a view.
   *
   * @param view the view
   * @param refresh the delay between the end of one refresh and the start of the next, or null to compute the
   *     overview on every request
   * @param onError told of each refresh that failed
   */
  public LiveView(FleetView view, @Nullable Duration refresh, Consumer<RuntimeException> onError) {
    this.view = view;
    this.refresh = refresh;
    this.onError = onError;
    this.background = Executors.newSingleThreadExecutor(r -> daemon(r, "fleet-accounting"));
    if (refresh == null) {
      this.refresher = null;
    } else {
      this.refresher = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "fleet-view"));
      ScheduledFuture<?> unused = refresher.scheduleWithFixedDelay(() -> {
        try {
          recompute();
          failing = false;
        } catch (RuntimeException e) {
          failing = true;
          onError.accept(e);
        }
      }, 0, Math.max(1, refresh.toMillis()), TimeUnit.MILLISECONDS);
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * The latest overview: the last refresh's (computed now if there is none yet, if refreshes fail and it is older
   * than {@link #staleAfter}, or on every call without a refresh delay), nothing filtered, the first page of the
   * waiting jobs, read-only.
   *
   * @return the overview
   */
  public OverviewDto overview() {
    return rendered().dto;
  }

  /**
   * A part of the latest overview (or the whole, {@code "overview"}) for a filter, a page of the waiting jobs and a
   * reader, with the overview it is a part of (its {@code waitingJobsPage} counts the matching jobs). The page's
   * first view (nothing filtered, the first page, read-only) is answered as the JSON written once per refresh;
   * any other is picked from the rows the last refresh computed, as old, not computed again, and kept for the
   * next request of the same refresh.
   *
   * @param name the part's name, a key of {@link #PARTS}
   * @param filter the filter of the waiting work
   * @param page which of the matching waiting jobs to list
   * @param controls whether the reader may use the controls
   * @return the part as JSON and its overview
   */
  Answer answer(String name, WorkFilter filter, WaitingPage page, boolean controls) {
    Rendered r = rendered();
    if (filter.equals(WorkFilter.NONE) && page.equals(WaitingPage.FIRST) && !controls) {
      return new Answer(part(r, name), r.dto);
    }
    Function<OverviewDto, Object> part = Objects.requireNonNull(PARTS.get(name), name);
    return view(r, new ViewKey(name, filter, page, controls), () -> {
      OverviewDto o = r.computed.view(filter, page, controls);
      return new Answer(new JsonText(JsonWriter.write(part.apply(o))), o);
    });
  }

  /** How many filtered, paged or operators' answers one refresh keeps; any more are written per request. */
  static final int MAX_VIEWS_KEPT = 64;

  /** Which answer: the part, the filter, the page and the reader's controls. */
  private record ViewKey(String name, WorkFilter filter, WaitingPage page, boolean controls) {}

  /**
   * The answer kept for a key by this refresh's overview, else written now and kept (a page polled with a filter,
   * or an operator's, is written once per refresh, not once per poll).
   */
  private static Answer view(Rendered r, ViewKey key, Supplier<Answer> write) {
    Answer a = r.views.get(key);
    if (a == null) {
      a = write.get();
      if (r.views.size() < MAX_VIEWS_KEPT) {
        r.views.putIfAbsent(key, a);
      }
    }
    return a;
  }

  /**
   * The latest overview as JSON for a filter, a page of the waiting jobs and a reader: the page's first view as
   * written once per refresh; any other picked from the rows the last refresh computed, the panels it leaves as
   * they are (in progress, collectors, hosts, shares, and the queue or the first page of the waiting jobs when
   * not filtered) copied from the JSON written once per refresh.
   *
   * @param filter the filter of the waiting work
   * @param page which of the matching waiting jobs to list
   * @param controls whether the reader may use the controls
   * @return the document as JSON
   */
  JsonText overview(WorkFilter filter, WaitingPage page, boolean controls) {
    Rendered r = rendered();
    boolean all = filter.equals(WorkFilter.NONE);
    if (all && page.equals(WaitingPage.FIRST) && !controls) {
      return part(r, "overview");
    }
    return view(r, new ViewKey("overview", filter, page, controls), () -> {
      OverviewDto o = r.computed.view(filter, page, controls);
      return new Answer(write(r, o, all, page), o);
    }).body();
  }

  /** The overview as JSON, the panels the filter and the page leave as they are copied from the kept parts. */
  private JsonText write(Rendered r, OverviewDto o, boolean all, WaitingPage page) {
    Map<String, Object> doc = new LinkedHashMap<>();
    for (java.lang.reflect.RecordComponent c : OVERVIEW) {
      String name = c.getName();
      String kept = KEPT_PARTS.get(name);
      if (kept != null) {
        doc.put(name, part(r, kept));
      } else if (all && name.equals("queue")) {
        doc.put(name, part(r, "queue"));
      } else if (all && page.equals(WaitingPage.FIRST) && name.equals("waitingJobs")) {
        doc.put(name, part(r, "waiting-jobs"));
      } else {
        try {
          doc.put(name, c.getAccessor().invoke(o));
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot read " + name + " of the overview", e);
        }
      }
    }
    return new JsonText(JsonWriter.write(doc));
  }

  /**
   * What {@link #answer} answers.
   *
   * @param body the part as JSON
   * @param overview the overview it is a part of
   */
  record Answer(JsonText body, OverviewDto overview) {}

  private Rendered rendered() {
    Rendered r = latest;
    if (refresh == null || r == null
        || (failing && System.nanoTime() - latestAt > staleAfter(refresh).toNanos())) {
      return render();
    }
    return r;
  }

  /**
   * A part of the latest overview (or the whole, {@code "overview"}) as JSON, written once per overview.
   *
   * @param name the part's name, a key of {@link #PARTS}
   * @return the JSON
   */
  JsonText part(String name) {
    return part(rendered(), name);
  }

  private JsonText part(Rendered r, String name) {
    Function<OverviewDto, Object> part = Objects.requireNonNull(PARTS.get(name), name);
    asked.putIfAbsent(name, part);
    return r.parts.computeIfAbsent(name, n -> new JsonText(JsonWriter.write(part.apply(r.dto))));
  }

  /**
   * How old the kept overview may be, once refreshes fail (e.g. the store is unreachable), before a request
   * computes its own (and says so): five refresh delays, at least 5 s.
   */
  static Duration staleAfter(Duration refresh) {
    Duration five = refresh.multipliedBy(5);
    return five.compareTo(Duration.ofSeconds(5)) < 0 ? Duration.ofSeconds(5) : five;
  }

  /** Drops the latest overview (a control changed the queue), so the next request computes one. */
  public void invalidate() {
    latest = null;
  }

  /**
   * Computes the overview now and keeps it.
   *
   * @return the overview
   */
  public OverviewDto recompute() {
    return render().dto;
  }

  private Rendered render() {
    synchronized (computing) {
      Rendered r = new Rendered(view.compute());
      OverviewDto o = r.dto;
      if (refresh != null) {
        asked.forEach((name, part) -> r.parts.put(name, new JsonText(JsonWriter.write(part.apply(o)))));
      }
      latest = r;
      latestAt = System.nanoTime();
      view.shareSamples().offer(Instant.parse(o.at()), o.shares());
      return r;
    }
  }

  /**
   * The accounting of a window ending now, at most {@link #ACCOUNTING_TTL} old unless its recomputation is under
   * way.
   *
   * @param window the window
   * @return the document as JSON
   */
  JsonText accounting(Duration window) {
    if (refresh == null) {
      return new JsonText(JsonWriter.write(view.accounting(window)));
    }
    return kept(accounting, window, MAX_WINDOWS_KEPT, ACCOUNTING_TTL, () -> view.accounting(window));
  }

  /**
   * A page of the history as JSON, kept for one refresh delay and then recomputed in the background (the request
   * gets the kept one); at most {@value #MAX_HISTORY_PAGES_KEPT} pages are kept.
   *
   * @param limit the page size
   * @param cursor the previous page's {@code next}, or null
   * @return the page as JSON
   */
  JsonText history(int limit, @Nullable String cursor) {
    if (refresh == null) {
      return new JsonText(JsonWriter.write(view.history(limit, cursor)));
    }
    return kept(history, limit + "/" + cursor, MAX_HISTORY_PAGES_KEPT, refresh, () -> view.history(limit, cursor));
  }

  /** The kept answer for a key: computed now if there is none, renewed in the background once older than ttl. */
  private <K> JsonText kept(Map<K, Kept> map, K key, int maxKept, Duration ttl, Supplier<Object> compute) {
    Kept k;
    synchronized (map) {
      k = map.get(key);
    }
    if (k == null) {
      k = new Kept(compute.get(), System.nanoTime());
      synchronized (map) {
        if (map.size() >= maxKept) {
          map.clear();
        }
        map.put(key, k);
      }
      return k.json;
    }
    if (System.nanoTime() - k.at > ttl.toNanos() && k.renewing.compareAndSet(false, true)) {
      background.execute(() -> {
        try {
          Kept fresh = new Kept(compute.get(), System.nanoTime());
          synchronized (map) {
            map.put(key, fresh);
          }
        } catch (RuntimeException e) {
          onError.accept(e);
          synchronized (map) {
            map.remove(key);
          }
        }
      });
    }
    return k.json;
  }

  /** Stops the refreshes. */
  @Override
  public void close() {
    if (refresher != null) {
      refresher.shutdownNow();
    }
    background.shutdownNow();
  }
}
