package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Claim;
import java.util.List;

/**
 * What a claim did: the jobs handed out (possibly none), or nothing because the collector is unknown or
 * inactive.
 *
 * @param status what happened
 * @param claims the claimed jobs with their leases, in claim order
 */
public record ClaimResult(Status status, List<Claim> claims) {

  /** What a claim did. */
  public enum Status {
    /** The collector is registered and active; {@code claims} holds what it got, possibly nothing. */
    OK,
    /** No collector has this name; nothing changed. */
    UNKNOWN_COLLECTOR,
    /** The collector is deactivated; nothing changed. */
    INACTIVE_COLLECTOR
  }

  /** Checks the components and copies the list. */
  public ClaimResult {
    Checks.present(status, "claim status");
    claims = List.copyOf(Checks.present(claims, "claims"));
  }
}
