package dev.cipolicy.cli;

import dev.cipolicy.api.Warning;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.api.stage.StageDecision;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.core.StageSelector;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
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
  @Option(names = "--event-name", paramLabel = "NAME", description = "The trigger event [EVENT_NAME].")
  private @Nullable String eventName;

  @Option(names = "--schedule", paramLabel = "CRON", description = "The cron of a scheduled run [SCHEDULE].")
  private @Nullable String schedule;

  @Option(names = "--pr-labels-json", paramLabel = "JSON", description = "PR labels as a JSON string array [PR_LABELS_JSON].")
  private @Nullable String prLabelsJson;

  @Option(names = "--cadence-override", paramLabel = "CADENCE", description = "Overrides everything when non-empty [CADENCE_OVERRIDE].")
  private @Nullable String cadenceOverride;

  @Option(names = "--changed-files", paramLabel = "FILE", description = "The PR diff as `git diff --name-status -z -M` output [CHANGED_FILES_PATH].")
  private @Nullable String changedFiles;

  @Option(names = "--registrations", paramLabel = "FILE", description = "The test registration manifest.")
  private @Nullable String registrations;

  @Option(names = "--github-output", paramLabel = "FILE", description = "Appends the four output lines to this file [GITHUB_OUTPUT].")
  private @Nullable String githubOutput;

  @Option(names = "--step-summary", paramLabel = "FILE", description = "Appends a Markdown summary to this file [GITHUB_STEP_SUMMARY].")
  private @Nullable String stepSummary;

  @Option(names = "--json", description = "Print one JSON object instead of the summary line.")
  private boolean json;

  @Override
  int run(CiPolicyCli c, LoadedPolicy loaded) throws IOException {
    Map<String, String> env = c.environment();
    Optional<String> override = Inputs.flagOrEnv(cadenceOverride, env, "CADENCE_OVERRIDE");
    Optional<String> runnerEvent = Inputs.nonEmpty(env.get("GITHUB_EVENT_NAME"));
    String event = eventName != null ? eventName
        : Inputs.nonEmpty(env.get("EVENT_NAME")).or(() -> runnerEvent).orElse("");
    if (event.isEmpty() && override.orElse("").isEmpty()) {
      throw new Inputs.InputException("no event name: pass --event-name or set EVENT_NAME or GITHUB_EVENT_NAME");
    }
    // the runner's payload describes GITHUB_EVENT_NAME's event: read only for that event, only when needed
    Optional<String> payloadPath = runnerEvent.filter(event::equals)
        .flatMap(e -> Inputs.nonEmpty(env.get("GITHUB_EVENT_PATH")));
    Payload payload = new Payload(c, payloadPath, event);
    TriggerInput.Builder input = TriggerInput.builder().eventName(event);
    Optional<String> cron = schedule != null ? Optional.of(schedule)
        : Inputs.nonEmpty(env.get("SCHEDULE")).or(() -> event.equals("schedule")
            ? payload.get().flatMap(GithubEvent::schedule) : Optional.empty());
    cron.ifPresent(input::schedule);
    override.ifPresent(input::cadenceOverride);
    Optional<String> labelsJson = prLabelsJson != null ? Optional.of(prLabelsJson)
        : Inputs.nonEmpty(env.get("PR_LABELS_JSON"));
    boolean pullRequestEvent = loaded.resolver().isPullRequestEvent(event);
    Optional<String> changedPath = Inputs.flagOrEnv(changedFiles, env, "CHANGED_FILES_PATH").filter(s -> !s.isEmpty());
    // outside a pull request nothing is pruned, so a diff file the workflow did not write is no error
    Optional<byte[]> diff = changedPath
        .filter(p -> pullRequestEvent || !Files.notExists(c.resolvePath(p)))
        .map(p -> Inputs.readBytes(c.resolvePath(p), "changed-files file", Inputs.MAX_CHANGED_FILES_BYTES));
    Optional<SuiteRegistry> registry = Optional.ofNullable(registrations)
        .map(r -> Inputs.loadRegistry(c, loaded, r));
    // the label text is decoded only when resolution reads the labels (a missing text is then an error too)
    if (loaded.resolver().readsPrLabels(input.build())) {
      Optional<List<String>> fromPayload = labelsJson.isPresent() ? Optional.empty()
          : payload.get().flatMap(GithubEvent::prLabels);
      input.prLabels(fromPayload.orElseGet(() -> GithubFormats.prLabels(labelsJson.orElse(""))));
    }
    TriggerResolution resolution = loaded.resolver().resolve(input.build());
    RunPolicy run = resolution.runPolicy();
    Optional<StageSelection> stages = registry.map(r -> StageSelector.of(r).select(resolution, diff));
    if (pullRequestEvent && registry.isEmpty() && diff.isPresent()) {
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
    if (json) {
      Map<String, Object> out = toJson(resolution, skipped);
      stages.ifPresent(s -> out.put("stages", stagesJson(s)));
      printJson(c, out);
    } else {
      c.console().line(GithubFormats.summaryLine(run, skipped));
    }
    return 0;
  }


  /** The runner's event payload, read and parsed at most once and only when a value is taken from it. */
  private static final class Payload {
    private final CiPolicyCli cli;
    private final Optional<String> path;
    private final String event;
    private @Nullable Optional<GithubEvent> parsed;

    Payload(CiPolicyCli cli, Optional<String> path, String event) {
      this.cli = cli;
      this.path = path;
      this.event = event;
    }

    Optional<GithubEvent> get() {
      Optional<GithubEvent> p = parsed;
      if (p == null) {
        p = path.map(f -> GithubEvent.parse(f,
            Inputs.readText(cli.resolvePath(f), "GitHub event payload", Inputs.MAX_EVENT_BYTES), event));
        parsed = p;
      }
      return p;
    }
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
    List<Object> ws = new ArrayList<>();
    for (Warning w : resolution.warnings()) {
      Map<String, Object> wm = new LinkedHashMap<>();
      wm.put("code", w.code());
      wm.put("message", w.message());
      ws.add(wm);
    }
    m.put("warnings", ws);
    m.put("explanation", resolution.explanation().toMap());
    return m;
  }
}
