package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import org.immutables.value.Value;

/**
 * What a store keeps of one attempt's log, read from an offset: the kept head and tail bytes at or after
 * {@link #offset()}, every byte written ({@link #totalBytes()}), those the store did not keep
 * ({@link #droppedBytes()}), those between the offset and the returned bytes that were dropped
 * ({@link #skippedBytes()}: a follower missed them), and whether the attempt can still append. A follower
 * reads again from {@link #totalBytes()}. Log bytes are kept exactly (any byte, NUL included);
 * {@link #text()} decodes them as UTF-8.
 */
@Value.Immutable
@ValueStyle
public abstract class JobLogView {

  /**
   * The job.
   *
   * @return its id
   */
  public abstract JobId jobId();

  /**
   * The attempt (lease) whose output this is.
   *
   * @return 1 or more
   */
  public abstract int attempt();

  /**
   * The offset the view starts at: the one asked for, at most {@link #totalBytes()}.
   *
   * @return the offset
   */
  public abstract long offset();

  /**
   * Every byte the attempt wrote, kept or not.
   *
   * @return the count
   */
  public abstract long totalBytes();

  /**
   * Bytes written but not kept by the store (the middle of a long log).
   *
   * @return the count
   */
  public abstract long droppedBytes();

  /**
   * Bytes after {@link #offset()} that were dropped between {@link #head()} and {@link #tail()}; when
   * positive, a follower missed them.
   *
   * @return the count
   */
  public abstract long skippedBytes();

  /**
   * The kept head's bytes at or after {@link #offset()}.
   *
   * @return the bytes
   */
  public abstract byte[] head();

  /**
   * The kept tail's bytes at or after {@link #offset()}.
   *
   * @return the bytes
   */
  public abstract byte[] tail();

  /**
   * Whether the attempt's lease has ended (or expired), so nothing more is appended.
   *
   * @return true when finished
   */
  public abstract boolean finished();

  /**
   * The returned bytes as text: head, a {@code [... N bytes truncated ...]} line when bytes were skipped, tail.
   *
   * @return the text
   */
  public String text() {
    return LogWindow.render(LogWindow.decode(head()), skippedBytes(), LogWindow.decode(tail()));
  }

  /**
   * Checks the counts.
   *
   * @throws InvalidQueueInputException when they contradict each other
   */
  @Value.Check
  protected void check() {
    Checks.atLeast(attempt(), 1, "log attempt");
    long kept = (long) head().length + tail().length;
    if (offset() < 0 || offset() > totalBytes() || droppedBytes() < 0 || skippedBytes() < 0
        || skippedBytes() > droppedBytes() || offset() + kept + skippedBytes() != totalBytes()) {
      throw new InvalidQueueInputException("log of job " + jobId().value() + " attempt " + attempt() + " from "
          + offset() + " returns " + kept + " bytes and skips " + skippedBytes() + " of " + totalBytes()
          + " written (" + droppedBytes() + " dropped); expected from + returned + skipped = written");
    }
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link JobLogView}. */
  public static final class Builder extends ImmutableJobLogView.Builder {
    Builder() {}
  }
}
