package dev.cipolicy.gate;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidGateException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The call a test host makes after each test file (the seed's {@code run_gate_hook}): evaluates the
 * file's gates and, in a baseline-writing run, writes one baseline run; in any other run it only reports.
 * It never throws and never touches the test's result — it does not even see it: every failure inside
 * (an invalid declaration, an unreadable record, a failing store, an {@link Error}) comes back as a
 * {@link HookOutcome} value.
 *
 * <pre>{@code
 * GateHook hook = GateHook.of(store, GateEvaluator.of(GateOptions.defaults()), Clock.systemUTC());
 * HookOutcome out = hook.run(HookRequest.builder().series(series).addAllDeclarations(declared)
 *     .addAllDefaults(policy.gateDefaults()).record(() -> readRecord(path))
 *     .mode(writeBaseline ? GateMode.BASELINE : GateMode.SHADOW).provenance(provenance).build());
 * out.log().forEach(logger::info);
 * }</pre>
 */
public final class GateHook {
  private final MetricHistoryStore store;
  private final GateEvaluator evaluator;
  private final Clock clock;

  private GateHook(MetricHistoryStore store, GateEvaluator evaluator, Clock clock) {
    this.store = store;
    this.evaluator = evaluator;
    this.clock = clock;
  }

  /**
   * A hook over a store.
   *
   * @param store where history is read and baselines written
   * @param evaluator how gates are judged
   * @param clock when a baseline run is stamped
   * @return the hook
   */
  public static GateHook of(MetricHistoryStore store, GateEvaluator evaluator, Clock clock) {
    return new GateHook(store, evaluator, clock);
  }

  /**
   * Runs the gate for one test file. Never throws.
   *
   * @param request the series, declarations, record, mode and provenance
   * @return what happened
   */
  public HookOutcome run(HookRequest request) {
    String file = describe(request);
    GateMode mode = request == null || request.mode() == null ? GateMode.SHADOW : request.mode();
    try {
      return runUnguarded(request, mode);
    } catch (Throwable t) { // the gate must never fail the host, whatever happens inside it
      String failure = t.getClass().getSimpleName() + ": " + t.getMessage();
      String line = "[CI Gate] hook failed for " + file + ": " + failure;
      return new HookOutcome(HookAction.FAILED, mode, Optional.empty(), Optional.empty(), 0, 0, line, "",
          List.of(line), Optional.of(failure));
    }
  }

  private static String describe(HookRequest request) {
    try {
      return request.series().testPath();
    } catch (RuntimeException e) {
      return "<unknown test>";
    }
  }

  private HookOutcome runUnguarded(HookRequest request, GateMode mode) {
    String file = request.series().testPath();
    List<GateSpec> specs;
    try {
      specs = Gates.resolve(request.declarations(), request.defaults());
    } catch (InvalidGateException e) {
      String line = "[CI Gate] hook failed for " + file + ": " + e.getMessage();
      return new HookOutcome(HookAction.FAILED, mode, Optional.empty(), Optional.empty(), 0, 0, line, "",
          List.of(line), Optional.of(e.getMessage()));
    }
    if (specs.isEmpty()) {
      String line = "[CI Gate][" + mode.tag() + "] " + file + ": no gate declared"
          + (mode == GateMode.BASELINE ? "; skipping write" : "");
      return new HookOutcome(HookAction.NO_GATE_DECLARED, mode, Optional.empty(), Optional.empty(), 0, 0, line,
          "", List.of(line), Optional.empty());
    }
    MetricRecord record;
    try {
      record = request.record().read();
    } catch (Exception e) {
      record = MetricRecord.unreadable(e instanceof CiPolicyException c ? c.getMessage()
          : e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    if (record == null) {
      record = MetricRecord.unreadable("the record source returned nothing");
    }
    GateResult result = evaluator.evaluate(request.series(), specs, record, store);
    String verdictLine = GateReport.verdictLine(mode, result);
    String summary = GateReport.stepSummary(mode, result, MarkdownLimit.STEP_SUMMARY);
    List<String> log = new ArrayList<>();
    if (mode == GateMode.SHADOW) {
      log.add(verdictLine);
      for (CoordinateVerdict v : result.verdicts()) {
        log.add("  - " + v.metricKey() + " (step=" + v.stepLabel() + "): " + v.status() + ": " + v.reason());
      }
      return new HookOutcome(HookAction.SHADOW_REPORTED, mode, Optional.of(result), Optional.empty(), 0, 0,
          verdictLine, summary, log, Optional.empty());
    }
    Instant now = clock.instant();
    WritePlan plan = evaluator.writePlan(result, request.provenance(), now);
    if (plan instanceof WritePlan.Reject r) {
      String line = "[CI Gate][baseline] " + file + ": rejected: " + r.reason();
      return new HookOutcome(HookAction.REJECTED, mode, Optional.of(result), Optional.empty(), 0, 0, verdictLine,
          summary, List.of(line), Optional.of(r.reason()));
    }
    RunRecord run = ((WritePlan.Write) plan).run();
    WriteResult written = store.write(run);
    RunId id = written.runId();
    if (written.duplicate()) {
      String line = "[CI Gate][baseline] " + file + ": baseline already written by "
          + written.duplicateOf().orElseThrow() + " (run " + id + "); nothing new written";
      return new HookOutcome(HookAction.DUPLICATE_WRITE, mode, Optional.of(result), Optional.of(id), 0, 0,
          verdictLine, summary, List.of(line), Optional.empty());
    }
    log.add("[CI Gate][baseline] " + file + ": wrote baseline");
    int accepted = 0;
    Optional<String> failure = Optional.empty();
    if (request.acceptLevelShifts()) {
      for (LevelShiftProposal p : result.proposals()) {
        List<RunId> runs = new ArrayList<>(p.storedRuns());
        runs.add(0, id);
        try {
          store.acceptLevelShift(request.series(), p.coordinate(), runs);
          accepted++;
          log.add("[CI Gate][baseline] " + file + ": accepted a level shift of " + p.coordinate().metricKey()
              + " step " + p.coordinate().stepLabel());
        } catch (RuntimeException e) {
          failure = Optional.of(e.getClass().getSimpleName() + ": " + e.getMessage());
          log.add("[CI Gate] level shift not accepted for " + file + ": " + failure.get());
        }
      }
    }
    return new HookOutcome(HookAction.WROTE_BASELINE, mode, Optional.of(result), Optional.of(id),
        run.samples().size(), accepted, verdictLine, summary, log, failure);
  }
}
