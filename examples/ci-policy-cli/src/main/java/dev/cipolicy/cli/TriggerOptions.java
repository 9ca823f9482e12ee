package dev.cipolicy.cli;

import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.core.StageSelector;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The inputs of one workflow run, shared by {@code resolve} and {@code explain}: the event, schedule, PR
 * labels, cadence override, diff and registrations, each from its flag or, when the flag is absent, from
 * the environment and the runner's event payload (see docs/cli-resolve.md). {@link #resolve} reads them in a fixed
 * order, so both commands fail on the same input with the same error.
 */
final class TriggerOptions {
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

  /**
   * A resolved run.
   *
   * @param event the trigger event name; empty when only a cadence override was given
   * @param resolution the cadence, run policy and explanation
   * @param stages the stage selection, when registrations were given
   * @param pullRequestEvent whether the event is a pull request (its stages are pruned by the diff)
   * @param diffGiven whether a diff file was read
   */
  record Trigger(String event, TriggerResolution resolution, Optional<StageSelection> stages,
      boolean pullRequestEvent, boolean diffGiven) {}

  /** The registrations flag, when given. */
  Optional<String> registrations() {
    return Optional.ofNullable(registrations);
  }

  /** Reads the inputs, resolves the run and, with registrations, selects its stages. */
  Trigger resolve(CiPolicyCli c, LoadedPolicy loaded) {
    Map<String, String> env = c.environment();
    // the flag even when empty, else a non-empty CADENCE_OVERRIDE, else a dispatch's inputs.cadence (below)
    Optional<String> override = cadenceOverride != null ? Optional.of(cadenceOverride)
        : Inputs.nonEmpty(env.get("CADENCE_OVERRIDE"));
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
    if (override.isEmpty() && event.equals("workflow_dispatch")) {
      override = payload.get().flatMap(GithubEvent::dispatchCadence);
    }
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
    Optional<StageSelection> stages = registry.map(r -> StageSelector.of(r).select(resolution, diff));
    return new Trigger(event, resolution, stages, pullRequestEvent, diff.isPresent());
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
}
