package dev.cipolicy.api.stage;

import dev.cipolicy.api.Explanation;
import java.util.List;
import java.util.Optional;

/**
 * Which PR stages a change may skip, fail-open: anything but a usable pull-request diff skips
 * nothing.
 *
 * @param skippedStages the skipped stages, sorted
 * @param decisions one decision per PR stage, in policy order
 * @param failOpen why nothing was pruned (not a pull request, an unusable diff), if so
 * @param explanation why
 */
public record StageSelection(List<String> skippedStages, List<StageDecision> decisions, Optional<String> failOpen,
    Explanation explanation) {
  /** Copies the lists. */
  public StageSelection {
    skippedStages = List.copyOf(skippedStages);
    decisions = List.copyOf(decisions);
  }
}
