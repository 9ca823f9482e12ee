package dev.cipolicy.gate;

/**
 * What a revocation did, counted.
 *
 * @param runsMatched the runs the key names, revoked before or now
 * @param runsRevoked the runs revoked by this call; 0 when repeated (idempotent)
 * @param samplesUntrusted the trusted samples of those runs that left the baseline
 */
public record RevocationResult(int runsMatched, int runsRevoked, int samplesUntrusted) {}
