package dev.cipolicy.workflow;

/**
 * The value of a status function for one job, with why.
 *
 * @param value true, false, or unknown when an ancestor's result is unknown
 * @param reason why, e.g. {@code ancestor stage-a-cpu failed (via docker-build)}
 */
public record StatusCheck(Tri value, String reason) {}
