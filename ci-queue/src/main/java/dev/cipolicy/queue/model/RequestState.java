package dev.cipolicy.queue.model;

import java.util.Locale;

/**
 * Where a request is in its lifecycle: waiting for artifacts, ready, in progress, then completed or
 * cancelled. Completed and cancelled are terminal and absorbing.
 */
public enum RequestState {
  /** A try request whose SHA is not known yet. */
  WAITING_FOR_ARTIFACTS,
  /** A request whose artifacts exist; queued until a site starts it. */
  ARTIFACTS_READY,
  /** A started request: its jobs exist and it counts against the in-progress cap. */
  IN_PROGRESS,
  /** Every required job of the request and of its parent is terminal; the outcome is recorded. */
  COMPLETED,
  /** Cancelled by the host (a closed PR, a superseded try) before it completed. */
  CANCELLED;

  /**
   * The name used in text and JSON output.
   *
   * @return e.g. {@code artifacts_ready}
   */
  public String documentName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Whether the state never changes again.
   *
   * @return true for completed and cancelled
   */
  public boolean isTerminal() {
    return this == COMPLETED || this == CANCELLED;
  }

  /**
   * Whether the request is still queued or running.
   *
   * @return true unless terminal
   */
  public boolean isOpen() {
    return !isTerminal();
  }
}
