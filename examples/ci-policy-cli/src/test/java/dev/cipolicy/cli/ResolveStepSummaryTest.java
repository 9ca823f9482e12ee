package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.cli.CliTestSupport.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Markdown step summary that {@code ci-policy resolve} appends to {@code GITHUB_STEP_SUMMARY}. */
class ResolveStepSummaryTest {
  @TempDir
  Path tmp;

  private Path diff(String... pairs) throws Exception {
    StringBuilder sb = new StringBuilder();
    for (String p : pairs) {
      sb.append(p).append('\0');
    }
    Path f = tmp.resolve("changed.z");
    Files.writeString(f, sb.toString());
    return f;
  }

  private static List<String> rows(String md, String prefix) {
    return md.lines().filter(l -> l.startsWith(prefix)).toList();
  }

  @Test
  void aPullRequestResolveWritesOneRowPerStageWithOutcomeAndReason() throws Exception {
    Path summary = tmp.resolve("summary.md");
    Path output = tmp.resolve("out");
    Path diff = diff("M", "tests/e2e/test_lora.py", "M", "docs/guide.md");
    Result r = run(Map.of("GITHUB_STEP_SUMMARY", summary.toString()), "resolve", "--policy", POLICY,
        "--event-name", "pull_request", "--pr-labels-json", "[\"run-ci-lora\"]", "--changed-files", diff.toString(),
        "--registrations", REGISTRATIONS, "--github-output", output.toString());
    assertThat(r.code()).isZero();
    // the outputs and stdout are those of a run without a summary
    assertThat(Files.readString(output)).startsWith("cadence=regular\nraw_labels=run-ci-lora\nbypass_fastfail=false\n");
    assertThat(r.out()).startsWith("Resolved CI policy: cadence=regular labels=[run-ci-lora]");
    String md = Files.readString(summary);
    assertThat(md).contains("| cadence | regular |", "| labels | run-ci-lora |", "| bypass_fastfail | false |",
        "| Stage | Outcome | Reason |", "**Why:**");
    List<String> stageRows = rows(md, "| stage-");
    assertThat(stageRows).hasSize(7);
    assertThat(stageRows.stream().filter(l -> l.contains("| skipped |"))).hasSize(6);
    assertThat(stageRows.stream().filter(l -> l.contains("| runs |"))).hasSize(1);
    for (String row : stageRows) {
      assertThat(row.split("(?<!\\\\)\\|", -1)).as(row).hasSize(5); // three cells between four pipes
    }
  }

  @Test
  void scheduleAndDispatchWriteASummaryToo() throws Exception {
    Path summary = tmp.resolve("s.md");
    Result s = run(Map.of(), "resolve", "--policy", POLICY, "--event-name", "schedule", "--schedule", "0 15 * * 6",
        "--step-summary", summary.toString());
    assertThat(s.code()).isZero();
    assertThat(Files.readString(summary)).contains("| event | schedule |", "| cadence | weekly |",
        "| bypass_fastfail | true |", "Every stage runs", "**Why:**");
    Path dispatch = tmp.resolve("d.md");
    Result d = run(Map.of(), "resolve", "--policy", POLICY, "--event-name", "workflow_dispatch",
        "--cadence-override", "nightly", "--step-summary", dispatch.toString());
    assertThat(d.code()).isZero();
    assertThat(Files.readString(dispatch)).contains("| event | workflow&#95;dispatch |".replace("&#95;", "_"),
        "| cadence | nightly |");
  }

  @Test
  void nothingIsWrittenOnError() throws Exception {
    Path summary = tmp.resolve("s.md");
    Path output = tmp.resolve("o");
    Result r = run(Map.of("GITHUB_STEP_SUMMARY", summary.toString(), "GITHUB_OUTPUT", output.toString()), "resolve",
        "--policy", POLICY, "--event-name", "pull_request", "--pr-labels-json", "not json");
    assertThat(r.code()).isNotZero();
    assertThat(summary).doesNotExist();
    assertThat(output).doesNotExist();
  }

  @Test
  void theFlagOverridesTheVariable() throws Exception {
    Path fromEnv = tmp.resolve("env.md");
    Path fromFlag = tmp.resolve("flag.md");
    Result r = run(Map.of("GITHUB_STEP_SUMMARY", fromEnv.toString()), "resolve", "--policy", POLICY,
        "--event-name", "schedule", "--schedule", "0 15 * * 6", "--step-summary", fromFlag.toString());
    assertThat(r.code()).isZero();
    assertThat(fromFlag).exists();
    assertThat(fromEnv).doesNotExist();
  }

  @Test
  void aLabelWithAPipeANewlineAndMarkupDoesNotBreakTheTable() throws Exception {
    Path summary = tmp.resolve("s.md");
    Result r = run(Map.of(), "resolve", "--policy", POLICY, "--event-name", "pull_request", "--pr-labels-json",
        "[\"run-ci-lora\",\"a|b\\n| x | y |\",\"`<img src=x>`\"]", "--step-summary", summary.toString());
    assertThat(r.code()).isZero();
    String md = Files.readString(summary);
    for (String line : md.lines().toList()) {
      if (line.startsWith("|")) {
        assertThat(line).as(line).endsWith("|");
        assertThat(line.chars().filter(ch -> ch == '|').count()).as(line).isIn(3L, 4L);
      }
    }
    assertThat(md).doesNotContain("<img", "`").contains("a&#124;b &#124; x &#124; y &#124;");
  }

  @Test
  void cellEscapingIsCompleteAndSingleLine() {
    String cell = ResolveSummary.cell("a|b\nc\r\u2028`d`<e>&\\f");
    assertThat(cell).isEqualTo("a&#124;b c  &#96;d&#96;&lt;e&gt;&amp;&#92;f");
  }

  @Test
  void theSummaryStaysWithinGithubsLimit() throws Exception {
    Path summary = tmp.resolve("s.md");
    byte[] almostFull = new byte[1024 * 1024 - 100];
    java.util.Arrays.fill(almostFull, (byte) 'x');
    Files.write(summary, almostFull);
    Result r = run(Map.of(), "resolve", "--policy", POLICY, "--event-name", "schedule", "--schedule", "0 15 * * 6",
        "--step-summary", summary.toString());
    assertThat(r.code()).isZero();
    assertThat(Files.size(summary)).isEqualTo(almostFull.length);
    assertThat(r.err()).contains("the resolve summary was not appended");
    assertThat(new String(Files.readAllBytes(summary), StandardCharsets.UTF_8)).doesNotContain("CI policy");
  }
}
