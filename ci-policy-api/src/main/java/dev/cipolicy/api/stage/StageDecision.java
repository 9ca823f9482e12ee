package dev.cipolicy.api.stage;

/**
 * The decision for one PR stage.
 *
 * @param stage the stage (suite) name
 * @param outcome run, skipped as irrelevant, or skipped because the changed test's label was not requested
 * @param reason which path matched which rule, or which label made it explicit, or why it is skipped
 */
public record StageDecision(String stage, StageOutcome outcome, String reason) {}
