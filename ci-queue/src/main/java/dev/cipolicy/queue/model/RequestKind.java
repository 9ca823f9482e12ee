package dev.cipolicy.queue.model;

import java.util.Locale;

/** What a request benchmarks: a merged commit, a pull request's head, or a released tag. */
public enum RequestKind {
  /** A commit merged into the default branch; ready at creation, compared with its parent. */
  MASTER,
  /** A pull request's head; waits for artifacts until its SHA is attached, compared with its parent. */
  TRY,
  /** A released tag; ready at creation, runs before master and try requests, never compared. */
  RELEASE;

  /**
   * The name used in text and JSON output.
   *
   * @return e.g. {@code master}
   */
  public String documentName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Whether a completion of this kind emits a comparison event.
   *
   * @return true for master and try
   */
  public boolean isCompared() {
    return this != RELEASE;
  }
}
