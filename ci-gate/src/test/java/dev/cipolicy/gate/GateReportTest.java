package dev.cipolicy.gate;

import static dev.cipolicy.gate.Fixtures.GRAD_ALL;
import static dev.cipolicy.gate.Fixtures.REWARD_LAST;
import static dev.cipolicy.gate.Fixtures.SERIES;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The verdict line and the Markdown step-summary block. */
class GateReportTest {
  private static GateResult result() {
    MetricHistoryStore store = Fixtures.storeWith(SERIES, List.of(Coordinate.of(GRAD_ALL, 0),
        Coordinate.of(GRAD_ALL, 1)), 1, 1);
    return Fixtures.reference().evaluate(SERIES, List.of(GRAD_ALL, REWARD_LAST),
        Fixtures.record("train/grad_norm", 1.2, 0.1, 1), store);
  }

  @Test
  void theVerdictLineCountsEachStatus() {
    assertThat(GateReport.verdictLine(GateMode.SHADOW, result())).isEqualTo("[CI Gate][shadow]"
        + " tests/e2e/test_fsdp_short.py: FAIL (4 coordinates: 1 PASS, 1 FAIL, 1 INACTIVE, 1 ERROR;"
        + " 1 anomalous improvement; run untrusted)");
    assertThat(GateReport.verdictLine(GateMode.BASELINE, new GateResult(SERIES, "band", List.of())))
        .isEqualTo("[CI Gate][baseline] tests/e2e/test_fsdp_short.py: no gate declared");
  }

  @Test
  void theStepSummaryTablesWhatDidNotPassAndFoldsTheRest() {
    assertThat(GateReport.stepSummary(GateMode.SHADOW, result())).isEqualTo("""
        ### CI Gate (shadow): `tests/e2e/test_fsdp_short.py` — FAIL

        `cuda` / `stage-c-4-gpu-h200` · model `band` · 4 coordinates: 1 PASS, 1 FAIL, 1 INACTIVE, 1 ERROR · run \
        untrusted · 1 anomalous improvement

        | metric | step | status | value | limits | centre (n) | reason |
        |---|---:|---|---:|---|---:|---|
        | `train/grad_norm` | 1 | FAIL anomalous improvement | 0.1 | [0.2, 1.5] | 1 (2) | 0.1 is below the lower \
        limit 0.2 by 0.1 (anomalous improvement) |
        | `train/grad_norm` | 2 | INACTIVE | 1 |  | (0) | no trusted history (cold start) |
        | `rollout/raw_reward` | - | ERROR |  |  |  | metric 'rollout/raw_reward' is not in the record |

        <details><summary>1 passing coordinate</summary>

        | metric | step | status | value | limits | centre (n) | reason |
        |---|---:|---|---:|---|---:|---|
        | `train/grad_norm` | 0 | PASS | 1.2 | [0.2, 1.5] | 1 (2) | 1.2 is within [0.2, 1.5] |

        </details>

        """);
  }

  @Test
  void noGateMeansNoStepSummary() {
    assertThat(GateReport.stepSummary(GateMode.SHADOW, new GateResult(SERIES, "band", List.of()))).isEmpty();
  }
}
