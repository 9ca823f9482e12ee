package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code $ ./ci-policy} command in a console block of docs/gate-examples.md, run in document order on a fresh
 * {@code target/gate-demo/}, prints what the page shows; the page's JSON verdict is real output too.
 */
class GateDocTest {
  private static final Path REPO = CliTestSupport.REPO;
  private static final Path DEMO = REPO.resolve("target/gate-demo");

  private static void deleteDemo() throws IOException {
    if (Files.exists(DEMO)) {
      try (Stream<Path> files = Files.walk(DEMO)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  @Test
  void everyConsoleExampleIsRealOutputInDocumentOrder() throws Exception {
    List<ConsoleTranscripts.Example> examples =
        ConsoleTranscripts.of(Files.readAllLines(REPO.resolve("docs/gate-examples.md")));
    assertThat(examples).hasSizeGreaterThanOrEqualTo(15);
    deleteDemo();
    for (ConsoleTranscripts.Example e : examples) {
      assertThat(e.command()).startsWith("./ci-policy ");
      String[] args = e.command().substring("./ci-policy ".length()).split(" ");
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int code = CiPolicyCli.run(args, Map.of(), REPO, new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(out, true, StandardCharsets.UTF_8));
      assertThat(out.toString(StandardCharsets.UTF_8)).as(e.command()).isEqualTo(e.output());
      // an unusable argument, or a verdict that blocks under --fail-on
      boolean fails = e.output().startsWith("::error") || e.output().contains(": failing the run: ");
      assertThat(code).as(e.command()).isEqualTo(fails ? 1 : 0);
    }
    deleteDemo();
  }

  @Test
  void theJsonVerdictOnThePageIsRealOutput(@TempDir Path tmp) throws Exception {
    String doc = Files.readString(REPO.resolve("docs/gate.md"));
    int at = doc.indexOf("```json\n", doc.indexOf("One verdict of `ci-policy gate --json`")) + "```json\n".length();
    ObjectMapper json = new ObjectMapper();
    JsonNode shown = json.readTree(doc.substring(at, doc.indexOf("```", at)));
    String history = tmp.resolve("history.json").toString();
    List<String> common = List.of("gate", "--policy", CliTestSupport.POLICY, "--gates", "examples/gate/gates.yaml",
        "--test-file", "tests/e2e/test_fsdp_short.py", "--registrations", CliTestSupport.REGISTRATIONS,
        "--history", history, "--step-summary", tmp.resolve("summary.md").toString());
    for (int i = 1; i <= 3; i++) {
      List<String> args = new ArrayList<>(common);
      args.addAll(List.of("--record", "examples/gate/nightly-" + i + ".json", "--write-baseline", "--ci-run-id", "900" + i,
          "--created-at", "2026-11-2" + i + "T15:00:00Z"));
      assertThat(CliTestSupport.run(args.toArray(String[]::new)).code()).isZero();
    }
    List<String> args = new ArrayList<>(common);
    args.addAll(List.of("--record", "examples/gate/pr-regression.json", "--json"));
    JsonNode actual = json.readTree(CliTestSupport.run(args.toArray(String[]::new)).out());
    assertThat(actual.get("result").get("verdicts").get(1)).isEqualTo(shown);
  }
}
