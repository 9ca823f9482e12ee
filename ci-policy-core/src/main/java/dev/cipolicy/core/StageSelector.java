package dev.cipolicy.core;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.api.stage.StageDecision;
import dev.cipolicy.api.stage.StageOutcome;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.core.diff.ChangeEntry;
import dev.cipolicy.core.diff.ChangedFiles;
import dev.cipolicy.core.diff.DiffParse;
import dev.cipolicy.core.paths.GlobSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decides which PR stages a change may skip. The policy's non-GPU path globs are compiled
 * once into a single {@link GlobSet}, so a selection costs O(total path length). Immutable and
 * thread-safe.
 *
 * <pre>{@code
 * StageSelector selector = StageSelector.of(registry);
 * StageSelection s = selector.select(resolution, diffBytes);
 * s.skippedStages();   // post each as a passing check under the stage's name
 * }</pre>
 */
public final class StageSelector {
  private final SuiteRegistry registry;
  private final Policy policy;
  private final GlobSet nonGpu;
  private final List<String> prStages;
  private final Set<String> explicitAll;

  private StageSelector(SuiteRegistry registry) {
    this.registry = registry;
    this.policy = registry.resolver().policy();
    this.nonGpu = GlobSet.compile(policy.nonGpuPaths());
    this.prStages = policy.prStages();
    Set<String> all = new LinkedHashSet<>();
    policy.workflowLabels().stream().filter(w -> w.switchesCadence().isPresent()).forEach(w -> all.add(w.name()));
    policy.scopes().forEach(s -> all.addAll(s.whenLabels()));
    this.explicitAll = all;
  }

  /**
   * A selector over a checked registry.
   *
   * @param registry registrations and policy
   * @return the selector
   */
  public static StageSelector of(SuiteRegistry registry) {
    return new StageSelector(registry);
  }

  /**
   * Decides the skipped stages of a resolved trigger. Every pull request is pruned (an event for which
   * {@link PolicyResolver#isPullRequestEvent(String)} holds), whether its cadence came from its labels or
   * from a cadence override; with an override the raw labels are empty, so the changed paths decide. Any
   * other event, a missing diff or an unusable diff prunes nothing.
   *
   * @param resolution the resolved trigger and its run policy
   * @param diff the {@code git diff --name-status -z -M} output, or empty when unavailable
   * @return the selection
   */
  public StageSelection select(TriggerResolution resolution, Optional<byte[]> diff) {
    RunPolicy run = resolution.runPolicy();
    if (resolution.source() != TriggerResolution.Source.PULL_REQUEST_LABELS
        && !registry.resolver().isPullRequestEvent(resolution.eventName())) {
      return failOpen("only pull requests prune stages; every PR stage keeps its normal gating");
    }
    if (diff.isEmpty()) {
      return failOpen("no diff was supplied, so nothing can be pruned");
    }
    DiffParse parsed = ChangedFiles.parse(diff.get());
    if (parsed instanceof DiffParse.Unusable u) {
      return failOpen("the diff is unusable (" + u.reason() + "), so nothing is pruned");
    }
    return select(run, ((DiffParse.Usable) parsed).entries());
  }

  /**
   * Decides the skipped stages of a resolved trigger from a list of changed paths instead of diff bytes: the
   * same rule as {@link #select(TriggerResolution, Optional)} (only pull requests prune; an empty list is an
   * empty diff, which prunes nothing), each path counted as a changed file. For a rename give both the old and
   * the new path, as the diff would.
   *
   * @param resolution the resolved trigger and its run policy
   * @param changedPaths the changed paths, each non-empty and without NUL
   * @return the selection
   * @throws dev.cipolicy.api.InvalidValueException for an empty path or one holding NUL
   */
  public StageSelection selectPaths(TriggerResolution resolution, List<String> changedPaths) {
    List<ChangeEntry> entries = new ArrayList<>(changedPaths.size());
    for (String path : changedPaths) {
      entries.add(new ChangeEntry("M", List.of(path)));
    }
    if (resolution.source() != TriggerResolution.Source.PULL_REQUEST_LABELS
        && !registry.resolver().isPullRequestEvent(resolution.eventName())) {
      return failOpen("only pull requests prune stages; every PR stage keeps its normal gating");
    }
    if (entries.isEmpty()) {
      return failOpen("the diff is unusable (the diff is empty), so nothing is pruned");
    }
    return select(resolution.runPolicy(), entries);
  }

