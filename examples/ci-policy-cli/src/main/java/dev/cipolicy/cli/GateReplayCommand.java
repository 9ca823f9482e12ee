package dev.cipolicy.cli;

import dev.cipolicy.api.CanonicalJson;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.core.load.GateDeclarationsLoader;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.GateModel;
import dev.cipolicy.gate.GateRule;
import dev.cipolicy.gate.GateSpec;
import dev.cipolicy.gate.Gates;
import dev.cipolicy.gate.MetricHistoryStore;
import dev.cipolicy.gate.Replay;
import dev.cipolicy.gate.ReplayReport;
import dev.cipolicy.gate.SeriesKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ci-policy gate-replay}: backtests a rule for one metric over the stored history of a series, step
 * by step, and prints the would-be alerts. The rule's gate is the test's declaration of the metric in
 * {@code --gates}, else the policy's default; every stored coordinate of the metric is replayed, whatever
 * steps and constraint it was stored under, so a new constraint can be tried on old values.
 */
@Command(
    name = "gate-replay",
    mixinStandardHelpOptions = true,
    description = "Backtests a gate rule over stored history and prints the would-be alerts.")
final class GateReplayCommand extends PolicyCommand {

  @Mixin
  private HistoryStoreOptions historyStore = new HistoryStoreOptions();

  @Option(names = "--test-file", required = true, paramLabel = "PATH", description = "The test file.")
  private @Nullable String testFile;

  @Option(names = "--metric", required = true, paramLabel = "KEY", description = "The metric to replay.")
  private @Nullable String metric;

  @Option(names = "--gates", paramLabel = "FILE", description = "Gate declarations per test file.")
  private @Nullable String gates;

  @Option(names = "--hw", paramLabel = "BACKEND", description = "The backend of the series.")
  private @Nullable String hw;

  @Option(names = "--suite", paramLabel = "SUITE", description = "The suite of the series.")
  private @Nullable String suite;

  @Option(names = "--registrations", paramLabel = "FILE", description = "The registration manifest.")
  private @Nullable String registrations;

  @Option(names = "--model", defaultValue = "band", paramLabel = "MODEL", description = "The model to backtest.")
  private String model = "band";

  @Option(names = "--level-shift-after", defaultValue = "0", paramLabel = "K",
      description = "Agreeing out-of-band values that propose a level shift; 0 (default) is off.")
  private int levelShiftAfter;

  @Option(names = "--accept-level-shifts", description = "Accept every proposed level shift, as an operator would.")
  private boolean acceptLevelShifts;

  @Option(names = "--json", description = "Print one JSON object.")
  private boolean json;

  @Override
  int run(CiPolicyCli c, LoadedPolicy loaded) throws IOException {
    String test = Objects.requireNonNull(testFile);
    String key = Objects.requireNonNull(metric);
    SeriesKey series = GateCommand.series(c, loaded, test, hw, suite, registrations);
    GateDeclaration declared = GateDeclaration.builder().metricKey(key).build();
    if (gates != null) {
      declared = GateDeclarationsLoader.load(gates, Inputs.readText(c.resolvePath(gates), "gates file", Inputs.MAX_DOCUMENT_BYTES))
          .getOrDefault(test, List.of()).stream().filter(d -> d.metricKey().equals(key)).findFirst().orElse(declared);
    }
    GateSpec spec = Gates.resolve(List.of(declared), loaded.policy().gateDefaults()).get(0);
    if (levelShiftAfter < 0 || levelShiftAfter == 1) {
      throw new Inputs.InputException("--level-shift-after must be 0 (off) or at least 2, got " + levelShiftAfter);
    }
    GateRule rule = new GateRule(spec, GateCommand.model(model), levelShiftAfter, acceptLevelShifts);
    MetricHistoryStore store = historyStore.open(c, true, false).store();
    List<Map<String, Object>> reports = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    lines.add("Replaying " + rule.model().name() + " on " + key + " (steps=" + spec.stepsKey() + " constraint="
        + spec.constraintKey() + ") over " + series);
    for (Coordinate coordinate : store.coordinates(series)) {
      if (!coordinate.metricKey().equals(key)) {
        continue;
      }
      ReplayReport r = Replay.replay(rule, store.history(series, coordinate));
      lines.add("  step " + coordinate.stepLabel() + " (stored as steps=" + coordinate.stepsKey() + "): "
          + r.evaluated() + " values, " + r.alerts().size() + " alert(s) ("
          + String.format(Locale.ROOT, "%.2f", 100 * r.alertRate()) + " %), " + r.shifts().size() + " level shift(s) proposed");
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("step", coordinate.step());
      m.put("stored_steps", coordinate.stepsKey());
      m.put("stored_constraint", coordinate.constraintKey());
      m.put("evaluated", r.evaluated());
      Map<String, Object> counts = new LinkedHashMap<>();
      r.counts().entrySet().stream().sorted(Map.Entry.comparingByKey())
          .forEach(e -> counts.put(e.getKey().name(), e.getValue()));
      m.put("counts", counts);
      List<Object> alerts = new ArrayList<>();
      for (ReplayReport.Alert a : r.alerts()) {
        lines.add("    alert: " + a.describe());
        Map<String, Object> am = new LinkedHashMap<>();
        am.put("index", a.index());
        am.put("run_id", a.runId().value());
        am.put("created_at", a.createdAt().toString());
        am.put("finding", a.finding().name());
        am.put("evidence", a.evidence().toMap());
        alerts.add(am);
      }
      for (ReplayReport.Shift s : r.shifts()) {
        lines.add("    level shift: " + s.describe());
      }
      m.put("alerts", alerts);
      m.put("level_shifts", r.shifts().size());
      reports.add(m);
    }
    if (reports.isEmpty()) {
      lines.add("  no stored history for " + key);
    }
    if (json) {
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("metric", key);
      root.put("model", rule.model().name());
      root.put("steps", spec.stepsKey());
      root.put("constraint", spec.constraintKey());
      root.put("coordinates", new ArrayList<Object>(reports));
      c.console().json(GateFiles.pretty(CanonicalJson.write(root)));
    } else {
      lines.forEach(c.console()::line);
    }
    return 0;
  }

}
