package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.concurrency.ConcurrencyEvent;
import dev.cipolicy.api.concurrency.InFlightRun;
import dev.cipolicy.core.ConcurrencyPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.generators.Generate;

/** Mutated event and in-flight JSON either decide or fail with our exception, never anything else. */
class ConcurrencyJsonFuzzProperties {
  private static final String EVENT = "{\"type\":\"superseded\",\"workflow\":\"pr-test\",\"pr_number\":123,"
      + "\"run_id\":\"9000\",\"label\":\"run-ci-megatron\",\"cron\":null,\"release_ref\":\"\"}";
  private static final String RUNS = "[{\"run_id\":\"1001\",\"workflow\":\"pr-test\",\"pr_number\":123},"
      + "{\"run_id\":1002,\"workflow\":\"pr-test-rocm\",\"cron\":\"0 15 * * 6\"},"
      + "{\"run_id\":\"1003\",\"workflow\":\"pr-test\",\"release_ref\":\"refs/heads/release/v0.5\"}]";
  private static final List<String> INSERTS = List.of("\"", "{", "}", "[", "]", ",", ":", "null", "0", "-1",
      "true", "\"\"", "\"closed\"", "\"scheduled\"", "\"dispatched\"", "\"merged\"", "1e3", "99999999999999999999",
      "\"x\"", "\\u0000", " ", "\"refs/heads/a..b\"", "\"pr-test-rocm\"", "\"docs\"");

  private static final ConcurrencyPolicy POLICY;

  static {
    try {
      Path p = Path.of("../policies/miles.yaml");
      POLICY = ConcurrencyPolicy.of(PolicyLoader.load("miles.yaml", Files.readString(p)).resolver());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String mutate(String text, int pos, String insert, int mode, int span) {
    int at = Math.min(pos, text.length() - 1);
    int end = Math.min(text.length(), at + span);
    return switch (mode) {
      case 0 -> text.substring(0, at) + insert + text.substring(at);
      case 1 -> text.substring(0, at) + text.substring(end);
      default -> text.substring(0, at) + insert + text.substring(end);
    };
  }

  @Test
  void mutatedInputsNeverThrowAnythingButOurExceptions() {
    qt().withExamples(400)
        .forAll(integers().between(0, RUNS.length()), Generate.pick(INSERTS), integers().between(0, 2),
            integers().between(1, 12))
        .checkAssert((pos, insert, mode, span) -> {
          String event = mutate(EVENT, pos, insert, mode, span);
          String runs = mutate(RUNS, pos, insert, mode, span);
          try {
            ConcurrencyEvent e = ConcurrencyJson.event("event.json", event);
            List<InFlightRun> r = ConcurrencyJson.inFlight("in-flight.json", runs);
            assertThat(POLICY.decide(e, r).runs()).hasSize(r.size());
          } catch (CiPolicyException expected) {
            assertThat(expected.getMessage()).isNotBlank();
          }
        });
  }
}
