package dev.cipolicy.cli;

import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.suite.SkippedTest;
import dev.cipolicy.api.suite.SuiteRunPlan;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ci-policy plan-suite}: which tests of a suite (or shard) run, in which order, with which timeouts. */
@Command(
    name = "plan-suite",
    mixinStandardHelpOptions = true,
    description = "Plans one suite run: enabled tests in run order, skipped tests, timeouts, continue-on-error.")
final class PlanSuiteCommand extends PolicyCommand {
  @Option(names = "--registrations", required = true, paramLabel = "FILE", description = "The registration manifest.")
  private @Nullable String registrations;

  @Option(names = "--hw", required = true, paramLabel = "BACKEND", description = "The backend: cpu, cuda, rocm...")
  private @Nullable String hw;

  @Option(names = "--suite", required = true, paramLabel = "SUITE", description = "The suite (stage).")
  private @Nullable String suite;

  @Option(names = "--cadence", defaultValue = "regular", paramLabel = "CADENCE", description = "The cadence (default: ${DEFAULT-VALUE}).")
  private String cadence = "regular";

  @Option(names = "--labels", arity = "0..*", paramLabel = "RAW", description = "Raw labels, e.g. the resolve step's raw_labels.")
  private List<String> labels = new ArrayList<>();

  @Option(names = "--match-all-labels", description = "Manual dispatch: GPU stages match every known label.")
  private boolean matchAllLabels;

  @Option(names = "--partition-id", paramLabel = "I", description = "The shard to plan (0-based).")
  private @Nullable Integer partitionId;

  @Option(names = "--partition-size", paramLabel = "N", description = "The number of shards.")
  private @Nullable Integer partitionSize;

  @Option(names = "--json", description = "Print one JSON object.")
  private boolean json;

  @Override
  int run(CiPolicyCli c, LoadedPolicy loaded) throws IOException {
    if ((partitionId == null) != (partitionSize == null)) {
      throw new Inputs.InputException("--partition-id and --partition-size go together");
    }
    SuiteRegistry registry = Inputs.loadRegistry(c, loaded, Objects.requireNonNull(registrations));
    List<String> raw = new ArrayList<>();
    labels.forEach(l -> raw.addAll(List.of(l.trim().split("\\s+"))));
    raw.removeIf(String::isEmpty);
    RunPolicy run = loaded.resolver().resolveCadence(cadence, raw);
    Optional<SuiteRunPlan.Shard> shard = partitionId == null ? Optional.empty()
        : Optional.of(new SuiteRunPlan.Shard(partitionId, Objects.requireNonNull(partitionSize)));
    SuiteRunPlan plan = registry.plan(Objects.requireNonNull(hw), Objects.requireNonNull(suite), run,
        matchAllLabels, shard);
    if (json) {
      printJson(c, toJson(plan));
    } else {
      c.console().line("Policy: " + plan.policyLine());
      c.console().line(plan.message());
      for (String f : plan.enabled()) {
        c.console().line("  run  " + f + " (timeout " + plan.timeouts().get(f) + " s)");
      }
      for (SkippedTest s : plan.skipped()) {
        c.console().line("  skip " + s.file() + ": " + s.reason());
      }
      c.console().line("continue_on_error=" + plan.continueOnError() + " max_parallel=" + plan.maxParallel());
    }
    return 0;
  }


  static Map<String, Object> toJson(SuiteRunPlan plan) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("backend", plan.backend());
    m.put("suite", plan.suite());
    m.put("policy", plan.policyLine());
    plan.shard().ifPresent(s -> {
      Map<String, Object> sm = new LinkedHashMap<>();
      sm.put("id", s.rank());
      sm.put("size", s.size());
      m.put("shard", sm);
    });
    m.put("enabled", plan.enabled());
    List<Object> skipped = new ArrayList<>();
    for (SkippedTest s : plan.skipped()) {
      Map<String, Object> sm = new LinkedHashMap<>();
      sm.put("file", s.file());
      sm.put("reason", s.reason());
      skipped.add(sm);
    }
    m.put("skipped", skipped);
    m.put("continue_on_error", plan.continueOnError());
    m.put("est_total_seconds", plan.estTotalSeconds());
    m.put("timeouts", plan.timeouts());
    m.put("max_parallel", plan.maxParallel());
    m.put("message", plan.message());
    return m;
  }
}
