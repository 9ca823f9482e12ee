package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.model.LogWindow;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A job's bounded log: everything written to it is counted, but at most {@link #limit()} bytes are kept, the
 * first half and the last half of the output (the start says what ran, the end how it ended). When more was
 * written, {@link #text()} joins the two halves with a marker line naming how many bytes were left out:
 * {@code [... 12345 bytes truncated ...]}. Text is kept as UTF-8; a cut through a character reads as U+FFFD.
 * The rule is the store's ({@link LogWindow}), with half the limit each for head and tail. A collector's job
 * log also sends what is written to the store's log of the lease ({@code LogShipper}). Safe for use by several
 * threads (a process's output and error streams write to the same log).
 */
public final class JobLog {

  /** The default limit: 64 KiB. */
  public static final int DEFAULT_LIMIT = 64 * 1024;
  /** The smallest limit: 64 bytes. */
  public static final int MIN_LIMIT = 64;
  /** The largest limit: 16 MiB. */
  public static final int MAX_LIMIT = 16 * 1024 * 1024;

  private final int limit;
  private final byte[] head;
  private final byte[] tail;
  private int headSize;
  /** Bytes ever written to the tail ring (its write position is {@code tailWritten % tail.length}). */
  private long tailWritten;
  private long total;
  /** Where every write goes too, or null. */
  private final @Nullable LogShipper shipper;

  /**
   * A log that keeps at most {@code limit} bytes.
   *
   * @param limit from {@value #MIN_LIMIT} to {@value #MAX_LIMIT} bytes
   * @throws dev.cipolicy.queue.model.InvalidQueueInputException when the limit is out of range
   */
  public JobLog(int limit) {
    this(limit, null);
  }

  /** A log that also sends every write to a shipper. */
  JobLog(int limit, @Nullable LogShipper shipper) {
    this(Settings.between(limit, MIN_LIMIT, MAX_LIMIT, "job log limit") / 2, limit - limit / 2, shipper);
  }

  /** A log of the given head and tail sizes (a shipper's buffer), unchecked. */
  JobLog(int headLimit, int tailLimit, @Nullable LogShipper shipper) {
    this.limit = headLimit + tailLimit;
    this.head = new byte[headLimit];
    this.tail = new byte[tailLimit];
    this.shipper = shipper;
  }

  /**
   * A log of the {@linkplain #DEFAULT_LIMIT default limit}.
   *
   * @return the log
   */
  public static JobLog withDefaultLimit() {
    return new JobLog(DEFAULT_LIMIT);
  }

  /**
   * Writes bytes.
   *
   * @param bytes the buffer
   * @param offset where the bytes start
   * @param length how many
   */
  public synchronized void write(byte[] bytes, int offset, int length) {
    if (offset < 0 || length < 0 || offset + length > bytes.length) {
      throw new IndexOutOfBoundsException("offset " + offset + " and length " + length + " outside "
          + bytes.length + " bytes");
    }
    total += length;
    LogWindow.Split split = LogWindow.split(headSize, (int) Math.min(tailWritten, tail.length), head.length,
        tail.length, 0, length);
    System.arraycopy(bytes, offset, head, headSize, split.toHead());
    headSize += split.toHead();
    // Of the rest, only the last split.toTail() bytes survive in the ring.
    int i = offset + length - split.toTail();
    tailWritten += length - split.toHead() - split.toTail();
    int end = offset + length;
    while (i < end) {
      int pos = (int) (tailWritten % tail.length);
      int n = Math.min(tail.length - pos, end - i);
      System.arraycopy(bytes, i, tail, pos, n);
      tailWritten += n;
      i += n;
    }
    if (shipper != null) {
      shipper.write(bytes, offset, length);
    }
  }

  /**
   * Writes text as UTF-8.
   *
   * @param text the text
   */
  public void append(CharSequence text) {
    byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
    write(bytes, 0, bytes.length);
  }

  /**
   * Writes a line of text and a line feed.
   *
   * @param line the line
   */
  public void line(CharSequence line) {
    append(line + "\n");
  }

  /**
   * An output stream into this log (closing it does nothing).
   *
   * @return the stream
   */
  public OutputStream outputStream() {
    return new OutputStream() {
      @Override
      public void write(int b) {
        JobLog.this.write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        JobLog.this.write(b, off, len);
      }
    };
  }

  /**
   * The most bytes kept.
   *
   * @return the limit
   */
  public int limit() {
    return limit;
  }

  /**
   * How many bytes were written, kept or not.
   *
   * @return the total
   */
  public synchronized long totalBytes() {
    return total;
  }

  /**
   * Whether bytes were left out.
   *
   * @return true when more than {@link #limit()} bytes were written
   */
  public synchronized boolean truncated() {
    return total > limit;
  }

  /**
   * The kept text: all of it, or the first and last halves around a truncation marker line.
   *
   * @return the text
   */
  public synchronized String text() {
    byte[] h = headBytes();
    byte[] t = tailBytes();
    if (dropped() == 0) {
      byte[] all = java.util.Arrays.copyOf(h, h.length + t.length);
      System.arraycopy(t, 0, all, h.length, t.length);
      return LogWindow.decode(all);
    }
    return LogWindow.render(LogWindow.decode(h), dropped(), LogWindow.decode(t));
  }

  /** The kept head's bytes. */
  synchronized byte[] headBytes() {
    return java.util.Arrays.copyOf(head, headSize);
  }

  /** The kept tail's bytes, oldest first. */
  synchronized byte[] tailBytes() {
    int kept = (int) Math.min(tailWritten, tail.length);
    byte[] end = new byte[kept];
    if (kept == 0) {
      return end;
    }
    int from = (int) ((tailWritten - kept) % tail.length);
    int first = Math.min(kept, tail.length - from);
    System.arraycopy(tail, from, end, 0, first);
    System.arraycopy(tail, 0, end, first, kept - first);
    return end;
  }

  /** The bytes written but not kept. */
  synchronized long dropped() {
    return total - headSize - Math.min(tailWritten, tail.length);
  }

  @Override
  public String toString() {
    return "JobLog[" + totalBytes() + " bytes written, limit " + limit + "]";
  }
}
