package dev.cipolicy.gate;

import static dev.cipolicy.gate.Fixtures.GRAD_ALL;
import static dev.cipolicy.gate.Fixtures.SERIES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.gate.GateSteps;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import java.io.IOException;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The host hook: baseline-writing and shadow modes, and failures reported as values. */
class GateHookTest {
  private static final Clock CLOCK = Clock.fixed(Fixtures.T0, ZoneOffset.UTC);
  private static final List<GateDeclaration> DECLARED = List.of(GateDeclaration.builder().metricKey("train/grad_norm")
      .build());
  private final InMemoryMetricHistoryStore store = new InMemoryMetricHistoryStore();

  private HookOutcome run(MetricHistoryStore s, List<GateDeclaration> declared, RecordSource record, GateMode mode) {
    return GateHook.of(s, GateEvaluator.of(GateOptions.reference()), CLOCK).run(HookRequest.builder()
        .series(SERIES).addAllDeclarations(declared).addAllDefaults(Gates.referenceDefaults()).record(record).mode(mode)
        .provenance(Provenance.of("9001", "abc123", "nightly")).build());
  }

  @Test
  void aBaselineRunWritesOneSamplePerCoordinate() {
    HookOutcome o = run(store, DECLARED, () -> Fixtures.record("train/grad_norm", 1, 2, 3), GateMode.BASELINE);
    assertThat(o.action()).isEqualTo(HookAction.WROTE_BASELINE);
    assertThat(o.runId()).hasValue(new RunId(1));
    assertThat(o.samplesWritten()).isEqualTo(3);
    assertThat(o.log()).containsExactly("[CI Gate][baseline] tests/e2e/test_fsdp_short.py: wrote baseline");
    InMemoryMetricHistoryStore.StoredRun run = store.snapshot().runs().get(0);
    assertThat(run.run().createdAt()).isEqualTo(Fixtures.T0);
    assertThat(run.run().trusted()).isTrue();
    assertThat(run.run().provenance()).isEqualTo(Provenance.of("9001", "abc123", "nightly"));
  }

  @Test
  void aRetriedBaselineWriteOfTheSameCiRunStoresNothingNew() {
    Provenance identified = Provenance.of(CiRunIdentity.of("acme/train", "9001", 1), "abc123", "nightly");
    HookRequest request = HookRequest.builder().series(SERIES).addAllDeclarations(DECLARED)
        .addAllDefaults(Gates.referenceDefaults()).record(() -> Fixtures.record("train/grad_norm", 1, 2, 3))
        .mode(GateMode.BASELINE).provenance(identified).build();
    GateHook hook = GateHook.of(store, GateEvaluator.of(GateOptions.reference()), CLOCK);
    assertThat(hook.run(request).action()).isEqualTo(HookAction.WROTE_BASELINE);
    HookOutcome again = hook.run(request);
    assertThat(again.action()).isEqualTo(HookAction.DUPLICATE_WRITE);
    assertThat(again.runId()).hasValue(new RunId(1));
    assertThat(again.samplesWritten()).isZero();
    assertThat(again.log()).containsExactly("[CI Gate][baseline] tests/e2e/test_fsdp_short.py: baseline already"
        + " written by CI run acme/train#9001 attempt 1 (run 1); nothing new written");
    assertThat(store.snapshot().runs()).hasSize(1);
  }

  @Test
  void aBaselineRunWithoutGatesWritesNothing() {
    HookOutcome o = run(store, List.of(), () -> Fixtures.record("train/grad_norm", 1), GateMode.BASELINE);
    assertThat(o.action()).isEqualTo(HookAction.NO_GATE_DECLARED);
    assertThat(o.log()).containsExactly(
        "[CI Gate][baseline] tests/e2e/test_fsdp_short.py: no gate declared; skipping write");
    assertThat(store.snapshot().runs()).isEmpty();
  }

  @Test
  void aShadowRunReportsAndNeverWrites() {
    Fixtures.write(store, SERIES, List.of(Coordinate.of(GRAD_ALL, 0), Coordinate.of(GRAD_ALL, 1)), 0, 1, 1);
    HookOutcome o = run(store, DECLARED, () -> Fixtures.record("train/grad_norm", 1.2, 7), GateMode.SHADOW);
    assertThat(o.action()).isEqualTo(HookAction.SHADOW_REPORTED);
    assertThat(o.verdictLine()).isEqualTo("[CI Gate][shadow] tests/e2e/test_fsdp_short.py: FAIL (2 coordinates:"
        + " 1 PASS, 1 FAIL; 1 regression; run untrusted)");
    assertThat(o.log()).containsExactly(o.verdictLine(),
        "  - train/grad_norm (step=0): PASS: 1.2 is within [0.2, 1.5]",
        "  - train/grad_norm (step=1): FAIL: 7 is above the upper limit 1.5 by 5.5 (regression)");
    assertThat(o.stepSummary()).startsWith("### CI Gate (shadow): `tests/e2e/test_fsdp_short.py` — FAIL\n");
    assertThat(store.snapshot().runs()).hasSize(2);
  }

