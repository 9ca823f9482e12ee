package dev.cipolicy.cli;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.Warning;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.api.stage.StageDecision;
import dev.cipolicy.api.stage.StageOutcome;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.core.load.LoadedPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ci-policy explain}: the decision {@code resolve} would take for the same inputs, in plain sentences,
 * one per line: why this cadence, which labels counted and which were dropped, the run policy flags, why each
 * stage runs or is skipped, and what would change the outcome. It writes no file.
 */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = {
        "Explains in plain sentences what resolve decides for the same inputs, and why; writes no file.",
        "An absent flag falls back to the environment variable named in brackets."
    })
final class ExplainCommand extends PolicyCommand {
  @Mixin
  private TriggerOptions trigger = new TriggerOptions();

  @Option(names = "--json", description = "Print one JSON object (the sentences and the decision's parts).")
  private boolean json;

  @Override
  int run(CiPolicyCli c, LoadedPolicy loaded) throws IOException {
    TriggerOptions.Trigger t = trigger.resolve(c, loaded);
    for (Warning w : loaded.warnings()) {
      Annotations.warning(c, w);
    }
    List<String> sentences = sentences(t);
    if (json) {
      printJson(c, toJson(t, sentences));
    } else {
      sentences.forEach(c.console()::line);
    }
    return 0;
  }

  /** The explanation of a resolved run, one sentence a line, in a fixed order. */
  static List<String> sentences(TriggerOptions.Trigger t) {
    TriggerResolution resolution = t.resolution();
    RunPolicy run = resolution.runPolicy();
    Explanation e = resolution.explanation();
    List<String> out = new ArrayList<>();
    List<String> policyReasons = new ArrayList<>();
    List<String> scopeReasons = new ArrayList<>();
    List<String> requested = new ArrayList<>();
    List<String> dropped = new ArrayList<>();
    for (Explanation.Reason r : e.reasons()) {
      String rule = r.rule();
      if (rule.startsWith("trigger.")) {
        out.add(sentence("Cadence " + run.cadence(), r.detail()));
      } else if (rule.equals("labels.requested")) {
        requested.add(sentence("Requested", r.detail()));
      } else if (rule.startsWith("labels.") && !rule.equals("labels.bypass-fastfail")) {
        dropped.add(sentence("Dropped", r.detail()));
      } else if (rule.startsWith("scope.")) {
        scopeReasons.add(sentence("Scope", r.detail()));
      } else if (rule.startsWith("cadence.") || rule.equals("labels.bypass-fastfail")) {
        policyReasons.add(sentence("Run policy", r.detail()));
      } else {
        policyReasons.add(sentence("Rule " + rule, r.detail()));
      }
    }
    out.add(sentence("Counted labels", run.rawLabels().isEmpty() ? "none" : String.join(", ", run.rawLabels())));
    out.addAll(requested);
    out.addAll(dropped);
    for (Warning w : resolution.warnings()) {
      out.add(sentence("Warning", w.message()));
    }
    out.addAll(scopeReasons);
    out.add(sentence("Included test labels (" + run.includeLabels().size() + ")",
        run.includeLabels().isEmpty() ? "none" : String.join(", ", run.includeLabels())));
    out.addAll(policyReasons);
    out.add(sentence("Flags", "admit_nightly_tests=" + run.admitNightlyTests() + ", bypass_fastfail="
        + run.bypassFastfail() + ", write_baseline=" + run.writeBaseline()));
    Optional<String> nothingPruned = nothingPruned(t);
    if (nothingPruned.isPresent()) {
      out.add(sentence("Every stage runs", nothingPruned.get()));
    } else {
      for (StageDecision d : t.stages().orElseThrow().decisions()) {
        out.add(sentence("Stage " + d.stage() + (d.outcome() == StageOutcome.RUN ? " runs" : " is skipped"),
            d.reason()));
      }
    }
    for (String h : e.hints()) {
      out.add(sentence("Would change it", h));
    }
    return out;
  }

  /** Why nothing is pruned: no registrations, or the stage selector's fail-open reason; empty when it pruned. */
  private static Optional<String> nothingPruned(TriggerOptions.Trigger t) {
    if (t.stages().isEmpty()) {
      return Optional.of(t.pullRequestEvent() && t.diffGiven()
          ? "--changed-files without --registrations, so nothing can be pruned (fail-open)"
          : "no registrations were given, so nothing is pruned");
    }
    return t.stages().get().failOpen();
  }

  /** {@code <head>: <detail>.}, the full stop added unless the detail ends with one or a question mark. */
  private static String sentence(String head, String detail) {
    return head + ": " + detail + (detail.endsWith(".") || detail.endsWith("?") ? "" : ".");
  }

  static Map<String, Object> toJson(TriggerOptions.Trigger t, List<String> sentences) {
    TriggerResolution resolution = t.resolution();
    RunPolicy run = resolution.runPolicy();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("event", t.event());
    m.put("source", resolution.source().name());
    m.put("cadence", run.cadence());
    m.put("sentences", sentences);
    m.put("raw_labels", run.rawLabels());
    m.put("requested_labels", run.requestedLabels());
    m.put("include_labels", run.includeLabels());
    m.put("scope", run.scope().orElse(null));
    Map<String, Object> flags = new LinkedHashMap<>();
    flags.put("admit_nightly_tests", run.admitNightlyTests());
    flags.put("bypass_fastfail", run.bypassFastfail());
    flags.put("write_baseline", run.writeBaseline());
    m.put("run_policy", flags);
    Optional<StageSelection> stages = t.stages();
    m.put("fail_open", nothingPruned(t).orElse(null));
    List<Object> decisions = new ArrayList<>();
    stages.ifPresent(s -> s.decisions().forEach(d -> {
      Map<String, Object> dm = new LinkedHashMap<>();
      dm.put("stage", d.stage());
      dm.put("outcome", d.outcome().name());
      dm.put("reason", d.reason());
      decisions.add(dm);
    }));
    m.put("stages", decisions);
    m.put("skipped_stages", stages.map(StageSelection::skippedStages).orElse(List.of()));
    m.put("warnings", ResolveCommand.warningsJson(resolution));
    m.put("hints", resolution.explanation().hints());
    m.put("explanation", resolution.explanation().toMap());
    return m;
  }
}
