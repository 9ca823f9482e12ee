package dev.cipolicy.gate;

import static dev.cipolicy.gate.Fixtures.SERIES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A record beyond the limits is not judged: one ERROR per gate naming the limit, fast, never an exception. */
class RecordLimitsTest {
  private static final List<GateSpec> SPECS = Gates.resolve(List.of(
      GateDeclaration.builder().metricKey("train/grad_norm").build(),
      GateDeclaration.builder().metricKey("rollout/raw_reward").build()), Gates.referenceDefaults());

  private static MetricRecord points(int n) {
    List<MetricPoint> points = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      points.add(new MetricPoint(i, 1.0));
    }
    return MetricRecord.of(Map.of("train/grad_norm", MetricSeries.of(points)));
  }

  @Test
  void aMillionPointRecordIsOneErrorPerGateAndFast() {
    MetricRecord record = points(1_000_000);
    InMemoryMetricHistoryStore store = new InMemoryMetricHistoryStore();
    long start = System.nanoTime();
    HookOutcome o = GateHook.of(store, GateEvaluator.of(GateOptions.defaults()),
        Clock.fixed(Fixtures.T0, ZoneOffset.UTC)).run(HookRequest.builder().series(SERIES)
        .addAllDeclarations(List.of(GateDeclaration.builder().metricKey("train/grad_norm").build()))
        .addAllDefaults(Gates.referenceDefaults()).record(() -> record).mode(GateMode.BASELINE)
        .provenance(Provenance.of(CiRunIdentity.of("o/r", "1", 1), "c", "nightly")).build());
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isLessThan(Duration.ofSeconds(10)); // a guard against the old minutes, not a benchmark
    assertThat(o.action()).isEqualTo(HookAction.WROTE_BASELINE);
    GateResult result = o.result().orElseThrow();
    assertThat(result.verdicts()).singleElement().satisfies(v -> {
      assertThat(v.status()).isEqualTo(GateStatus.ERROR);
      assertThat(v.reason()).isEqualTo("the record is unreadable: the record has more than 100,000 points, the"
          + " limit (1,000,000)");
    });
    assertThat(o.samplesWritten()).isZero();
  }

  @Test
  void theLimitItselfIsJudged() {
    GateResult atLimit = GateEvaluator.of(GateOptions.defaults()).evaluate(SERIES, SPECS,
        points(RecordLimits.MAX_POINTS), new InMemoryMetricHistoryStore());
    assertThat(atLimit.verdicts()).hasSize(RecordLimits.MAX_POINTS + 1); // every step, and the missing reward
    assertThat(RecordLimits.violation(points(RecordLimits.MAX_POINTS))).isEmpty();
    assertThat(RecordLimits.violation(points(RecordLimits.MAX_POINTS + 1)))
        .hasValue("the record has more than 100,000 points, the limit (100,001)");
  }

  @Test
  void tooManyMetricsIsUnreadableToo() {
    MetricRecord.Builder b = MetricRecord.builder();
    for (int i = 0; i <= RecordLimits.MAX_METRICS; i++) {
      b.series("m" + i);
    }
    GateResult r = GateEvaluator.of(GateOptions.defaults()).evaluate(SERIES, SPECS, b.build(),
        new InMemoryMetricHistoryStore());
    assertThat(r.verdicts()).hasSize(2).allSatisfy(v -> assertThat(v.reason())
        .isEqualTo("the record is unreadable: the record has more than 10,000 metrics, the limit (10,001)"));
  }
}
