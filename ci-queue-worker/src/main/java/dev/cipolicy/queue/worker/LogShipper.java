package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.LogWindow;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStoreException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Sends a running job's output to the store's log of its lease ({@link JobQueue#appendLog}), bounded and
 * throttled: what was written since the last append waits in a buffer that keeps, by the store's own rule
 * ({@link LogWindow}), only what the store can still keep — the rest of the store's head and its whole tail —
 * and counts the middle it leaves out, which it sends as skipped bytes. It appends when a write comes at least
 * the flush interval after the last append, at each heartbeat round, and when the job ends; so a job appends at
 * most once per interval plus once per heartbeat, each append at most head plus tail bytes, whatever it prints.
 * A refused append (the lease is no longer this attempt's) stops the shipping; a failed one (the store is
 * unreachable) keeps the buffer for the next.
 */
final class LogShipper {

  private final JobQueue queue;
  private final InstantSource clock;
  private final Duration interval;
  private final Consumer<String> storeError;
  private @Nullable Supplier<Lease> lease;
  private JobLog pending;
  private long shipped;
  private Instant last;
  private boolean stopped;

  LogShipper(JobQueue queue, InstantSource clock, Duration interval, Consumer<String> storeError) {
    this.queue = queue;
    this.clock = clock;
    this.interval = interval;
    this.storeError = storeError;
    this.pending = buffer();
    this.last = clock.instant();
  }

  /** Names the lease to append with (the job's current one, renewals included). */
  synchronized void attach(Supplier<Lease> current) {
    this.lease = current;
  }

  private JobLog buffer() {
    int headRoom = (int) Math.max(0, LogWindow.STORE_HEAD_BYTES - shipped);
    return new JobLog(headRoom, LogWindow.STORE_TAIL_BYTES, null);
  }

  synchronized void write(byte[] bytes, int offset, int length) {
    if (stopped) {
      return;
    }
    pending.write(bytes, offset, length);
    if (!clock.instant().isBefore(last.plus(interval))) {
      flush();
    }
  }

  /** Appends what waits, if anything. */
  synchronized void flush() {
    Supplier<Lease> current = lease;
    if (stopped || current == null || pending.totalBytes() == 0) {
      return;
    }
    last = clock.instant();
    List<LogChunk> chunks = new ArrayList<>(2);
    byte[] head = pending.headBytes();
    if (head.length > 0) {
      chunks.add(LogChunk.of(head));
    }
    long dropped = pending.dropped();
    chunks.add(dropped > 0 ? LogChunk.afterSkipping(dropped, pending.tailBytes()) : LogChunk.of(pending.tailBytes()));
    LeaseStatus status;
    try {
      status = queue.appendLog(current.get(), chunks);
    } catch (QueueStoreException e) {
      storeError.accept("log");
      return;
    } catch (UnsupportedOperationException e) {
      stopped = true;
      return;
    }
    if (status != LeaseStatus.OK) {
      stopped = true;
      return;
    }
    shipped += pending.totalBytes();
    pending = buffer();
  }
}
