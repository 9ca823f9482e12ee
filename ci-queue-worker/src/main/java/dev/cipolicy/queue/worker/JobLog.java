package dev.cipolicy.queue.worker;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A job's bounded log: everything written to it is counted, but at most {@link #limit()} bytes are kept, the
 * first half and the last half of the output (the start says what ran, the end how it ended). When more was
 * written, {@link #text()} joins the two halves with a marker line naming how many bytes were left out:
 * {@code [... 12345 bytes truncated ...]}. Text is kept as UTF-8; a cut through a character reads as U+FFFD.
 * Safe for use by several threads (a process's output and error streams write to the same log).
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

  /**
   * A log that keeps at most {@code limit} bytes.
   *
   * @param limit from {@value #MIN_LIMIT} to {@value #MAX_LIMIT} bytes
   * @throws dev.cipolicy.queue.model.InvalidQueueInputException when the limit is out of range
   */
  public JobLog(int limit) {
    this.limit = Settings.between(limit, MIN_LIMIT, MAX_LIMIT, "job log limit");
    this.head = new byte[limit / 2];
    this.tail = new byte[limit - limit / 2];
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
    int i = offset;
    int end = offset + length;
    int toHead = Math.min(head.length - headSize, length);
    if (toHead > 0) {
      System.arraycopy(bytes, i, head, headSize, toHead);
      headSize += toHead;
      i += toHead;
    }
    if (i < end) {
      // Only the last tail.length bytes of what is left can survive in the ring.
      int skip = Math.max(0, end - i - tail.length);
      tailWritten += skip;
      i += skip;
      while (i < end) {
        int pos = (int) (tailWritten % tail.length);
        int n = Math.min(tail.length - pos, end - i);
        System.arraycopy(bytes, i, tail, pos, n);
        tailWritten += n;
        i += n;
      }
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
    String start = new String(head, 0, headSize, StandardCharsets.UTF_8);
    if (tailWritten == 0) {
      return start;
    }
    int kept = (int) Math.min(tailWritten, tail.length);
    byte[] end = new byte[kept];
    int from = (int) ((tailWritten - kept) % tail.length);
    int first = Math.min(kept, tail.length - from);
    System.arraycopy(tail, from, end, 0, first);
    System.arraycopy(tail, 0, end, first, kept - first);
    long dropped = total - headSize - kept;
    if (dropped == 0) {
      byte[] all = new byte[headSize + kept];
      System.arraycopy(head, 0, all, 0, headSize);
      System.arraycopy(end, 0, all, headSize, kept);
      return new String(all, StandardCharsets.UTF_8);
    }
    String rest = new String(end, StandardCharsets.UTF_8);
    return start + (start.endsWith("\n") ? "" : "\n") + "[... " + dropped + " bytes truncated ...]\n" + rest;
  }

  @Override
  public String toString() {
    return "JobLog[" + totalBytes() + " bytes written, limit " + limit + "]";
  }
}
