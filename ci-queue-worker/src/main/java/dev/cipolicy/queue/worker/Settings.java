package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** The argument checks of this package: every bad argument is a single-line {@link InvalidQueueInputException}. */
final class Settings {

  private Settings() {}

  static <T> T present(@Nullable T value, String what) {
    if (value == null) {
      throw new InvalidQueueInputException(what + " is missing");
    }
    return value;
  }

  static Duration between(@Nullable Duration value, Duration min, Duration max, String what) {
    Duration v = present(value, what);
    if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
      throw new InvalidQueueInputException(what + " is " + v + "; expected " + min + " to " + max);
    }
    return v;
  }

  static int between(int value, int min, int max, String what) {
    if (value < min || value > max) {
      throw new InvalidQueueInputException(what + " is " + value + "; expected " + min + " to " + max);
    }
    return value;
  }

  /** A one-line text of at most {@code max} characters (for failure details and log markers). */
  static String oneLine(String text, int max) {
    String line = text.replaceAll("[\\r\\n\\t\\u0000]+", " ").strip();
    if (line.length() > max) {
      int cut = max - 1;
      if (Character.isHighSurrogate(line.charAt(cut - 1))) {
        cut--;
      }
      line = line.substring(0, cut) + "…";
    }
    return line.isEmpty() ? "(no detail)" : line;
  }
}
