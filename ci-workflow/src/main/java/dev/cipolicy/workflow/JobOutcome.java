package dev.cipolicy.workflow;

/**
 * One job's result in a simulated run, with why.
 *
 * @param job the job id
 * @param result the result
 * @param reason the rule and the responsible ancestor or expression term, e.g.
 *     {@code skipped: implicit success() is false: ancestor stage-a-cpu failed (via docker-build)}
 */
public record JobOutcome(String job, JobResult result, String reason) {}
