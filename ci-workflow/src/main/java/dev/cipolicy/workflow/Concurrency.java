package dev.cipolicy.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;

/**
 * A workflow's or job's {@code concurrency:}.
 *
 * @param group the group as written (often a {@code ${{ }}} template)
 * @param cancelInProgress {@code cancel-in-progress} as written: {@code true}, {@code false} (GitHub's
 *     default) or an expression
 * @param location where {@code concurrency:} is
 */
public record Concurrency(String group, String cancelInProgress, SourceLocation location) {
  /** Validates the group. */
  public Concurrency {
    ValueCheck.of("Concurrency").nonEmpty("group", group).nonEmpty("cancelInProgress", cancelInProgress).done();
  }
}
