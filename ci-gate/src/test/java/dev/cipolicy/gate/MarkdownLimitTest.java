package dev.cipolicy.gate;

import static dev.cipolicy.gate.Fixtures.SERIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Truncating Markdown to GitHub's limits: whole lines, open blocks closed, a visible note. */
class MarkdownLimitTest {
  private static final MarkdownLimit SMALL = new MarkdownLimit(300, MarkdownLimit.Unit.UTF8_BYTES);

  private static GateResult manyCoordinates(int n) {
    MetricRecord.Builder b = MetricRecord.builder();
    double[] values = new double[n];
    java.util.Arrays.fill(values, 1.0);
    b.series("train/grad_norm", values);
    return GateEvaluator.of(GateOptions.defaults()).evaluate(SERIES, Gates.resolve(List.of(
        GateDeclaration.builder().metricKey("train/grad_norm").build()), Gates.referenceDefaults()),
        b.build(), new InMemoryMetricHistoryStore());
  }

  @Test
  void aSummaryOverOneMebibyteIsCutToItWithTheNote() {
    GateResult result = manyCoordinates(RecordLimits.MAX_POINTS);
    String full = GateReport.stepSummary(GateMode.SHADOW, result);
    assertThat(full.getBytes(StandardCharsets.UTF_8).length).isGreaterThan(1024 * 1024);
    String cut = GateReport.stepSummary(GateMode.SHADOW, result, MarkdownLimit.STEP_SUMMARY);
    assertThat(cut.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024 * 1024);
    assertThat(full).startsWith(cut.substring(0, cut.lastIndexOf("\n_…")));
    long kept = cut.lines().filter(l -> l.startsWith("| `")).count();
    assertThat(cut).endsWith("\n_… truncated: " + (RecordLimits.MAX_POINTS - kept)
        + " rows omitted, see the JSON artifact._\n");
    assertThat(kept).isGreaterThan(1000);
  }

  @Test
  void aCommentIsCutToSixtyFiveThousandCharacters() {
    String comment = GateReport.comment(GateMode.SHADOW, manyCoordinates(5_000));
    assertThat(comment.length()).isLessThanOrEqualTo(65_536).isGreaterThan(60_000);
    assertThat(comment).endsWith("rows omitted, see the JSON artifact._\n");
  }

  @Test
  void aTextThatFitsIsUnchanged() {
    String text = GateReport.stepSummary(GateMode.SHADOW, manyCoordinates(3));
    assertThat(MarkdownLimit.STEP_SUMMARY.truncate(text)).isSameAs(text);
  }

  @Test
  void cutsOnlyBetweenRowsAndClosesDetails() {
    String text = "### head\n\n<details><summary>x</summary>\n\n| a | b |\n|---|---|\n"
        + "| ééééééééééééééééééééééééééééééééééééééééééééé | 1 |\n".repeat(20) + "\n</details>\n\n";
    String cut = SMALL.truncate(text);
    assertThat(cut.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(300);
    assertThat(cut).startsWith("### head\n\n<details><summary>x</summary>\n\n| a | b |\n|---|---|\n| éé")
        .contains("| 1 |\n\n</details>\n\n\n_… truncated: ");
    long rowsKept = cut.lines().filter(l -> l.startsWith("| é")).count();
    assertThat(cut).endsWith("_… truncated: " + (20 - rowsKept) + " rows omitted, see the JSON artifact._\n");
    cut.lines().filter(l -> l.startsWith("| é")).forEach(l -> assertThat(l).endsWith("| 1 |"));
  }

  @Test
  void aTooSmallLimitIsRefused() {
    assertThatThrownBy(() -> new MarkdownLimit(10, MarkdownLimit.Unit.CHARS)).isInstanceOf(InvalidInputException.class)
        .hasMessage("a Markdown limit is at least 256, got 10");
  }
}
