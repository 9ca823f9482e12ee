package dev.cipolicy.queue.memory;

import java.util.HashSet;
import java.util.Set;

/**
 * The paused pools of the in-memory store (its operators' audit is an {@link InMemoryOperatorAudit}). Not
 * thread-safe: the store calls it under its lock.
 */
final class OperatorRows {
  /** The paused pools. */
  private final Set<String> paused = new HashSet<>();

  boolean paused(String tag) {
    return paused.contains(tag);
  }

  /** Pauses or resumes a pool; whether that changed anything. */
  boolean setPaused(String tag, boolean pause) {
    return pause ? paused.add(tag) : paused.remove(tag);
  }

  Set<String> pausedPools() {
    return Set.copyOf(paused);
  }
}
