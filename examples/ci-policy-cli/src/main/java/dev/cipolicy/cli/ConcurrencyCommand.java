package dev.cipolicy.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.concurrency.ConcurrencyDecision;
import dev.cipolicy.api.concurrency.ConcurrencyEvent;
import dev.cipolicy.api.concurrency.InFlightRun;
import dev.cipolicy.api.concurrency.RunDecision;
import dev.cipolicy.core.ConcurrencyPolicy;
import dev.cipolicy.core.load.LoadedPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy concurrency}: what an event does to the runs in flight (SPEC §8). Prints one line per
 * in-flight run ({@code cancel <run_id>: <reason>} or {@code keep <run_id>: <reason>}) and the new run's
 * verdict, or with {@code --json} one object {@code {group_key, new_run, runs, explanation}}.
 */
@Command(
    name = "concurrency",
    mixinStandardHelpOptions = true,
    description = {
        "Decides which in-flight runs an event cancels and whether its own run starts, queues, only cancels"
            + " (closed/merged PRs) or is ignored.",
        "Event JSON: {\"type\":\"closed\",\"workflow\":\"pr-test\",\"pr_number\":123,\"run_id\":\"9000\","
            + "\"cron\":null,\"release_ref\":null,\"label\":null}.",
        "In-flight JSON: [{\"run_id\":\"1001\",\"workflow\":\"pr-test\",\"pr_number\":123,\"cron\":null,"
            + "\"release_ref\":null}, ...]."
    })
final class ConcurrencyCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @ParentCommand
  private @Nullable CiPolicyCli cli;

  @Option(names = "--policy", required = true, paramLabel = "FILE", description = "The policy document (YAML or JSON).")
  private @Nullable String policy;

  @Option(names = "--event-json", required = true, paramLabel = "FILE", description = "The event, a JSON object.")
  private @Nullable String eventJson;

  @Option(names = "--in-flight-json", required = true, paramLabel = "FILE",
      description = "The queued and running runs, a JSON array.")
  private @Nullable String inFlightJson;

  @Option(names = "--json", description = "Print one JSON object instead of one line per run.")
  private boolean json;

  @Override
  public Integer call() {
    CiPolicyCli c = Objects.requireNonNull(cli);
    try {
      LoadedPolicy loaded = Inputs.loadPolicy(c, Objects.requireNonNull(policy));
      String eventFile = Objects.requireNonNull(eventJson);
      String runsFile = Objects.requireNonNull(inFlightJson);
      ConcurrencyEvent event = ConcurrencyJson.event(eventFile,
          Inputs.readText(c.resolvePath(eventFile), "event file"));
      List<InFlightRun> runs = ConcurrencyJson.inFlight(runsFile,
          Inputs.readText(c.resolvePath(runsFile), "in-flight file"));
      ConcurrencyDecision decision = ConcurrencyPolicy.of(loaded.resolver()).decide(event, runs);
      if (json) {
        c.out().println(JSON.writeValueAsString(toJson(decision)));
      } else {
        for (RunDecision r : decision.runs()) {
          c.out().println(r.action().documentName() + " " + r.runId() + ": " + r.reason());
        }
        c.out().println("new run " + decision.newRun().documentName() + " in group '" + decision.groupKey() + "'");
      }
      return 0;
    } catch (CiPolicyException e) {
      c.err().println("::error::" + e.getMessage());
      return CiPolicyCli.EXIT_ERROR;
    } catch (IOException e) {
      c.err().println("::error::" + Inputs.describe(e));
      return CiPolicyCli.EXIT_ERROR;
    }
  }

  static Map<String, Object> toJson(ConcurrencyDecision decision) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("group_key", decision.groupKey());
    m.put("new_run", decision.newRun().documentName());
    List<Object> runs = new ArrayList<>();
    for (RunDecision r : decision.runs()) {
      Map<String, Object> rm = new LinkedHashMap<>();
      rm.put("run_id", r.runId());
      rm.put("action", r.action().documentName());
      rm.put("reason", r.reason());
      runs.add(rm);
    }
    m.put("runs", runs);
    m.put("explanation", decision.explanation().toMap());
    return m;
  }
}
