package dev.cipolicy.queue.model;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The rule of a bounded job log, written once: of everything written to a log, the first {@code headLimit}
 * bytes (the head: what ran) and the last {@code tailLimit} bytes after them (the tail: how it ended) are
 * kept, and every byte is counted. An instance is one log's kept state (immutable; {@link #append} returns
 * the next); {@link #split} is the arithmetic of one append, for stores that apply it in their own storage
 * (the PostgreSQL store keeps head and tail in two columns and writes what {@link #split} says).
 *
 * <p>A chunk may say that bytes were skipped before it ({@link LogChunk#skippedBytes()}): they are counted
 * and, as they are unknown, end the tail kept so far (the tail restarts after them). Skipping is allowed only
 * once the head is full, so the head is always the first bytes written, and a writer that skips only bytes it
 * buffered beyond a full tail gives the store exactly the window it would have kept from every byte.
 *
 * <p>Reads follow a log by offset ({@link #view}): the kept bytes at or after an offset, and how many bytes
 * between the offset and them were dropped.
 */
public final class LogWindow {

  /** The head a store keeps of each attempt's log: 64 KiB. */
  public static final int STORE_HEAD_BYTES = 64 * 1024;
  /** The tail a store keeps of each attempt's log: 64 KiB. */
  public static final int STORE_TAIL_BYTES = 64 * 1024;
  /** The most bytes one append sends, over all its chunks: 1 MiB. */
  public static final int MAX_APPEND_BYTES = 1024 * 1024;
  /** The most chunks of one append. */
  public static final int MAX_APPEND_CHUNKS = 64;

  private final int headLimit;
  private final int tailLimit;
  private final byte[] head;
  private final byte[] tail;
  private final long total;

  private LogWindow(int headLimit, int tailLimit, byte[] head, byte[] tail, long total) {
    this.headLimit = headLimit;
    this.tailLimit = tailLimit;
    this.head = head;
    this.tail = tail;
    this.total = total;
  }

  /**
   * An empty log.
   *
   * @param headLimit the head's bytes, 0 or more
   * @param tailLimit the tail's bytes, 0 or more
   * @return the window
   */
  public static LogWindow empty(int headLimit, int tailLimit) {
    if (headLimit < 0 || tailLimit < 0) {
      throw new InvalidQueueInputException("log window of head " + headLimit + " and tail " + tailLimit
          + " bytes; expected 0 or more each");
    }
    return new LogWindow(headLimit, tailLimit, new byte[0], new byte[0], 0);
  }

  /**
   * An empty log of a store's sizes ({@link #STORE_HEAD_BYTES}, {@link #STORE_TAIL_BYTES}).
   *
   * @return the window
   */
  public static LogWindow emptyStore() {
    return empty(STORE_HEAD_BYTES, STORE_TAIL_BYTES);
  }

  /**
   * A store's log as read back from its storage.
   *
   * @param head the head's bytes
   * @param tail the tail's bytes
   * @param total every byte written
   * @return the window
   * @throws InvalidQueueInputException when no sequence of appends leaves these parts
   */
  public static LogWindow storeOf(byte[] head, byte[] tail, long total) {
    Checks.present(head, "log head");
    Checks.present(tail, "log tail");
    boolean ok = head.length <= STORE_HEAD_BYTES && tail.length <= STORE_TAIL_BYTES
        && head.length + (long) tail.length <= total
        && (head.length == STORE_HEAD_BYTES || (tail.length == 0 && total == head.length));
    if (!ok) {
      throw new InvalidQueueInputException("log of head " + head.length + " and tail " + tail.length + " bytes with "
          + total + " bytes written is not a window of head " + STORE_HEAD_BYTES + " and tail " + STORE_TAIL_BYTES);
    }
    return new LogWindow(STORE_HEAD_BYTES, STORE_TAIL_BYTES, head.clone(), tail.clone(), total);
  }

  /**
   * What one chunk does to a window: how many of its first bytes go to the head, how many of its last bytes
   * to the tail, and how many of the last bytes of the old tail stay before them.
   *
   * @param toHead the chunk's first bytes appended to the head
   * @param toTail the chunk's last bytes that end the tail
   * @param keepOldTail the last bytes of the old tail kept before them
   */
  public record Split(int toHead, int toTail, int keepOldTail) {}

  /**
   * The arithmetic of appending one chunk.
   *
   * @param headLength the head's bytes now
   * @param tailLength the tail's bytes now
   * @param headLimit the head's limit
   * @param tailLimit the tail's limit
   * @param skipped bytes skipped before the chunk
   * @param length the chunk's bytes
   * @return the split
   * @throws InvalidQueueInputException when bytes are skipped before the head is full
   */
  public static Split split(int headLength, int tailLength, int headLimit, int tailLimit, long skipped,
      int length) {
    if (skipped > 0 && headLength < headLimit) {
      throw new InvalidQueueInputException("log chunk skips " + skipped + " bytes while the head holds "
          + headLength + " of " + headLimit + "; expected bytes skipped only after the head is full");
    }
    int toHead = Math.min(headLimit - headLength, length);
    int toTail = Math.min(length - toHead, tailLimit);
    int oldTail = skipped > 0 ? 0 : tailLength;
    return new Split(toHead, toTail, Math.min(oldTail, tailLimit - toTail));
  }

  /**
   * What one append does to a store's log kept in two columns, from their lengths alone: the bytes to append to
   * the head, how many of the old tail's last bytes stay, the bytes to append after them, and how many bytes
   * the append adds to the count.
   *
   */
  public static final class Plan {
    private final byte[] headAppend;
    private final int keepOldTail;
    private final byte[] tailAppend;
    private final long addedBytes;

    private Plan(byte[] headAppend, int keepOldTail, byte[] tailAppend, long addedBytes) {
      this.headAppend = headAppend;
      this.keepOldTail = keepOldTail;
      this.tailAppend = tailAppend;
      this.addedBytes = addedBytes;
    }

    /**
     * The bytes appended to the head.
     *
     * @return a copy
     */
    public byte[] headAppend() {
      return headAppend.clone();
    }

    /**
     * How many of the old tail's last bytes stay.
     *
     * @return the count
     */
    public int keepOldTail() {
      return keepOldTail;
    }

    /**
     * The bytes appended after them.
     *
     * @return a copy
     */
    public byte[] tailAppend() {
      return tailAppend.clone();
    }

    /**
     * The bytes written, skipped ones included.
     *
     * @return the count
     */
    public long addedBytes() {
      return addedBytes;
    }
  }

  /**
   * The plan of an append for a store's log whose head and tail hold {@code headLength} and {@code tailLength}
   * bytes: {@link #append(List)} applied to lengths, so that a store need not read the bytes it keeps.
   *
   * @param headLength the head's bytes now
   * @param tailLength the tail's bytes now
   * @param chunks the chunks (see {@link #checkAppend})
   * @return the plan
   * @throws InvalidQueueInputException when a chunk skips bytes before the head is full
   */
  public static Plan plan(int headLength, int tailLength, List<LogChunk> chunks) {
    java.io.ByteArrayOutputStream headAppend = new java.io.ByteArrayOutputStream();
    int headLen = headLength;
    int keepOld = tailLength;
    byte[] suffix = new byte[0];
    long added = 0;
    for (LogChunk c : checkAppend(chunks)) {
      byte[] b = c.bytesUnsafe();
      Split s = split(headLen, keepOld + suffix.length, STORE_HEAD_BYTES, STORE_TAIL_BYTES, c.skippedBytes(),
          b.length);
      headAppend.write(b, 0, s.toHead());
      headLen += s.toHead();
      if (c.skippedBytes() > 0) {
        keepOld = 0;
        suffix = new byte[0];
      }
      int k = s.keepOldTail();
      if (k >= suffix.length) {
        keepOld = k - suffix.length;
      } else {
        keepOld = 0;
        suffix = Arrays.copyOfRange(suffix, suffix.length - k, suffix.length);
      }
      byte[] next = Arrays.copyOf(suffix, suffix.length + s.toTail());
      System.arraycopy(b, b.length - s.toTail(), next, suffix.length, s.toTail());
      suffix = next;
      added += c.skippedBytes() + b.length;
    }
    return new Plan(headAppend.toByteArray(), keepOld, suffix, added);
  }

  /**
   * Checks an append's chunks before anything is written: present, at most {@link #MAX_APPEND_CHUNKS}, at
   * most {@link #MAX_APPEND_BYTES} together.
   *
   * @param chunks the chunks
   * @return the chunks
   * @throws InvalidQueueInputException when they are missing or too many
   */
  public static List<LogChunk> checkAppend(List<LogChunk> chunks) {
    Checks.present(chunks, "log chunks");
    if (chunks.size() > MAX_APPEND_CHUNKS) {
      throw new InvalidQueueInputException("log append of " + chunks.size() + " chunks; expected at most "
          + MAX_APPEND_CHUNKS);
    }
    long bytes = 0;
    for (LogChunk c : chunks) {
      bytes += Checks.present(c, "log chunk").length();
    }
    if (bytes > MAX_APPEND_BYTES) {
      throw new InvalidQueueInputException("log append of " + bytes + " bytes; expected at most "
          + MAX_APPEND_BYTES);
    }
    return List.copyOf(chunks);
  }

  /**
   * The window after a chunk.
   *
   * @param chunk the chunk
   * @return the new window
   * @throws InvalidQueueInputException when it skips bytes before the head is full
   */
  public LogWindow append(LogChunk chunk) {
    byte[] bytes = chunk.bytesUnsafe();
    Split s = split(head.length, tail.length, headLimit, tailLimit, chunk.skippedBytes(), bytes.length);
    byte[] newHead = head;
    if (s.toHead() > 0) {
      newHead = Arrays.copyOf(head, head.length + s.toHead());
      System.arraycopy(bytes, 0, newHead, head.length, s.toHead());
    }
    byte[] newTail = new byte[s.keepOldTail() + s.toTail()];
    System.arraycopy(tail, tail.length - s.keepOldTail(), newTail, 0, s.keepOldTail());
    System.arraycopy(bytes, bytes.length - s.toTail(), newTail, s.keepOldTail(), s.toTail());
    return new LogWindow(headLimit, tailLimit, newHead, newTail, total + chunk.skippedBytes() + bytes.length);
  }

  /**
   * The window after the chunks of one append, in order.
   *
   * @param chunks the chunks (see {@link #checkAppend})
   * @return the new window
   */
  public LogWindow append(List<LogChunk> chunks) {
    LogWindow w = this;
    for (LogChunk c : checkAppend(chunks)) {
      w = w.append(c);
    }
    return w;
  }

  /**
   * What a reader following the log from {@code from} gets: the kept bytes at or after that offset.
   *
   * @param jobId the job
   * @param attempt the attempt
   * @param from the offset already read; past the end reads nothing new
   * @param finished whether nothing more can be appended
   * @return the view
   */
  public JobLogView view(JobId jobId, int attempt, long from, boolean finished) {
    checkRead(jobId, attempt, from);
    long start = Math.min(from, total);
    int headFrom = (int) Math.min(start, head.length);
    long tailStart = total - tail.length;
    int tailFrom = (int) Math.max(0, Math.min(tail.length, start - tailStart));
    byte[] h = Arrays.copyOfRange(head, headFrom, head.length);
    byte[] t = Arrays.copyOfRange(tail, tailFrom, tail.length);
    return JobLogView.builder().jobId(jobId).attempt(attempt).offset(start).totalBytes(total)
        .droppedBytes(dropped()).skippedBytes(total - start - h.length - t.length).head(h).tail(t)
        .finished(finished).build();
  }

  /**
   * Checks the arguments of a read before anything is read.
   *
   * @param id the job
   * @param attempt the attempt, 1 or more
   * @param from the offset, 0 or more
   * @throws InvalidQueueInputException when one is out of range
   */
  public static void checkRead(JobId id, int attempt, long from) {
    Checks.present(id, "job id");
    if (attempt < 1 || from < 0) {
      throw new InvalidQueueInputException("log of job " + id.value() + " attempt " + attempt + " from offset "
          + from + "; expected an attempt of 1 or more and an offset of 0 or more");
    }
  }

  /**
   * Whether an attempt of a job can append no more: its lease is not the job's live lease at {@code now}.
   *
   * @param job the job as the store holds it
   * @param attempt the attempt
   * @param now the store's instant
   * @return true when finished
   */
  public static boolean finished(Job job, int attempt, java.time.Instant now) {
    return job.state() != JobState.LEASED || job.attempt() != attempt
        || job.lease().map(l -> !l.isLiveAt(now)).orElse(true);
  }

  /**
   * The kept text with a marker line where bytes were dropped, as a log is shown: the head, then (when
   * {@code dropped} is positive) {@code [... N bytes truncated ...]} on a line of its own, then the tail.
   *
   * @param head the text before the gap
   * @param dropped bytes left out between them
   * @param tail the text after the gap
   * @return the text
   */
  public static String render(String head, long dropped, String tail) {
    if (dropped == 0) {
      return head + tail;
    }
    return head + (head.isEmpty() || head.endsWith("\n") ? "" : "\n") + "[... " + dropped
        + " bytes truncated ...]\n" + tail;
  }

  /**
   * Decodes bytes as UTF-8; a character cut by the window reads as U+FFFD.
   *
   * @param bytes the bytes
   * @return the text
   */
  public static String decode(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * The head's bytes.
   *
   * @return a copy
   */
  public byte[] head() {
    return head.clone();
  }

  /**
   * The tail's bytes.
   *
   * @return a copy
   */
  public byte[] tail() {
    return tail.clone();
  }

  /**
   * Every byte written, kept or not.
   *
   * @return the count
   */
  public long total() {
    return total;
  }

  /**
   * The bytes written but not kept.
   *
   * @return {@code total - head - tail}
   */
  public long dropped() {
    return total - head.length - tail.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LogWindow w && w.headLimit == headLimit && w.tailLimit == tailLimit && w.total == total
        && Arrays.equals(w.head, head) && Arrays.equals(w.tail, tail);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(total) * 31 + Arrays.hashCode(tail);
  }

  @Override
  public String toString() {
    return "LogWindow[" + head.length + " + " + tail.length + " of " + total + " bytes]";
  }
}
