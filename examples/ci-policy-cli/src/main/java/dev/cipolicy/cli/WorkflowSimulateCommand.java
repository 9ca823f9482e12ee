package dev.cipolicy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.policy.WorkflowRoles;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.core.StageSelector;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.workflow.load.WorkflowLoader;
import dev.cipolicy.workflow.Event;
import dev.cipolicy.workflow.ExprValue;
import dev.cipolicy.workflow.InjectedResult;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.JobOutcome;
import dev.cipolicy.workflow.Scenario;
import dev.cipolicy.workflow.Simulation;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.WorkflowSimulator;
import dev.cipolicy.workflow.WorkflowWarning;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy workflow simulate}: reads a workflow file and says, for a hypothetical run, which jobs
 * run and why — one line per job in file order, {@code job: result (reason)}, or with {@code --json}
 * {@code {"jobs":[{"job":ID,"result":R,"reason":TEXT},...]}}. A {@code --result} applies when that job
 * runs; a job that runs without one succeeds. {@code --exhaustive} simulates every failure subset of the
 * jobs that can fail (a job pinned by {@code --result} is not varied), at most
 * {@link WorkflowSimulator#MAX_EXHAUSTIVE_OUTCOMES} job outcomes. With {@code --policy}, the policy job the
 * policy's {@code workflows.<name>.roles} names for this file gets the outputs {@code ci-policy resolve} would
 * write for the scenario's event (cadence, labels, bypass, and with {@code --registrations} the skipped stages);
 * an {@code --output} still wins. Exit 0; 1 for an input error (a workflow that does not load, an unknown job,
 * a malformed flag value), as {@code ::error ...::} lines; 2 for a usage error.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description = "Simulates a run of a workflow: every job's result and the rule that decides it.")
final class WorkflowSimulateCommand implements Callable<Integer> {
  @ParentCommand
  private @Nullable WorkflowCommand parent;

  @Option(names = "--workflow", required = true, paramLabel = "FILE", description = "The workflow file (YAML).")
  private @Nullable String workflow;

  @Option(names = "--event", required = true, paramLabel = "NAME",
      description = "The event's name, e.g. pull_request, schedule, workflow_dispatch.")
  private @Nullable String event;

  @Option(names = "--action", paramLabel = "A", description = "The event's activity type, e.g. labeled, closed.")
  private @Nullable String action;

  @Option(names = "--schedule", paramLabel = "CRON", description = "The cron of a schedule event.")
  private @Nullable String schedule;

  @Option(names = "--label", paramLabel = "L", description = "A label of the pull request (repeatable).")
  private List<String> labels = new ArrayList<>();

  @Option(names = "--event-payload", paramLabel = "FILE",
      description = "The whole event payload (JSON): github.event; --action, --schedule and --label are then ignored.")
  private @Nullable String eventPayload;

  @Option(names = "--input", paramLabel = "K=V", description = "A workflow_dispatch / workflow_call input (repeatable).")
  private List<String> inputs = new ArrayList<>();

  @Option(names = "--output", paramLabel = "JOB.KEY=VALUE",
      description = "An output a job sets, needs.JOB.outputs.KEY (repeatable); an output not given is unknown.")
  private List<String> outputs = new ArrayList<>();

  @Option(names = "--result", paramLabel = "JOB=RESULT",
      description = "The result of a job when it runs: success, failure or cancelled (repeatable).")
  private List<String> results = new ArrayList<>();

  @Option(names = "--policy", paramLabel = "FILE",
      description = "The policy: its roles name the policy job, whose outputs are resolved for the event.")
  private @Nullable String policy;

  @Option(names = "--registrations", paramLabel = "FILE",
      description = "The test registrations, for the skipped stages output (needs --policy).")
  private @Nullable String registrations;

  @Option(names = "--exhaustive", description = "Simulate every failure subset of the jobs that can fail.")
  private boolean exhaustive;

  @Option(names = "--json", description = "Print JSON instead of one line per job.")
  private boolean json;

