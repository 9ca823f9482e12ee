package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The result of a job as a collector reports it with its completion: an opaque payload of at most
 * {@value #MAX_BYTES} bytes (1 MiB), kept by the store exactly as given. A payload made from text holds the
 * text's UTF-8 bytes; the text must be storable ({@link QueueNames#text}'s rule on characters: no NUL, no
 * unpaired surrogate), so that it reads back equal. Immutable: the bytes are copied in and out.
 */
public final class ResultPayload {

  /** The most bytes of a payload: 1 MiB. */
  public static final int MAX_BYTES = 1 << 20;

  private final byte[] bytes;

  private ResultPayload(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * A payload of bytes.
   *
   * @param bytes the bytes, at most {@value #MAX_BYTES}; copied
   * @return the payload
   * @throws InvalidQueueInputException when the bytes are missing or too many
   */
  public static ResultPayload ofBytes(byte @Nullable [] bytes) {
    if (bytes == null) {
      throw new InvalidQueueInputException("the result payload is missing; expected bytes (possibly none)");
    }
    return new ResultPayload(sized(bytes.clone()));
  }

  /**
   * A payload of text, kept as its UTF-8 bytes.
   *
   * @param text the text: no NUL, no unpaired surrogate, at most {@value #MAX_BYTES} bytes in UTF-8
   * @return the payload
   * @throws InvalidQueueInputException when the text is missing, holds a NUL or an unpaired surrogate, or is
   *     too long
   */
  public static ResultPayload ofText(@Nullable String text) {
    if (text == null) {
      throw new InvalidQueueInputException("the result text is missing; expected a text (possibly empty)");
    }
    if (text.length() > MAX_BYTES) {
      throw tooLarge(text.length() + " characters");
    }
    Checks.storable(text, "the result text");
    return new ResultPayload(sized(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static byte[] sized(byte[] bytes) {
    if (bytes.length > MAX_BYTES) {
      throw tooLarge(bytes.length + " bytes");
    }
    return bytes;
  }

  private static InvalidQueueInputException tooLarge(String size) {
    return new InvalidQueueInputException("the result payload has " + size + "; expected at most " + MAX_BYTES
        + " bytes (1 MiB)");
  }

  /**
   * Checks the results of a batch completion: the list and its items are present and there is one per lease.
   *
   * @param results the results
   * @param leases how many leases the batch completes
   * @return an immutable copy
   * @throws InvalidQueueInputException when the list or an item is missing, or the sizes differ
   */
  public static List<ResultPayload> checkedBatch(@Nullable List<ResultPayload> results, int leases) {
    if (results == null) {
      throw new InvalidQueueInputException("the results to complete with are missing; expected one per lease");
    }
    if (results.size() != leases) {
      throw new InvalidQueueInputException("the batch completes " + leases + " leases with " + results.size()
          + " results; expected one result per lease");
    }
    List<ResultPayload> copy = new ArrayList<>(results.size());
    for (int i = 0; i < results.size(); i++) {
      ResultPayload result = results.get(i);
      if (result == null) {
        throw new InvalidQueueInputException("result " + i + " of " + results.size() + " to complete with is"
            + " missing");
      }
      copy.add(result);
    }
    return List.copyOf(copy);
  }

  /**
   * The bytes.
   *
   * @return a copy of the bytes
   */
  public byte[] bytes() {
    return bytes.clone();
  }

  /**
   * The bytes read as UTF-8 text (malformed bytes read as U+FFFD).
   *
   * @return the text
   */
  public String text() {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * The number of bytes.
   *
   * @return the size
   */
  public int size() {
    return bytes.length;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof ResultPayload other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "ResultPayload[" + bytes.length + " bytes]";
  }
}
