package dev.cipolicy.core;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.policy.SuiteNaming;
import dev.cipolicy.api.suite.Permission;
import dev.cipolicy.core.diff.ChangedFiles;
import dev.cipolicy.core.diff.DiffParse;
import dev.cipolicy.core.schedule.CronSchedule;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Optional;

/**
 * Coverage-guided fuzz targets (Jazzer) for the core's other parsers of untrusted text: changed-files
 * diffs, cron expressions, {@code /rerun-test} comments and suite naming patterns. Without {@code JAZZER_FUZZ=1} each runs its
 * committed seed corpus under {@code ParserFuzzTestInputs/<method>/}. Only our exception types may escape.
 */
class ParserFuzzTest {
  private static final FileRunPlanner PLANNER = FileRunPlanner.of(ReferencePolicy.registry());

  @FuzzTest(maxDuration = "90s")
  void changedFiles(byte[] data) {
    DiffParse parse = ChangedFiles.parse(data);
    if (parse == null) {
      throw new AssertionError("no result");
    }
  }

  @FuzzTest(maxDuration = "90s")
  void cron(byte[] data) {
    String expression = new String(data, StandardCharsets.UTF_8);
    try {
      CronSchedule c = CronSchedule.parse(expression);
      c.nextFiringAfter(Instant.parse("2026-03-01T00:00:00Z"));
      c.nextFiringDay(LocalDate.of(2026, 3, 1));
      c.minutesOfDay();
    } catch (CiPolicyException e) {
      singleLine(e);
    }
  }

  @FuzzTest(maxDuration = "90s")
  void rerunComment(byte[] data) {
    String comment = new String(data, StandardCharsets.UTF_8);
    try {
      PLANNER.parseComment(comment);
    } catch (CiPolicyException e) {
      singleLine(e);
    }
    var decision = PLANNER.decideComment(comment, Permission.WRITE, 1, Optional.empty());
    if (!decision.accepted() && decision.check().isEmpty()) {
      throw new AssertionError("a rejection without a check");
    }
  }

  /**
   * A fuzzed suite naming pattern is rejected when built, or matches any name in linear time: the first
   * line of the input is the pattern, the rest the name (at most 64 characters).
   */
  @FuzzTest(maxDuration = "90s")
  void suiteNaming(byte[] data) {
    String text = new String(data, StandardCharsets.UTF_8);
    int nl = text.indexOf('\n');
    String pattern = nl < 0 ? text : text.substring(0, nl);
    String name = nl < 0 ? "stage-a-cpu" : text.substring(nl + 1, Math.min(text.length(), nl + 65));
    try {
      SuiteNaming.builder().pattern(pattern).build().matchWhole(name);
    } catch (CiPolicyException e) {
      singleLine(e);
    }
  }

  private static void singleLine(CiPolicyException e) {
    String m = String.valueOf(e.getMessage());
    if (m.contains("\n") || m.contains("\r")) {
      throw new AssertionError("a multi-line message: " + m, e);
    }
  }
}
