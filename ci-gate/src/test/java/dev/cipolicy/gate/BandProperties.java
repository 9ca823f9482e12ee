package dev.cipolicy.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.api.gate.GateConstraint;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/** Invariants of the reference band for generated histories and constraints. */
class BandProperties {
  private static final GateModel BAND = GateModel.band();

  static Gen<double[]> histories() {
    Gen<Double> value = doubles().between(-1e6, 1e6).mix(doubles().between(-2, 2), 60);
    return lists().of(value).ofSizeBetween(1, 30).map(l -> l.stream().mapToDouble(Double::doubleValue).toArray());
  }

  static Gen<GateConstraint> constraints() {
    Gen<Double> p = doubles().between(0, 3).mix(integers().between(0, 0).map(i -> 0.0), 20);
    return p.zip(p, p, p, GateConstraint::of);
  }

  private static Evidence judge(GateConstraint c, double value, double[] history) {
    return BAND.judge(c, value, history, Math.min(history.length, BAND.window()));
  }

  @Test
  void theBandComesFromTheReferenceOnlyNeverFromTheJudgedValue() {
    qt().forAll(constraints(), histories(), doubles().any(), doubles().between(-1e9, 1e9))
        .assuming((c, h, v, w) -> Double.isFinite(v))
        .checkAssert((c, h, v, w) -> {
          Evidence a = judge(c, v, h);
          Evidence b = judge(c, w, h);
          assertThat(a.lower()).isEqualTo(b.lower());
          assertThat(a.upper()).isEqualTo(b.upper());
          assertThat(a.centre()).isEqualTo(b.centre());
        });
  }

  @Test
  void theBandIsConvexAnythingBetweenTwoPassingValuesPasses() {
    qt().forAll(constraints(), histories(), doubles().between(-1e6, 1e6), doubles().between(0, 1))
        .checkAssert((c, h, a, t) -> {
          Evidence e = judge(c, a, h);
          double b = e.centre().getAsDouble();
          double between = Math.min(Math.max(a + t * (b - a), Math.min(a, b)), Math.max(a, b));
          if (e.status() == GateStatus.PASS) {
            assertThat(judge(c, between, h).status()).isEqualTo(GateStatus.PASS);
          }
        });
  }

  @Test
  void wideningTheConstraintNeverTurnsAPassIntoAFail() {
    qt().forAll(constraints(), constraints(), histories(), doubles().between(-1e6, 1e6))
        .checkAssert((c, extra, h, v) -> {
          GateConstraint wider = GateConstraint.of(c.relUp().getAsDouble() + extra.relUp().getAsDouble(),
              c.absFloorUp().getAsDouble() + extra.absFloorUp().getAsDouble(),
              c.relDown().getAsDouble() + extra.relDown().getAsDouble(),
              c.absFloorDown().getAsDouble() + extra.absFloorDown().getAsDouble());
          if (judge(c, v, h).status() == GateStatus.PASS) {
            assertThat(judge(wider, v, h).status()).isEqualTo(GateStatus.PASS);
          }
        });
  }

  @Test
  void boundaryValuesPass() {
    qt().forAll(constraints(), histories()).checkAssert((c, h) -> {
      Evidence e = judge(c, 0, h);
      assertThat(judge(c, e.upper().getAsDouble(), h).status()).isEqualTo(GateStatus.PASS);
      assertThat(judge(c, e.lower().getAsDouble(), h).status()).isEqualTo(GateStatus.PASS);
      assertThat(judge(c, Math.nextUp(e.upper().getAsDouble()), h).status()).isEqualTo(GateStatus.FAIL);
      assertThat(judge(c, Math.nextDown(e.lower().getAsDouble()), h).status()).isEqualTo(GateStatus.FAIL);
    });
  }

  @Test
  void negativeReferencesNeverInvertTheBand() {
    Gen<double[]> negative = lists().of(doubles().between(-1e6, -1e-9)).ofSizeBetween(1, 25)
        .map(l -> l.stream().mapToDouble(Double::doubleValue).toArray());
    qt().forAll(constraints(), negative.mix(histories())).checkAssert((c, h) -> {
      Evidence e = judge(c, 0, h);
      double ref = e.centre().getAsDouble();
      assertThat(e.lower().getAsDouble()).isLessThanOrEqualTo(ref);
      assertThat(e.upper().getAsDouble()).isGreaterThanOrEqualTo(ref);
      assertThat(judge(c, ref, h).status()).isEqualTo(GateStatus.PASS);
    });
  }

  @Test
  void theStatusCanBeRecomputedFromTheExplanation() {
    qt().forAll(constraints(), histories(), doubles().between(-1e7, 1e7)).checkAssert((c, h, v) -> {
      Evidence e = judge(c, v, h);
      assertThat(e.recomputeStatus()).isEqualTo(e.status());
      double ref = e.centre().getAsDouble();
      assertThat(e.lower().getAsDouble()).isEqualTo(ref - c.downTolerance(ref));
      assertThat(e.upper().getAsDouble()).isEqualTo(ref + c.upTolerance(ref));
      boolean inside = v >= e.lower().getAsDouble() && v <= e.upper().getAsDouble();
      assertThat(e.margin().getAsDouble() >= 0).isEqualTo(inside);
      double expected = e.binding().orElseThrow() == Limit.UPPER ? e.upper().getAsDouble() - v
          : v - e.lower().getAsDouble();
      assertThat(e.margin().getAsDouble()).isEqualTo(expected);
    });
  }

  @Test
  void onlyTheNewestWindowOfTrustedValuesMatters() {
    qt().forAll(histories(), histories(), constraints(), doubles().between(-1e6, 1e6))
        .checkAssert((newest, older, c, v) -> {
          double[] twenty = new double[20];
          for (int i = 0; i < 20; i++) {
            twenty[i] = newest[i % newest.length];
          }
          double[] longer = new double[20 + older.length];
          System.arraycopy(twenty, 0, longer, 0, 20);
          System.arraycopy(older, 0, longer, 20, older.length);
          assertThat(judge(c, v, longer)).isEqualTo(judge(c, v, twenty));
          assertThat(List.of(judge(c, v, longer).n())).containsExactly(20);
        });
  }
}
