package dev.cipolicy.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The robust models on seeded noise: their false-alarm rates stay within the documented bound, and their
 * explanations always recompute to their status.
 */
class GateModelProperties {

  private static List<HistorySample> stationary(long seed, double mean, double sigma, int n) {
    Random random = new Random(seed);
    List<HistorySample> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(Fixtures.sample(i + 1, mean + sigma * random.nextGaussian(), true));
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"median-mad", "iqr-fence", "adjacent-delta"})
  void seededStationaryNoiseKeepsTheFalseAlarmRateWithinTheDocumentedBound(String name) {
    GateModel model = GateModel.named(name).orElseThrow();
    // A fixed seed: the bound is a rate, so an unlucky random noise series may exceed it by chance; the test
    // must give the same answer on every run (a new seed is a deliberate change, checked once).
    qt().withFixedSeed(20261201L).withExamples(20)
        .forAll(longs().all(), doubles().between(-100, 100), doubles().between(1e-3, 1e3))
        .checkAssert((seed, mean, sigma) -> {
          ReplayReport r = Replay.replay(GateRule.of(Fixtures.GRAD_ALL, model), stationary(seed, mean, sigma, 2000));
          assertThat(r.alertRate()).as("false-alarm rate of %s", name)
              .isLessThanOrEqualTo(GateModel.DOCUMENTED_FALSE_ALARM_BOUND);
          assertThat(r.counts().get(GateStatus.INCONCLUSIVE)).as("bimodal verdicts on unimodal noise")
              .isLessThanOrEqualTo(20);
        });
  }

  @ParameterizedTest
  @ValueSource(strings = {"median-mad", "iqr-fence", "adjacent-delta"})
  void everyExplanationRecomputesToItsStatus(String name) {
    GateModel model = GateModel.named(name).orElseThrow();
    qt().forAll(BandProperties.histories(), doubles().between(-1e7, 1e7)).checkAssert((h, v) -> {
      Evidence e = model.judge(Fixtures.GRAD, v, h, Math.min(h.length, model.window()));
      assertThat(e.recomputeStatus()).isEqualTo(e.status());
      if (e.lower().isPresent()) {
        assertThat(e.lower().getAsDouble()).isLessThanOrEqualTo(e.centre().getAsDouble());
        assertThat(e.upper().getAsDouble()).isGreaterThanOrEqualTo(e.centre().getAsDouble());
        boolean inside = v >= e.lower().getAsDouble() && v <= e.upper().getAsDouble();
        assertThat(e.status() == GateStatus.PASS).isEqualTo(inside);
      }
    });
  }

  @Test
  void theFalseAlarmRateAtTheMinimumAndAtAFullWindowIsWithinTheDocumentedFigures() {
    Random random = new Random(20261129L);
    int trials = 40_000;
    for (GateModel model : List.of(GateModel.medianMad(), GateModel.iqrFence(), GateModel.adjacentDelta())) {
      for (int n : new int[] {10, 20}) {
        int alarms = 0;
        double[] h = new double[n];
        for (int t = 0; t < trials; t++) {
          for (int i = 0; i < n; i++) {
            h[i] = random.nextGaussian();
          }
          if (model.judge(Fixtures.GRAD, random.nextGaussian(), h, n).status() == GateStatus.FAIL) {
            alarms++;
          }
        }
        double rate = (double) alarms / trials;
        assertThat(rate).as("%s with %d values", model.name(), n).isLessThanOrEqualTo(n == 10 ? 0.015 : 0.0025);
      }
    }
  }
}
