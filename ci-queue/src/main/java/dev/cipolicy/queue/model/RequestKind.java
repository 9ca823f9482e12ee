package dev.cipolicy.queue.model;

import java.util.Locale;

/**
 * What a request is: a benchmark request (a merged commit, a pull request's head, or a released tag), or a
 * CI workflow run.
 */
public enum RequestKind {
  /** A commit merged into the default branch; ready at creation, compared with its parent. */
  MASTER,
  /** A pull request's head; waits for artifacts until its SHA is attached, compared with its parent. */
  TRY,
  /** A released tag; ready at creation, runs before master and try requests, never compared. */
  RELEASE,
  /**
   * A CI workflow run ({@link CiRun}), keyed by repository, run id and attempt: submitted in progress with the
   * jobs its submitter planned, never compared, never backfilled, not counted against the in-progress cap.
   */
  CI_RUN;

  /**
   * The name used in text and JSON output.
   *
   * @return e.g. {@code master}, {@code ci-run}
   */
  public String documentName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * Whether a completion of this kind emits a comparison event.
   *
   * @return true for master and try
   */
  public boolean isCompared() {
    return this == MASTER || this == TRY;
  }

  /**
   * Whether a request of this kind in progress counts against the in-progress cap K and is started by a
   * site's tick.
   *
   * @return true for master, try and release; false for a CI run
   */
  public boolean isCapped() {
    return this != CI_RUN;
  }
}
