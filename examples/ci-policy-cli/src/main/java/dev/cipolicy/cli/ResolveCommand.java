package dev.cipolicy.cli;

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
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ci-policy resolve}: the policy job of the PR test workflow. */
@Command(
    name = "resolve",
    mixinStandardHelpOptions = true,
    description = {
        "Resolves the cadence and run policy of a workflow run and writes the GitHub Actions outputs.",
        "An absent flag falls back to the environment variable named in brackets."
    })
final class ResolveCommand extends PolicyCommand {
  @Mixin
  private TriggerOptions trigger = new TriggerOptions();

  @Option(names = "--github-output", paramLabel = "FILE", description = "Appends the four output lines to this file [GITHUB_OUTPUT].")
  private @Nullable String githubOutput;

  @Option(names = "--step-summary", paramLabel = "FILE", description = "Appends a Markdown summary to this file [GITHUB_STEP_SUMMARY].")
  private @Nullable String stepSummary;

  @Option(names = "--json", description = "Print one JSON object instead of the summary line.")
  private boolean json;

  @Override
  int run(CiPolicyCli c, LoadedPolicy loaded) throws IOException {
    Map<String, String> env = c.environment();
    TriggerOptions.Trigger t = trigger.resolve(c, loaded);
    String event = t.event();
    TriggerResolution resolution = t.resolution();
    RunPolicy run = resolution.runPolicy();
    Optional<StageSelection> stages = t.stages();
    if (t.pullRequestEvent() && stages.isEmpty() && t.diffGiven()) {
      c.console().warning("--changed-files without --registrations: nothing can be pruned (fail-open)");
    }
    List<String> skipped = stages.map(StageSelection::skippedStages).orElse(List.of());

    String outputPath = Inputs.flagOrEnv(githubOutput, env, "GITHUB_OUTPUT").orElse("");
    if (!outputPath.isEmpty()) {
      Inputs.appendOutput(c.resolvePath(outputPath), GithubFormats.outputLines(run, skipped));
    }
    String summaryPath = Inputs.flagOrEnv(stepSummary, env, "GITHUB_STEP_SUMMARY").orElse("");
    if (!summaryPath.isEmpty()) {
      GateCommand.appendSummary(c, c.resolvePath(summaryPath), ResolveSummary.render(event, resolution, stages),
          "the resolve summary");
    }
    for (Warning w : loaded.warnings()) {
      Annotations.warning(c, w);
    }
    for (Warning w : resolution.warnings()) {
      Annotations.warning(c, w);
    }
    for (StageDecision d : stages.map(StageSelection::decisions).orElse(List.of())) {
      if (d.outcome() == StageOutcome.SKIPPED_NOT_REQUESTED) {
        Annotations.warning(c, new Warning("stage-not-requested", "stage " + d.stage() + " is skipped: "
            + d.reason()));
      }
    }
    if (json) {
      Map<String, Object> out = toJson(resolution, skipped);
      stages.ifPresent(s -> out.put("stages", stagesJson(s)));
      printJson(c, out);
    } else {
      c.console().line(GithubFormats.summaryLine(run, skipped));
    }
    return 0;
  }

  private static List<Object> stagesJson(StageSelection s) {
    List<Object> out = new ArrayList<>();
    for (StageDecision d : s.decisions()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("stage", d.stage());
      m.put("outcome", d.outcome().name());
      m.put("reason", d.reason());
      out.add(m);
    }
    return out;
  }

  static Map<String, Object> toJson(TriggerResolution resolution, List<String> skipped) {
    RunPolicy run = resolution.runPolicy();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cadence", run.cadence());
    m.put("raw_labels", run.rawLabels());
    m.put("include_labels", run.includeLabels());
    m.put("admit_nightly_tests", run.admitNightlyTests());
    m.put("bypass_fastfail", run.bypassFastfail());
    m.put("write_baseline", run.writeBaseline());
    m.put("skipped_stages", List.copyOf(new java.util.TreeSet<>(skipped)));
    m.put("warnings", warningsJson(resolution));
    m.put("explanation", resolution.explanation().toMap());
    return m;
  }

  /** The resolution's warnings as JSON objects ({@code code}, {@code message}), in order. */
  static List<Object> warningsJson(TriggerResolution resolution) {
    List<Object> ws = new ArrayList<>();
    for (Warning w : resolution.warnings()) {
      Map<String, Object> wm = new LinkedHashMap<>();
      wm.put("code", w.code());
      wm.put("message", w.message());
      ws.add(wm);
    }
    return ws;
  }
}
