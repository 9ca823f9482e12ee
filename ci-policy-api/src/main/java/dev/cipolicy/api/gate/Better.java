package dev.cipolicy.api.gate;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Which direction of a metric is an improvement. It turns an out-of-band value into a
 * {@code REGRESSION} (the worse side) or an {@code ANOMALOUS_IMPROVEMENT} (the better side); it never
 * changes whether the value is in the band.
 */
public enum Better {
  /** Lower is better: loss, gradient norm, KL divergence, mismatch rates. */
  LOWER,
  /** Higher is better: reward, accuracy, throughput. */
  HIGHER;

  /**
   * The name used in documents.
   *
   * @return {@code lower} or {@code higher}
   */
  public String documentName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Looks up a document name.
   *
   * @param name {@code lower} or {@code higher}
   * @return the value, if the name is known
   */
  public static Optional<Better> fromDocumentName(String name) {
    return Arrays.stream(values()).filter(b -> b.documentName().equals(name)).findFirst();
  }
}
