package dev.cipolicy.gate;

import static dev.cipolicy.gate.Fixtures.GRAD_ALL;
import static dev.cipolicy.gate.Fixtures.SERIES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Quarantine and confirmed level shift: out-of-band values stay out of the baseline; k agreeing ones
 * propose a new level; accepted, the baseline follows; not accepted, nothing leaks.
 */
class LevelShiftTest {
  private static final Coordinate G0 = Coordinate.of(GRAD_ALL, 0);
  private static final List<GateDeclaration> DECLARED = List.of(GRAD_ALL.declaration());
  private final InMemoryMetricHistoryStore store = Fixtures.storeWith(SERIES, List.of(G0), 1, 1, 1, 1, 1);
  private int minute = 100;

  private HookOutcome nightly(double value, boolean accept) {
    Clock clock = Clock.fixed(Fixtures.T0.plusSeconds(60L * minute++), ZoneOffset.UTC);
    GateHook hook = GateHook.of(store, GateEvaluator.of(GateOptions.defaults()), clock);
    return hook.run(HookRequest.builder().series(SERIES).addAllDeclarations(DECLARED)
        .record(() -> Fixtures.record("train/grad_norm", value)).mode(GateMode.BASELINE).acceptLevelShifts(accept)
        .build());
  }

  private CoordinateVerdict verdict(HookOutcome o) {
    return o.result().orElseThrow().verdicts().get(0);
  }

  @Test
  void consecutiveAgreeingOutOfBandValuesProposeANewLevel() {
    Quarantine q1 = verdict(nightly(2.0, false)).quarantine().orElseThrow();
    assertThat(q1.consecutive()).isEqualTo(1);
    assertThat(q1.proposal()).isEmpty();
    Quarantine q2 = verdict(nightly(2.1, false)).quarantine().orElseThrow();
    assertThat(q2.consecutive()).isEqualTo(2);
    CoordinateVerdict third = verdict(nightly(1.9, false));
    Quarantine q3 = third.quarantine().orElseThrow();
    assertThat(q3.consecutive()).isEqualTo(3);
    LevelShiftProposal p = q3.proposal().orElseThrow();
    assertThat(p.side()).isEqualTo(Limit.UPPER);
    assertThat(p.fromLevel()).isEqualTo(1);
    assertThat(p.toLevel()).isEqualTo((1.9 + 2.1 + 2.0) / 3);
    assertThat(p.storedRuns()).extracting(RunId::value).containsExactly(7L, 6L);
    assertThat(third.explanation().hints()).contains(
        "3 consecutive out-of-band values agree on a new level 2 (baseline 1); accept the level shift to move the baseline");
  }

  @Test
  void notAcceptedTheShiftNeverLeaksIntoTheBaseline() {
    for (int i = 0; i < 10; i++) {
      nightly(2.0, false);
    }
    CoordinateVerdict v = verdict(nightly(2.0, false));
    assertThat(v.status()).isEqualTo(GateStatus.FAIL);
    assertThat(v.evidence().orElseThrow().centre().getAsDouble()).isEqualTo(1);
    assertThat(v.evidence().orElseThrow().n()).isEqualTo(5);
  }

  @Test
  void acceptedTheBaselineFollowsTheNewLevel() {
    nightly(2.0, true);
    nightly(2.1, true);
    HookOutcome third = nightly(1.9, true);
    assertThat(third.levelShiftsAccepted()).isEqualTo(1);
    assertThat(third.log()).contains("[CI Gate][baseline] tests/e2e/test_fsdp_short.py: accepted a level shift of"
        + " train/grad_norm step 0");
    CoordinateVerdict next = verdict(nightly(2.0, true));
    assertThat(next.status()).isEqualTo(GateStatus.PASS);
    Evidence e = next.evidence().orElseThrow();
    assertThat(e.n()).isEqualTo(3); // the old level is no longer visible
    assertThat(e.centre().getAsDouble()).isEqualTo((2.0 + 2.1 + 1.9) / 3);
  }

  @Test
  void valuesOnBothSidesDoNotMakeAShift() {
    nightly(2.0, false);
    nightly(0.01, false);
    Quarantine q = verdict(nightly(2.0, false)).quarantine().orElseThrow();
    assertThat(q.consecutive()).isEqualTo(1);
  }

  @Test
  void scatteredOutOfBandValuesDoNotAgree() {
    nightly(2.0, false);
    nightly(9.0, false);
    Quarantine q = verdict(nightly(2.0, false)).quarantine().orElseThrow();
    assertThat(q.consecutive()).isEqualTo(3);
    assertThat(q.proposal()).isEmpty();
  }

  @Test
  void aTrustedValueBreaksTheStreak() {
    nightly(2.0, false);
    nightly(1.0, false);
    assertThat(verdict(nightly(2.0, false)).quarantine().orElseThrow().consecutive()).isEqualTo(1);
  }

  @Test
  void theReferenceOptionsHaveNoQuarantine() {
    GateResult r = GateEvaluator.of(GateOptions.reference()).evaluate(SERIES, List.of(GRAD_ALL),
        Fixtures.record("train/grad_norm", 5), store);
    assertThat(r.verdicts().get(0).quarantine()).isEmpty();
  }
}
