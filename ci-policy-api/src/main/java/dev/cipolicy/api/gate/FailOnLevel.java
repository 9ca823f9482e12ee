package dev.cipolicy.api.gate;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The verdicts that block a gated run of one cadence, as a policy's {@code gates.fail_on} names them. The gate
 * itself (ci-gate's {@code FailOn}) maps each level to its blocking policy of the same name; not blocking at all
 * is the absence of a level, so it has no value here.
 */
public enum FailOnLevel {
  /** A regression blocks: a FAIL verdict out of band on the worse side, or on a gate without a direction. */
  REGRESSION,
  /** A regression or an ERROR verdict (a missing metric or step, a non-finite value) blocks. */
  ERROR;

  /**
   * The name used in documents.
   *
   * @return {@code regression} or {@code error}
   */
  public String documentName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Looks up a document name.
   *
   * @param name {@code regression} or {@code error} (exactly)
   * @return the level, if the name is known
   */
  public static Optional<FailOnLevel> fromDocumentName(String name) {
    return Arrays.stream(values()).filter(l -> l.documentName().equals(name)).findFirst();
  }
}
