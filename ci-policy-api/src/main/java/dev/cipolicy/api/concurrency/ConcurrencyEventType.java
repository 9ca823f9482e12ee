package dev.cipolicy.api.concurrency;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The kind of event that asks a workflow for a new run, as far as concurrency is concerned.
 * Each type has a default action that applies when a workflow does not declare one.
 */
public enum ConcurrencyEventType {
  /** A new push or label change on an open pull request; keyed by the PR number; default {@code cancel}. */
  SUPERSEDED(ConcurrencyAction.CANCEL, true),
  /**
   * A pull request was closed without merging; keyed by the PR number; always {@code cancel}: it ends
   * every in-flight run of the PR in every declared workflow, and the run it starts is cancellation-only.
   */
  CLOSED(ConcurrencyAction.CANCEL, true),
  /** A pull request was merged; keyed by the PR number; default {@code cancel}, which acts like {@link #CLOSED}. */
  MERGED(ConcurrencyAction.CANCEL, true),
  /** A scheduled run; keyed by its cron string; default {@code cancel} (a cron's next firing replaces its last). */
  SCHEDULED(ConcurrencyAction.CANCEL, false),
  /**
   * A manual dispatch; keyed by its release ref when it has one, else by its own run id; default
   * {@code queue}. A dispatch keyed by its run id shares its group with no other run, so it never cancels
   * anything whatever the action.
   */
  DISPATCHED(ConcurrencyAction.QUEUE, false);

  private final ConcurrencyAction defaultAction;
  private final boolean pullRequest;

  ConcurrencyEventType(ConcurrencyAction defaultAction, boolean pullRequest) {
    this.defaultAction = defaultAction;
    this.pullRequest = pullRequest;
  }

  /**
   * The action of this event type in a workflow that does not declare one.
   *
   * @return {@code cancel} for every type except {@link #DISPATCHED}, which queues
   */
  public ConcurrencyAction defaultAction() {
    return defaultAction;
  }

  /**
   * Whether the event belongs to a pull request and therefore carries a PR number.
   *
   * @return true for {@link #SUPERSEDED}, {@link #CLOSED} and {@link #MERGED}
   */
  public boolean pullRequestEvent() {
    return pullRequest;
  }

  /**
   * Whether the event ends the pull request: its run is cancellation-only.
   *
   * @return true for {@link #CLOSED} and {@link #MERGED}
   */
  public boolean endsPullRequest() {
    return this == CLOSED || this == MERGED;
  }

  /**
   * The name used in policy documents and JSON.
   *
   * @return e.g. {@code superseded}
   */
  public String documentName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Looks up an event type by its document name.
   *
   * @param name e.g. {@code closed}; matched exactly
   * @return the type, if the name is one of {@link #documentNames()}
   */
  public static Optional<ConcurrencyEventType> fromDocumentName(String name) {
    return Arrays.stream(values()).filter(t -> t.documentName().equals(name)).findFirst();
  }

  /**
   * The document names of every event type, sorted, for "expected one of" messages.
   *
   * @return {@code [closed, dispatched, merged, scheduled, superseded]}
   */
  public static String documentNames() {
    return Arrays.stream(values()).map(ConcurrencyEventType::documentName).sorted().toList().toString();
  }
}
