package dev.cipolicy.fleet.server;

import dev.cipolicy.fleet.server.Api.AccountingDto;
import dev.cipolicy.fleet.server.Api.OverviewDto;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What the HTTP handlers answer from: the overview, computed once per refresh by one thread (not once per
 * request: every page endpoint but the history is a part of it), and the accounting per window, kept for
 * {@link #ACCOUNTING_TTL} and recomputed in the background when a request finds it older (the request gets the
 * kept one; at most {@value #MAX_WINDOWS_KEPT} windows are kept). Each refresh also offers the share bars to the {@link ShareSamples} ring. Without a refresh
 * delay (null) every request computes the overview and the accounting itself, as the server did before.
 */
public final class LiveView implements AutoCloseable {
  /** The delay between two refreshes of the overview unless one is given. */
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(1);

  /** How long an accounting answer is served before it is recomputed. */
  public static final Duration ACCOUNTING_TTL = Duration.ofSeconds(10);

  /** How many windows' accounting is kept at once; more drop them all. */
  static final int MAX_WINDOWS_KEPT = 16;

  private final FleetView view;
  private final @Nullable Duration refresh;
  private final Consumer<RuntimeException> onError;
  private final @Nullable ScheduledExecutorService refresher;
  private final ExecutorService background;
  private volatile @Nullable OverviewDto latest;
  private final Object computing = new Object();
  private final Map<Duration, Kept> accounting = new HashMap<>();

  private static final class Kept {
    final AccountingDto dto;
    final long at;
    final AtomicBoolean renewing = new AtomicBoolean();

    Kept(AccountingDto dto, long at) {
      this.dto = dto;
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
        } catch (RuntimeException e) {
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
   * The latest overview: the last refresh's (computed now if there is none yet, or on every call without a
   * refresh delay).
   *
   * @return the overview
   */
  public OverviewDto overview() {
    OverviewDto o = latest;
    if (refresh == null || o == null) {
      return recompute();
    }
    return o;
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
    synchronized (computing) {
      OverviewDto o = view.overview();
      latest = o;
      view.shareSamples().offer(Instant.parse(o.at()), o.shares());
      return o;
    }
  }

  /**
   * The accounting of a window ending now, at most {@link #ACCOUNTING_TTL} old unless its recomputation is under
   * way.
   *
   * @param window the window
   * @return the document
   */
  public AccountingDto accounting(Duration window) {
    if (refresh == null) {
      return view.accounting(window);
    }
    Kept k;
    synchronized (accounting) {
      k = accounting.get(window);
    }
    if (k == null) {
      k = new Kept(view.accounting(window), System.nanoTime());
      synchronized (accounting) {
        if (accounting.size() >= MAX_WINDOWS_KEPT) {
          accounting.clear();
        }
        accounting.put(window, k);
      }
      return k.dto;
    }
    if (System.nanoTime() - k.at > ACCOUNTING_TTL.toNanos() && k.renewing.compareAndSet(false, true)) {
      background.execute(() -> {
        try {
          Kept fresh = new Kept(view.accounting(window), System.nanoTime());
          synchronized (accounting) {
            accounting.put(window, fresh);
          }
        } catch (RuntimeException e) {
          onError.accept(e);
          synchronized (accounting) {
            accounting.remove(window);
          }
        }
      });
    }
    return k.dto;
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
