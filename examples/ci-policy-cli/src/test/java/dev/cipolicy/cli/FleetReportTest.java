package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.cli.FleetReport.Job;
import dev.cipolicy.cli.FleetReport.Outcome;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FleetReportTest {

  private static Job ok(String name) {
    return new Job(7, name, true, "h200-0", List.of(2, 3), Duration.ofSeconds(75), Duration.ofMinutes(62), Outcome.SUCCEEDED,
        null, "", "https://fleet.example/jobs/7");
  }

  private static Job failed(String name, boolean required, String tail) {
    return new Job(7, name, required, "b200-0", List.of(0, 1, 2, 3, 4, 5, 6, 7), Duration.ZERO, Duration.ofSeconds(9),
        Outcome.FAILED, "exit code 1", tail, null);
  }

  @Test
  void startAndEndLinesNameHostDevicesAndTimes() {
    assertThat(FleetReport.started(ok("stage-a-0of2")))
        .isEqualTo("started stage-a-0of2 on h200-0 devices 2,3 after waiting 1m 15s");
    assertThat(FleetReport.ended(ok("stage-a-0of2"))).isEqualTo("succeeded stage-a-0of2 on h200-0 in 1h 02m");
    assertThat(FleetReport.ended(failed("x", true, ""))).isEqualTo("failed x on b200-0 in 9s: exit code 1");
  }

  @Test
  void exitCodeIsZeroOnlyWhenEveryRequiredJobSucceeded() {
    assertThat(FleetReport.exitCode(List.of(ok("a"), ok("b")))).isZero();
    assertThat(FleetReport.exitCode(List.of(ok("a"), failed("b", false, "")))).isZero();
    assertThat(FleetReport.exitCode(List.of(ok("a"), failed("b", true, "")))).isEqualTo(FleetReport.EXIT_JOB_FAILED);
    Job cancelled = new Job(9, "c", true, null, List.of(), null, null, Outcome.CANCELLED, null, "", null);
    assertThat(FleetReport.exitCode(List.of(ok("a"), cancelled))).isEqualTo(FleetReport.EXIT_JOB_FAILED);
    assertThat(List.of(FleetReport.EXIT_SUCCEEDED, FleetReport.EXIT_JOB_FAILED, CiPolicyCli.EXIT_USAGE,
        FleetReport.EXIT_BAD_INPUT, FleetReport.EXIT_STORE_UNREACHABLE)).doesNotHaveDuplicates();
  }

  @Test
  void aLogLineCannotActAsAWorkflowCommand() {
    List<String> group = FleetReport.failureGroup(failed("t", true,
        "collected 12 items\n::error::forged\n::add-mask::x\r\n##[group]y\nAssertionError: loss 2.3 > 2.1"));
    assertThat(group.get(0)).isEqualTo("::group::t (failed): log tail");
    assertThat(group.get(group.size() - 1)).isEqualTo("::endgroup::");
    assertThat(group.subList(1, group.size() - 1))
        .hasSize(5)
        .allSatisfy(l -> assertThat(l).doesNotStartWith("::").doesNotContain("##["))
        .contains("AssertionError: loss 2.3 > 2.1");
  }

  @Test
  void aLongTailKeepsItsLastLines() {
    StringBuilder tail = new StringBuilder();
    for (int i = 0; i < 500; i++) {
      tail.append("line ").append(i).append('\n');
    }
    tail.append("last");
    List<String> group = FleetReport.failureGroup(failed("t", true, tail.toString()));
    assertThat(group).hasSize(FleetReport.MAX_TAIL_LINES + 3);
    assertThat(group.get(1)).isEqualTo("[301 earlier lines of the tail left out]");
    assertThat(group.get(group.size() - 2)).isEqualTo("last");
  }

  @Test
  void summaryTableEscapesQueueText() {
    Job hostile = new Job(9, "x", true, "h|<script>", List.of(), null, null, Outcome.FAILED,
        "boom | `code` <img src=x onerror=alert(1)>\nsecond line", "", "javascript:alert(1)");
    Job linked = new Job(9, "y", false, "h", List.of(1), Duration.ofSeconds(3), Duration.ofSeconds(4), Outcome.SUCCEEDED,
        null, "", "https://fleet.example/jobs/9?a=b c)<x>");
    String md = FleetReport.summary("GPU jobs of run 42", List.of(hostile, linked));
    assertThat(md).startsWith("### GPU jobs of run 42\n\n1 of 2 jobs succeeded.\n\n| Job | Host | Devices |");
    assertThat(md).doesNotContain("<script>", "<img", "`code`", "javascript:", "\nsecond line");
    assertThat(md.lines().filter(l -> l.startsWith("| x ")).findFirst().orElseThrow())
        .isEqualTo("| x | h&#124;&lt;script&gt; | - | - | - | failed: boom &#124; &#96;code&#96; "
            + "&lt;img src=x onerror=alert(1)&gt; second line | `ci-policy fleet logs 9` |");
    assertThat(md).contains("| y (optional) | h | 1 | 3s | 4s | succeeded | "
        + "[log](https://fleet.example/jobs/9?a=b%20c%29%3Cx%3E) |");
  }
}
