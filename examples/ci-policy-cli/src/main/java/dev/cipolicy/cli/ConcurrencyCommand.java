package dev.cipolicy.cli;

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
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ci-policy concurrency}: what an event does to the runs in flight. Prints one line per
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
final class ConcurrencyCommand extends PolicyCommand {
  @Option(names = "--event-json", required = true, paramLabel = "FILE", description = "The event, a JSON object.")
  private @Nullable String eventJson;

  @Option(names = "--in-flight-json", required = true, paramLabel = "FILE",
      description = "The queued and running runs, a JSON array.")
  private @Nullable String inFlightJson;

  @Option(names = "--json", description = "Print one JSON object instead of one line per run.")
  private boolean json;

  @Override
  int run(CiPolicyCli c, LoadedPolicy loaded) throws IOException {
    String eventFile = Objects.requireNonNull(eventJson);
    String runsFile = Objects.requireNonNull(inFlightJson);
    ConcurrencyEvent event = ConcurrencyJson.event(eventFile,
        Inputs.readText(c.resolvePath(eventFile), "event file", Inputs.MAX_EVENT_BYTES));
    List<InFlightRun> runs = ConcurrencyJson.inFlight(runsFile,
        Inputs.readText(c.resolvePath(runsFile), "in-flight file", Inputs.MAX_IN_FLIGHT_BYTES));
    ConcurrencyDecision decision = ConcurrencyPolicy.of(loaded.resolver()).decide(event, runs);
    if (json) {
      printJson(c, toJson(decision));
    } else {
      for (RunDecision r : decision.runs()) {
        c.console().line(r.action().documentName() + " " + r.runId() + ": " + r.reason());
      }
      c.console().line("new run " + decision.newRun().documentName() + " in group '" + decision.groupKey() + "'");
    }
    return 0;
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
