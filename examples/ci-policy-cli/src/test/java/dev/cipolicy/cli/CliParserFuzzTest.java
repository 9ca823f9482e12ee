package dev.cipolicy.cli;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cipolicy.api.CiPolicyException;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzz targets (Jazzer) for the parsers of the CLI's own inputs: the concurrency event
 * and in-flight JSON, the PR labels JSON, workflow files' crons, and the gate's metric records and
 * history files (parse only). Without {@code JAZZER_FUZZ=1} each runs its committed seed corpus under
 * {@code CliParserFuzzTestInputs/<method>/}. Only our exception types may escape, with a one-line message.
 */
class CliParserFuzzTest {
  @FuzzTest(maxDuration = "90s")
  void eventJson(byte[] data) {
    parse(() -> ConcurrencyJson.event("event.json", text(data)));
  }

  @FuzzTest(maxDuration = "90s")
  void inFlightJson(byte[] data) {
    parse(() -> ConcurrencyJson.inFlight("runs.json", text(data)));
  }

  @FuzzTest(maxDuration = "90s")
  void prLabelsJson(byte[] data) {
    parse(() -> GithubFormats.prLabels(text(data)));
  }

  @FuzzTest(maxDuration = "90s")
  void workflowCrons(byte[] data) {
    parse(() -> WorkflowCrons.read("workflow.yml", text(data)));
  }

  @FuzzTest(maxDuration = "90s")
  void gateRecord(byte[] data) {
    parse(() -> GateFiles.record("record.json", text(data)));
  }

  @FuzzTest(maxDuration = "90s")
  void gateHistory(byte[] data) {
    parse(() -> GateFiles.history("history.json", text(data)));
  }

  private static String text(byte[] data) {
    return new String(data, StandardCharsets.UTF_8);
  }

  private static void parse(Runnable parse) {
    try {
      parse.run();
    } catch (CiPolicyException e) {
      String m = String.valueOf(e.getMessage());
      if (m.contains("\n") || m.contains("\r")) {
        throw new AssertionError("a multi-line message: " + m, e);
      }
    }
  }
}