  @Override
  public Integer call() {
    CiPolicyCli c = Objects.requireNonNull(parent).cli();
    try {
      String file = Objects.requireNonNull(workflow);
      Path path = c.resolvePath(file);
      Path dir = path.toAbsolutePath().getParent();
      Workflow w = WorkflowLoader.load(file, WorkflowLintCommand.readRegular(path, "workflow file " + file),
          uses -> WorkflowLintCommand.localWorkflow(dir == null ? path : dir, Map.of(), uses));
      for (WorkflowWarning warning : w.warnings()) {
        Annotations.workflowWarning(c, file, warning);
      }
      if (registrations != null && policy == null) {
        throw new Inputs.InputException("--registrations needs --policy: registrations are read against a policy");
      }
      Scenario scenario = scenario(c, w, path);
      WorkflowSimulator simulator = WorkflowSimulator.of(w);
      if (exhaustive) {
        List<Simulation> all;
        try {
          all = simulator.exhaustive(scenario);
        } catch (InvalidInputException e) {
          throw new Inputs.InputException(e.getMessage() + " (--result JOB=success pins a job; --event, --action,"
              + " --label and --input choose the event)");
        }
        if (json) {
          List<Object> list = new ArrayList<>();
          for (Simulation s : all) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("scenario", describe(w, s.scenario()));
            one.put("jobs", jobs(s));
            list.add(one);
          }
          PolicyCommand.printJson(c, Map.of("scenarios", list));
        } else {
          for (int i = 0; i < all.size(); i++) {
            Simulation s = all.get(i);
            c.console().line("scenario " + (i + 1) + " of " + all.size() + ": " + headline(w, s.scenario()));
            for (JobOutcome o : s.jobs()) {
              c.console().line("  " + line(o));
            }
          }
        }
        return 0;
      }
      Simulation s = simulator.simulate(scenario);
      if (json) {
        PolicyCommand.printJson(c, Map.of("jobs", jobs(s)));
      } else {
        for (JobOutcome o : s.jobs()) {
          c.console().line(line(o));
        }
      }
      return 0;
    } catch (CiPolicyException e) {
      Annotations.report(c, e);
      return CiPolicyCli.EXIT_ERROR;
    } catch (IOException e) {
      c.console().error("cannot print JSON: " + Inputs.describe(e));
      return CiPolicyCli.EXIT_ERROR;
    }
  }

  /** {@code job: result (why)}: the reason without its leading {@code result: }. */
  static String line(JobOutcome o) {
    String word = o.result().word();
    String why = o.reason().startsWith(word + ": ") ? o.reason().substring(word.length() + 2) : o.reason();
    return o.job() + ": " + word + " (" + why + ")";
  }

  private static List<Object> jobs(Simulation s) {
    List<Object> out = new ArrayList<>();
    for (JobOutcome o : s.jobs()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("job", o.job());
      m.put("result", o.result().word());
      m.put("reason", o.reason());
      out.add(m);
    }
    return out;
  }

  /** The scenario of an exhaustive simulation: the event and the injected results in file order. */
  private static Map<String, Object> describe(Workflow w, Scenario s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("event", s.event().name());
    Map<String, String> r = new LinkedHashMap<>();
    for (Job j : w.jobs()) {
      InjectedResult x = s.results().get(j.id());
      if (x != null) {
        r.put(j.id(), x.word());
      }
    }
    m.put("results", r);
    return m;
  }

  private static String headline(Workflow w, Scenario s) {
    List<String> parts = new ArrayList<>();
    for (Job j : w.jobs()) {
      InjectedResult x = s.results().get(j.id());
      if (x != null) {
        parts.add(j.id() + "=" + x.word());
      }
    }
    return parts.isEmpty() ? "every job that runs succeeds" : String.join(", ", parts);
  }

  private Scenario scenario(CiPolicyCli c, Workflow w, Path path) {
    Map<String, String> in = new LinkedHashMap<>();
    for (String kv : inputs) {
      String[] p = split(kv, '=', "--input", "K=V");
      in.put(p[0], p[1]);
    }
    Optional<ExprValue> payload = Optional.empty();
    Optional<String> payloadText = Optional.empty();
    if (eventPayload != null) {
      String text = Inputs.readText(c.resolvePath(eventPayload), "event file", Inputs.MAX_EVENT_BYTES);
      JsonNode node = Inputs.parseJson(eventPayload, text);
      payload = Optional.of(ExprValue.fromTree(PolicyCommand.JSON.convertValue(node, Object.class)));
      payloadText = Optional.of(text);
    }
    Event e = new Event(Objects.requireNonNull(event), Optional.ofNullable(action), Optional.ofNullable(schedule),
        in, labels, payload);
    Scenario s = Scenario.of(e);
    if (policy != null) {
      s = resolved(c, w, path, s, in, payloadText);
    }
    for (String o : outputs) {
      String[] kv = split(o, '=', "--output", "JOB.KEY=VALUE");
      String[] jk = split(kv[0], '.', "--output", "JOB.KEY=VALUE");
      job(w, jk[0], "--output " + o);
      s = s.withOutput(jk[0], jk[1], kv[1]);
    }
    for (String r : results) {
      String[] kv = split(r, '=', "--result", "JOB=success|failure|cancelled");
      job(w, kv[0], "--result " + r);
      InjectedResult x = switch (kv[1].toLowerCase(Locale.ROOT)) {
        case "success" -> InjectedResult.SUCCESS;
        case "failure" -> InjectedResult.FAILURE;
        case "cancelled" -> InjectedResult.CANCELLED;
        default -> throw new Inputs.InputException("--result " + r + ": unknown result '" + kv[1]
            + "'; expected success, failure or cancelled");
      };
      s = s.withResult(kv[0], x);
    }
    return s;
  }

  /**
   * The scenario with the policy job's outputs as {@code ci-policy resolve} writes them for the event: the
   * policy job and its output names from the roles the policy declares for this workflow file.
   */
  private Scenario resolved(CiPolicyCli c, Workflow w, Path path, Scenario s, Map<String, String> in,
      Optional<String> payloadText) {
    LoadedPolicy loaded = Inputs.loadPolicy(c, Objects.requireNonNull(policy));
    Path name = path.getFileName();
    String file = name == null ? w.file() : name.toString();
    WorkflowRoles roles = loaded.policy().workflowRoles().stream().filter(r -> r.file().equals(file)).findFirst()
        .orElseThrow(() -> new Inputs.InputException("--policy " + policy + " declares no workflows.<name>.roles"
            + " with file: " + file + ", so which job resolves the policy is not known; add roles (file, policy_job)"
            + " for it, or pass the outputs with --output"));
    job(w, roles.policyJob(), "--policy " + policy + " (roles.policy_job)");
    String name0 = Objects.requireNonNull(event);
    Optional<GithubEvent> fromPayload = payloadText.map(t -> GithubEvent.parse(Objects.requireNonNull(eventPayload),
        t, name0));
    TriggerInput.Builder input = TriggerInput.builder().eventName(name0);
    Optional<String> cron = fromPayload.isPresent() ? fromPayload.get().schedule() : Optional.ofNullable(schedule);
    cron.ifPresent(input::schedule);
    Optional<String> cadence = Optional.ofNullable(in.get("cadence")).filter(x -> !x.isEmpty());
    if (name0.equals("workflow_dispatch")) {
      (fromPayload.isPresent() ? fromPayload.get().dispatchCadence() : cadence).ifPresent(input::cadenceOverride);
    }
    if (loaded.resolver().readsPrLabels(input.build())) {
      input.prLabels(fromPayload.isPresent() ? fromPayload.get().prLabels().orElse(List.of()) : labels);
    }
    TriggerResolution resolution = loaded.resolver().resolve(input.build());
    List<String> skipped = List.of();
    if (registrations != null) {
      SuiteRegistry registry = Inputs.loadRegistry(c, loaded, registrations);
      skipped = StageSelector.of(registry).select(resolution, Optional.empty()).skippedStages();
    }
    RunPolicy run = resolution.runPolicy();
    String p = roles.policyJob();
    return s.withOutput(p, roles.cadenceOutput(), run.cadence())
        .withOutput(p, roles.labelsOutput(), String.join(" ", run.rawLabels()))
        .withOutput(p, roles.bypassOutput(), String.valueOf(run.bypassFastfail()))
        .withOutput(p, roles.skippedStagesOutput(), GithubFormats.sortedArray(skipped));
  }

  private static void job(Workflow w, String id, String flag) {
    if (w.job(id).isEmpty()) {
      throw new Inputs.InputException(flag + ": no job '" + id + "' in " + w.file() + "; expected one of "
          + w.jobs().stream().map(Job::id).toList());
    }
  }

  private static String[] split(String value, char at, String flag, String form) {
    int i = value.indexOf(at);
    if (i <= 0) {
      throw new Inputs.InputException(flag + " " + value + ": expected " + form);
    }
    return new String[] {value.substring(0, i), value.substring(i + 1)};
  }
}