  @Test
  void theOutcomeSaysWhetherTheHostsBlockingPolicyFailsTheRun() {
    Fixtures.write(store, SERIES, List.of(Coordinate.of(GRAD_ALL, 0), Coordinate.of(GRAD_ALL, 1)), 0, 1, 1);
    // step 0 passes, step 1 regresses (7 is above the upper limit), step 2 is missing from the baseline: INACTIVE
    HookOutcome regressed = run(store, DECLARED, () -> Fixtures.record("train/grad_norm", 1.2, 7), GateMode.SHADOW);
    assertThat(regressed.findings()).extracting(CoordinateVerdict::stepLabel).containsExactly("1");
    assertThat(regressed.findings().get(0).band()).hasValue("[0.2, 1.5]");
    assertThat(regressed.shouldFail(FailOn.NEVER)).isFalse();
    assertThat(regressed.shouldFail(FailOn.REGRESSION)).isTrue();
    assertThat(regressed.shouldFail(FailOn.ERROR)).isTrue();
    // a better value out of band is an anomalous improvement: reported, never blocking
    HookOutcome improved = run(store, DECLARED, () -> Fixtures.record("train/grad_norm", 1.2, 0.01), GateMode.SHADOW);
    assertThat(improved.result().orElseThrow().verdicts().get(1).finding()).isEqualTo(Finding.ANOMALOUS_IMPROVEMENT);
    assertThat(improved.findings()).isEmpty();
    assertThat(improved.shouldFail(FailOn.ERROR)).isFalse();
    // an unreadable record: ERROR verdicts block under error only
    HookOutcome unreadable = run(store, DECLARED, () -> {
      throw new IOException("no such file");
    }, GateMode.SHADOW);
    assertThat(unreadable.findings()).hasSize(1);
    assertThat(unreadable.findings().get(0).band()).isEmpty();
    assertThat(unreadable.shouldFail(FailOn.REGRESSION)).isFalse();
    assertThat(unreadable.shouldFail(FailOn.ERROR)).isTrue();
    assertThat(unreadable.blocking(FailOn.ERROR)).isEqualTo(unreadable.findings());
    // a failure inside the gate has no verdicts and never blocks
    HookOutcome failed = run(new BrokenStore(), DECLARED, () -> Fixtures.record("train/grad_norm", 1), GateMode.SHADOW);
    assertThat(failed.action()).isEqualTo(HookAction.FAILED);
    assertThat(failed.shouldFail(FailOn.ERROR)).isFalse();
    assertThat(FailOn.named("regression")).hasValue(FailOn.REGRESSION);
    assertThat(FailOn.named("Regression")).isEmpty();
  }

  @Test
  void anUnreadableRecordIsReportedAsErrors() {
    HookOutcome o = run(store, DECLARED, () -> {
      throw new IOException("no such file");
    }, GateMode.SHADOW);
    assertThat(o.action()).isEqualTo(HookAction.SHADOW_REPORTED);
    assertThat(o.log()).contains("  - train/grad_norm (step=-): ERROR: the record is unreadable: IOException: no such"
        + " file");
  }

  @Test
  void invalidDeclarationsAreReportedNotThrown() {
    GateDeclaration bad = GateDeclaration.builder().metricKey("m").steps(GateSteps.all())
        .constraint(GateConstraint.builder().relUp(-1).relDown(1).build()).build();
    HookOutcome o = run(store, List.of(bad), () -> Fixtures.record("m", 1), GateMode.BASELINE);
    assertThat(o.action()).isEqualTo(HookAction.FAILED);
    assertThat(o.failure()).hasValue("Invalid gate declarations: gates[0].constraint.rel_up: rel_up must be >= 0,"
        + " got -1");
    assertThat(store.snapshot().runs()).isEmpty();
  }

  @Test
  void aFailingStoreIsReportedNotThrown() {
    MetricHistoryStore broken = new BrokenStore();
    HookOutcome o = run(broken, DECLARED, () -> Fixtures.record("train/grad_norm", 1), GateMode.BASELINE);
    assertThat(o.action()).isEqualTo(HookAction.FAILED);
    assertThat(o.log()).containsExactly("[CI Gate] hook failed for tests/e2e/test_fsdp_short.py: "
        + "IllegalStateException: database is down");
  }

  @Test
  void evenAnErrorInsideIsReportedNotThrown() {
    HookOutcome o = run(store, DECLARED, () -> {
      throw new StackOverflowError("deep");
    }, GateMode.SHADOW);
    assertThat(o.action()).isEqualTo(HookAction.FAILED);
    assertThat(o.failure()).hasValue("StackOverflowError: deep");
    assertThat(GateHook.of(store, GateEvaluator.of(GateOptions.defaults()), CLOCK).run(null).action())
        .isEqualTo(HookAction.FAILED);
  }

  /** A store whose every call fails. */
  static final class BrokenStore implements MetricHistoryStore {
    @Override
    public Map<Coordinate, CoordinateHistory> read(SeriesKey series, Set<Coordinate> coordinates, int trustedLimit,
        int recentLimit) {
      throw new IllegalStateException("database is down");
    }

    @Override
    public WriteResult write(RunRecord run) {
      throw new IllegalStateException("database is down");
    }

    @Override
    public RevocationResult revoke(Revocation revocation) {
      throw new IllegalStateException("database is down");
    }

    @Override
    public int acceptLevelShift(SeriesKey series, Coordinate coordinate, List<RunId> runs) {
      throw new IllegalStateException("database is down");
    }

    @Override
    public List<HistorySample> history(SeriesKey series, Coordinate coordinate) {
      throw new IllegalStateException("database is down");
    }

    @Override
    public List<Coordinate> coordinates(SeriesKey series) {
      throw new IllegalStateException("database is down");
    }
  }
}
