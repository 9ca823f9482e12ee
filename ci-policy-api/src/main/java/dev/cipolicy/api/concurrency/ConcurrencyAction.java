package dev.cipolicy.api.concurrency;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** What an event does to the in-flight runs of its concurrency group, as a workflow declares it. */
public enum ConcurrencyAction {
  /** The new run cancels the in-progress and queued runs of the same group ({@code cancel-in-progress}). */
  CANCEL,
  /** The new run waits until the runs of the same group have finished; nothing is cancelled. */
  QUEUE,
  /** The event starts no run and cancels nothing. */
  IGNORE;

  /**
   * The name used in policy documents and JSON.
   *
   * @return e.g. {@code cancel}
   */
  public String documentName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Looks up an action by its document name.
   *
   * @param name e.g. {@code queue}; matched exactly
   * @return the action, if the name is one of {@link #documentNames()}
   */
  public static Optional<ConcurrencyAction> fromDocumentName(String name) {
    return Arrays.stream(values()).filter(a -> a.documentName().equals(name)).findFirst();
  }

  /**
   * The document names of every action, sorted, for "expected one of" messages.
   *
   * @return {@code [cancel, ignore, queue]}
   */
  public static String documentNames() {
    return Arrays.stream(values()).map(ConcurrencyAction::documentName).sorted().toList().toString();
  }
}