  /**
   * Decides the skipped stages of a pull request from parsed diff entries.
   *
   * @param run the resolved run policy
   * @param entries the changed entries
   * @return the selection
   */
  public StageSelection select(RunPolicy run, List<ChangeEntry> entries) {
    // runnable: PR stages with an enabled registration matching the run policy
    Map<String, String> runnable = new HashMap<>();
    for (Registration r : registry.registrations()) {
      if (prStages.contains(r.suite()) && r.disabled().isEmpty() && registry.matches(r, run, false)) {
        runnable.putIfAbsent(r.suite(), r.file());
      }
    }
    // affected: which stages the changed paths touch
    Map<String, String> affected = new HashMap<>();
    // a changed test of a stage the run policy does not select, and the label that would select it
    Map<String, String> notRequested = new HashMap<>();
    String fanOut = null;
    for (ChangeEntry e : entries) {
      for (String path : e.paths()) {
        List<Registration> regs = registry.registrationsOf(path);
        if (!regs.isEmpty()) {
          for (String stage : registry.prStagesOf(path)) {
            affected.putIfAbsent(stage, "changed registered test " + path);
          }
          for (Registration r : regs) {
            if (prStages.contains(r.suite()) && r.disabled().isEmpty() && !registry.matches(r, run, false)
                && (!r.nightly() || run.admitNightlyTests())) {
              r.labels().stream().filter(l -> !run.includeLabels().contains(l)).findFirst().ifPresent(l ->
                  notRequested.putIfAbsent(r.suite(), path + " changed; it runs under label " + l + ": add "
                      + policy.labelPrefix() + l));
            }
          }
          continue;
        }
        OptionalInt rule = nonGpu.firstMatch(path);
        if (rule.isPresent()) {
          continue;
        }
        if (fanOut == null) {
          fanOut = path;
        }
      }
    }
    if (fanOut != null) {
      for (String stage : prStages) {
        affected.putIfAbsent(stage, "changed path " + fanOut + " matches no non-GPU rule and no registered test,"
            + " so it fans out to every PR stage");
      }
    }
    // explicit: labels that request stages
    Map<String, String> explicit = new HashMap<>();
    Optional<String> widening = run.rawLabels().stream().filter(explicitAll::contains).findFirst();
    if (widening.isPresent()) {
      for (String stage : runnable.keySet()) {
        explicit.put(stage, "label " + widening.get() + " requests every runnable stage");
      }
    } else if (!run.requestedLabels().isEmpty()) {
      for (Registration r : registry.registrations()) {
        if (!prStages.contains(r.suite()) || r.disabled().isPresent() || (r.nightly() && !run.admitNightlyTests())) {
          continue;
        }
        for (String l : r.labels()) {
          if (run.requestedLabels().contains(l)) {
            explicit.putIfAbsent(r.suite(), "label " + policy.labelPrefix() + l + " requests " + r.file());
          }
        }
      }
    }
    List<StageDecision> decisions = new ArrayList<>();
    Set<String> skipped = new TreeSet<>();
    for (String stage : prStages) {
      String why;
      StageOutcome outcome;
      if (!runnable.containsKey(stage) && notRequested.containsKey(stage)) {
        outcome = StageOutcome.SKIPPED_NOT_REQUESTED;
        why = notRequested.get(stage);
      } else if (!runnable.containsKey(stage)) {
        outcome = StageOutcome.SKIPPED_IRRELEVANT;
        why = "no enabled test of " + stage + " matches the run policy";
      } else if (affected.containsKey(stage)) {
        outcome = StageOutcome.RUN;
        why = affected.get(stage);
      } else if (explicit.containsKey(stage)) {
        outcome = StageOutcome.RUN;
        why = explicit.get(stage);
      } else {
        outcome = StageOutcome.SKIPPED_IRRELEVANT;
        why = "no changed path affects " + stage + " and no label requests it";
      }
      if (outcome.skipped()) {
        skipped.add(stage);
      }
      decisions.add(new StageDecision(stage, outcome, why));
    }
    List<Explanation.Reason> reasons = new ArrayList<>();
    for (StageDecision d : decisions) {
      reasons.add(new Explanation.Reason("stage." + switch (d.outcome()) {
        case RUN -> "run";
        case SKIPPED_IRRELEVANT -> "skip";
        case SKIPPED_NOT_REQUESTED -> "skip-not-requested";
      },
          d.stage() + ": " + d.reason()));
    }
    long notRequestedSkips = decisions.stream()
        .filter(d -> d.outcome() == StageOutcome.SKIPPED_NOT_REQUESTED).count();
    String decision = skipped.isEmpty() ? "every PR stage runs"
        : skipped.size() + " of " + prStages.size() + " PR stages skipped" + (notRequestedSkips == 0
            ? " as irrelevant"
            : ", " + notRequestedSkips + " of them although the change touches a test whose label was not requested");
    return new StageSelection(List.copyOf(skipped), decisions, Optional.empty(),
        new Explanation(decision, reasons, List.of()));
  }

  private StageSelection failOpen(String reason) {
    List<StageDecision> decisions = new ArrayList<>();
    for (String stage : prStages) {
      decisions.add(new StageDecision(stage, StageOutcome.RUN, "fail-open: " + reason));
    }
    return new StageSelection(List.of(), decisions, Optional.of(reason), new Explanation("nothing skipped",
        List.of(new Explanation.Reason("stage.fail-open", reason)), List.of()));
  }
}
