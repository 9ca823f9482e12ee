package dev.cipolicy.queue.model;

import java.util.Arrays;

/**
 * One piece of a job's output sent to the store: the bytes the writer left out just before it
 * ({@code skippedBytes}, counted but never sent, because the store would not keep them) and the bytes that
 * follow them. A collector that sends everything sends chunks with nothing skipped; one that buffered more
 * than the store keeps skips the middle it would drop anyway ({@link LogWindow#append}).
 */
public final class LogChunk {

  private final long skippedBytes;
  private final byte[] bytes;

  private LogChunk(long skippedBytes, byte[] bytes) {
    if (skippedBytes < 0) {
      throw new InvalidQueueInputException("log chunk skips " + skippedBytes + " bytes; expected 0 or more");
    }
    if (bytes.length > LogWindow.MAX_APPEND_BYTES) {
      throw new InvalidQueueInputException("log chunk holds " + bytes.length + " bytes; expected at most "
          + LogWindow.MAX_APPEND_BYTES);
    }
    this.skippedBytes = skippedBytes;
    this.bytes = bytes;
  }

  /**
   * A chunk of bytes that follows the previous one directly.
   *
   * @param bytes the bytes, copied; at most {@link LogWindow#MAX_APPEND_BYTES}
   * @return the chunk
   */
  public static LogChunk of(byte[] bytes) {
    return new LogChunk(0, Checks.present(bytes, "log chunk bytes").clone());
  }

  /**
   * A chunk that follows {@code skippedBytes} bytes the writer left out.
   *
   * @param skippedBytes bytes written but not sent, 0 or more
   * @param bytes the bytes after them, copied
   * @return the chunk
   */
  public static LogChunk afterSkipping(long skippedBytes, byte[] bytes) {
    return new LogChunk(skippedBytes, Checks.present(bytes, "log chunk bytes").clone());
  }

  /**
   * A chunk of text, as UTF-8.
   *
   * @param text the text
   * @return the chunk
   */
  public static LogChunk ofText(String text) {
    return new LogChunk(0, Checks.present(text, "log chunk text").getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /**
   * The bytes left out before this chunk.
   *
   * @return 0 or more
   */
  public long skippedBytes() {
    return skippedBytes;
  }

  /**
   * The bytes, a copy.
   *
   * @return the bytes
   */
  public byte[] bytes() {
    return bytes.clone();
  }

  /**
   * How many bytes the chunk holds.
   *
   * @return the length of {@link #bytes()}
   */
  public int length() {
    return bytes.length;
  }

  /** The bytes without a copy, for the window rule. */
  byte[] bytesUnsafe() {
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LogChunk c && c.skippedBytes == skippedBytes && Arrays.equals(c.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(skippedBytes) * 31 + Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "LogChunk[" + skippedBytes + " skipped, " + bytes.length + " bytes]";
  }
}
