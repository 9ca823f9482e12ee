package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.ResultPayload;
import java.util.Optional;

/**
 * What {@link QueueStore#completeAndClaim} did: the completion's result, and the claim that followed it when
 * the completion ended the lease.
 *
 * @param completion the completion's result, exactly what {@link QueueStore#complete(LeaseRef, ResultPayload)}
 *     returns for the same lease at the same moment
 * @param claim the claim's result when the completion ended the lease ({@link LeaseStatus#OK} or
 *     {@link LeaseStatus#CANCELLED}); empty when it did not ({@link LeaseStatus#STALE_LEASE},
 *     {@link LeaseStatus#NOT_FOUND}): then nothing was claimed and nothing changed
 */
public record CompleteAndClaimResult(LeaseResult completion, Optional<ClaimResult> claim) {

  /** Checks the components: a claim is present exactly when the completion ended the lease. */
  public CompleteAndClaimResult {
    Checks.present(completion, "completion");
    Checks.present(claim, "claim");
    boolean ended = endsLease(completion.status());
    if (ended != claim.isPresent()) {
      throw new InvalidQueueInputException("a completion of status " + completion.status() + (ended
          ? " ends the lease, so a claim follows it; got none" : " ends no lease, so no claim follows it; got one"));
    }
  }

  /**
   * Whether a completion of this status ended the lease, so that the claim runs.
   *
   * @param status a completion's status
   * @return true for {@link LeaseStatus#OK} and {@link LeaseStatus#CANCELLED}
   */
  public static boolean endsLease(LeaseStatus status) {
    return status == LeaseStatus.OK || status == LeaseStatus.CANCELLED;
  }

  /**
   * The claims handed out, none when no claim ran or it got nothing.
   *
   * @return the claims, in claim order
   */
  public java.util.List<Claim> claims() {
    return claim.map(ClaimResult::claims).orElse(java.util.List.of());
  }
}
