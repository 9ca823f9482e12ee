package dev.cipolicy.postgres;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Wakes collectors that wait for work as soon as jobs of their tag become queued, through PostgreSQL's
 * {@code LISTEN}/{@code NOTIFY}, with polling as the fallback.
 *
 * <p>The trigger that lists a job in the queued-jobs table (when it is enqueued,
 * requeued after a lost lease or a transient failure, or set to {@code QUEUED} by hand) also sends a
 * notification on channel {@value #CHANNEL}, delivered when its transaction commits. One background thread
 * per instance holds one connection of the given {@link DataSource} (size the pool for it) that listens, and
 * counts notifications per tag of this store's tables. A collector reads the count before it claims, and when
 * the claim comes back empty waits for the count to move, at most its poll interval:
 *
 * <pre>{@code
 * long seen = wakeups.generation("x86");
 * ClaimResult claimed = queue.claim("x86-runner-3", 16);
 * if (claimed.claims().isEmpty()) {
 *   wakeups.awaitQueued("x86", seen, Duration.ofSeconds(5));   // woken at once, or polls after 5 s
 * }
 * }</pre>
 *
 * <p>Reading the count before the claim closes the gap between "the claim found nothing" and "the collector
 * starts waiting": a job queued in between has already moved the count, so the wait returns at once. Nothing
 * is lost when the listening connection is: while it is down every wait times out (polling), and when it is
 * back every tag's count moves once, since jobs may have been queued unheard. A notification is only a hint;
 * the claim decides. This class is a port adapter that owns a thread and a connection; the queue engine does
 * not need it.
 */
public final class PostgresQueueWakeups implements AutoCloseable {

  /** The channel every store notifies on; the payload names the store's tables and the tag. */
  public static final String CHANNEL = "cipolicy_queue";

  private static final int RECEIVE_MILLIS = 250;

  private final DataSource dataSource;
  private final String storeKey;
  private final Duration retryDelay;
  private final Object lock = new Object();
  /** Notifications heard per tag; guarded by {@link #lock}. */
  private final Map<String, Long> heard = new HashMap<>();
  /** Times every tag's count moved at once (the listener (re)connected or stopped); guarded by {@link #lock}. */
  private long epochs;
  private final Thread thread;
  private volatile boolean listening;
  private volatile boolean closed;
  private volatile @Nullable String lastError;
  private volatile int backendPid;

  private PostgresQueueWakeups(DataSource dataSource, PostgresQueueOptions options, Duration retryDelay) {
    this.dataSource = dataSource;
    this.storeKey = options.schema() + "." + options.tablePrefix() + " ";
    this.retryDelay = retryDelay;
    this.thread = new Thread(this::listen, "cipolicy-queue-wakeups-" + options.schema() + "." + options.tablePrefix());
    this.thread.setDaemon(true);
  }

  /**
   * Starts listening for the queue tables of the given schema and prefix, retrying a lost connection every
   * second.
   *
   * @param dataSource where the listening connection comes from; it is held until {@link #close()}
   * @param options the store's schema and table prefix (as given to {@link PostgresQueueStore#create})
   * @return the running listener; close it when the process stops collecting
   * @throws InvalidQueueInputException when an argument is missing
   */
  public static PostgresQueueWakeups start(DataSource dataSource, PostgresQueueOptions options) {
    return start(dataSource, options, Duration.ofSeconds(1));
  }

  /**
   * Starts listening, with a chosen delay between attempts to get the listening connection back.
   *
   * @param dataSource where the listening connection comes from; it is held until {@link #close()}
   * @param options the store's schema and table prefix
   * @param retryDelay the pause after a lost or refused connection, from 1 ms to 1 hour
   * @return the running listener
   * @throws InvalidQueueInputException when an argument is missing or the delay is out of range
   */
  public static PostgresQueueWakeups start(DataSource dataSource, PostgresQueueOptions options,
      Duration retryDelay) {
    if (dataSource == null || options == null || retryDelay == null) {
      throw new InvalidQueueInputException("queue wake-ups need a DataSource, the store's options and a retry"
          + " delay; got " + (dataSource == null ? "no DataSource" : options == null ? "no options" : "no delay"));
    }
    if (retryDelay.compareTo(Duration.ofMillis(1)) < 0 || retryDelay.compareTo(Duration.ofHours(1)) > 0) {
      throw new InvalidQueueInputException("the wake-up retry delay must be between 1 ms and 1 hour; got "
          + retryDelay);
    }
    PostgresQueueWakeups wakeups = new PostgresQueueWakeups(dataSource, options, retryDelay);
    wakeups.thread.start();
    return wakeups;
  }

  /**
   * How often jobs of the tag were heard to become queued (plus every reconnection); read it before a claim
   * and pass it to {@link #awaitQueued}.
   *
   * @param tag the collector tag
   * @return a count that only grows
   * @throws InvalidQueueInputException when the tag is missing or blank
   */
  public long generation(String tag) {
    checkTag(tag);
    synchronized (lock) {
      return epochs + heard.getOrDefault(tag, 0L);
    }
  }

  /**
   * Waits until jobs of the tag are heard to become queued after {@code seen} was read, the listener
   * reconnects or stops, or {@code maxWait} passes (the polling fallback).
   *
   * @param tag the collector tag
   * @param seen what {@link #generation} returned before the claim that came back empty
   * @param maxWait the longest wait: the collector's poll interval (zero returns at once)
   * @return true when woken (claim now), false when the wait timed out (claim anyway: that is the poll)
   * @throws InterruptedException when the waiting thread is interrupted
   * @throws InvalidQueueInputException when the tag is missing or blank or the wait is negative
   */
  public boolean awaitQueued(String tag, long seen, Duration maxWait) throws InterruptedException {
    checkTag(tag);
    if (maxWait == null || maxWait.isNegative()) {
      throw new InvalidQueueInputException("the longest wait for queued jobs must be zero or more; got " + maxWait);
    }
    long deadline = System.nanoTime() + Math.min(maxWait.toNanos(), Duration.ofDays(1).toNanos());
    synchronized (lock) {
      while (epochs + heard.getOrDefault(tag, 0L) == seen) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        lock.wait(left / 1_000_000, (int) (left % 1_000_000));
      }
      return true;
    }
  }

  /**
   * Whether the listening connection is up; while it is not, waits time out as polls.
   *
   * @return true when listening
   */
  public boolean listening() {
    return listening;
  }

  /**
   * Why the listening connection was last lost or refused, until it is back.
   *
   * @return the driver's message, or empty
   */
  public Optional<String> lastError() {
    return Optional.ofNullable(lastError);
  }

  /** The server process id of the listening session (0 before the first connection), for tests. */
  int backendPid() {
    return backendPid;
  }

  /** Stops listening, returns the connection to its pool and wakes every waiter. Idempotent. */
  @Override
  public void close() {
    closed = true;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    wakeAll();
  }

  private void listen() {
    while (!closed) {
      try (Connection c = dataSource.getConnection()) {
        PGConnection pg = c.unwrap(PGConnection.class);
        c.setAutoCommit(true);
        try (Statement st = c.createStatement()) {
          st.execute("LISTEN " + CHANNEL);
        }
        try {
          backendPid = pg.getBackendPID();
          listening = true;
          lastError = null;
          // Jobs may have been queued while nobody listened: let every waiter claim once.
          wakeAll();
          while (!closed) {
            PGNotification[] got = pg.getNotifications(RECEIVE_MILLIS);
            if (got != null) {
              heard(got);
            }
          }
        } finally {
          listening = false;
          try (Statement st = c.createStatement()) {
            // The connection goes back to a pool: leave its session without a subscription.
            st.execute("UNLISTEN *");
          } catch (SQLException ignored) {
            // A broken connection has no session left to clean; the pool discards it.
          }
        }
      } catch (SQLException | RuntimeException e) {
        listening = false;
        lastError = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
        wakeAll();
        pause();
      }
    }
  }

  private void heard(PGNotification[] notifications) {
    boolean any = false;
    synchronized (lock) {
      for (PGNotification n : notifications) {
        String payload = n.getParameter();
        if (CHANNEL.equals(n.getName()) && payload != null && payload.startsWith(storeKey)) {
          heard.merge(payload.substring(storeKey.length()), 1L, Long::sum);
          any = true;
        }
      }
      if (any) {
        lock.notifyAll();
      }
    }
  }

  private void wakeAll() {
    synchronized (lock) {
      epochs++;
      lock.notifyAll();
    }
  }

  private void pause() {
    long until = System.nanoTime() + retryDelay.toNanos();
    while (!closed && System.nanoTime() < until) {
      try {
        Thread.sleep(Math.max(1, Math.min(RECEIVE_MILLIS, (until - System.nanoTime()) / 1_000_000)));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static void checkTag(String tag) {
    if (tag == null || tag.isBlank()) {
      throw new InvalidQueueInputException("a collector tag is required to wait for queued jobs; got "
          + (tag == null ? "none" : "'" + tag + "'"));
    }
  }
}
