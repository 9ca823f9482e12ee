package dev.cipolicy.queue.model;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Argument checks of the queue's values, shared by the queue's packages and its stores; each failure is an
 * {@link InvalidQueueInputException} naming what was checked.
 */
public final class Checks {
  private Checks() {}

  /** Returns the value, or fails when it is null. */
  public static <T> T present(@Nullable T value, String what) {
    if (value == null) {
      throw new InvalidQueueInputException(what + " is missing");
    }
    return value;
  }

  /**
   * Returns a token (a SHA, a tag, a name): non-empty, without white space or control characters, at most
   * 200 characters.
   */
  public static String token(@Nullable String value, String what) {
    if (value == null || value.isEmpty()) {
      throw new InvalidQueueInputException(what + " is missing; expected a non-empty name without white space");
    }
    if (plain(value)) {
      return value;
    }
    if (value.length() > 200) {
      throw new InvalidQueueInputException(what + " '" + value.substring(0, 20) + "...' has " + value.length()
          + " characters; expected at most 200");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        throw new InvalidQueueInputException(what + " '" + printable(value) + "' contains white space or a"
            + " control character at index " + i + "; expected a name without white space");
      }
    }
    return storable(value, what);
  }

  /**
   * Returns a text every store can keep: no NUL character (U+0000, which PostgreSQL's text types refuse) and
   * no unpaired surrogate (a UTF-16 half that has no UTF-8 form, which a database would replace, so that
   * two different texts would be kept as one).
   */
  public static String storable(String value, String what) {
    int n = value.length();
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      if (c == 0) {
        throw new InvalidQueueInputException(what + " '" + printable(value) + "' contains a NUL character"
            + " (U+0000) at index " + i + "; expected text without NUL");
      }
      if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new InvalidQueueInputException(what + " '" + printable(value) + "' contains an unpaired"
            + " surrogate (U+" + String.format("%04X", (int) c) + ") at index " + i
            + "; expected well-formed Unicode text");
      }
    }
    return value;
  }

  /** Whether a short value has only printable ASCII characters other than space: the common case. */
  private static boolean plain(String value) {
    int n = value.length();
    if (n > 200) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      if (c <= ' ' || c >= 0x7f) {
        return false;
      }
    }
    return true;
  }

  /** The most characters of a free text (a failure detail, a cancellation reason). */
  public static final int MAX_TEXT = 4000; // QueueNames.MAX_TEXT

  /**
   * Returns a free text (a failure detail, a cancellation reason): present, at most {@link #MAX_TEXT}
   * characters, storable ({@link #storable}).
   */
  public static String text(@Nullable String value, String what) {
    if (value == null) {
      throw new InvalidQueueInputException(what + " is missing");
    }
    if (value.length() > MAX_TEXT) {
      throw new InvalidQueueInputException(what + " has " + value.length() + " characters; expected at most "
          + MAX_TEXT);
    }
    return storable(value, what);
  }

  public static long positive(long value, String what) {
    if (value < 1) {
      throw new InvalidQueueInputException(what + " is " + value + "; expected a positive number");
    }
    return value;
  }

  public static int atLeast(int value, int min, String what) {
    if (value < min) {
      throw new InvalidQueueInputException(what + " is " + value + "; expected at least " + min);
    }
    return value;
  }

  public static Duration positive(@Nullable Duration value, String what) {
    if (value == null) {
      throw new InvalidQueueInputException(what + " is missing; expected a positive duration");
    }
    if (value.isNegative() || value.isZero()) {
      throw new InvalidQueueInputException(what + " is " + value + "; expected a positive duration");
    }
    return value;
  }

  /**
   * Fails when a job's device indices (a lease's, an attempt's) are not ascending and distinct.
   *
   * @param devices the indices
   * @param what what they are, e.g. {@code lease devices}
   * @param job the job whose they are, named in the error
   */
  public static void ascendingDevices(List<Integer> devices, String what, JobId job) {
    for (int i = 1; i < devices.size(); i++) {
      if (devices.get(i - 1) >= devices.get(i)) {
        throw new InvalidQueueInputException(what + " " + devices + " of job " + job.value()
            + " are not ascending and distinct");
      }
    }
  }

  /** Fails when a collection holds a duplicate (by {@code equals}). */
  public static <T> void unique(Collection<T> values, String what) {
    Set<T> seen = new HashSet<>();
    for (T value : values) {
      if (!seen.add(value)) {
        throw new InvalidQueueInputException(what + " lists " + value + " twice; expected each at most once");
      }
    }
  }

  public static String printable(String value) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < value.length() && i < 60; i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c) || Character.isSurrogate(c) || (Character.isWhitespace(c) && c != ' ')) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return value.length() > 60 ? sb + "..." : sb.toString();
  }
}
