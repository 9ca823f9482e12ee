package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code $ ./ci-policy} command in a console block of docs/cli-concurrency.md's "Input files and transcripts"
 * prints what the page shows.
 */
class ConcurrencyDocTest {
  private static final Path REPO = Path.of("../..").toAbsolutePath().normalize();

  @TestFactory
  Stream<DynamicTest> everyConsoleExampleIsRealOutput() throws Exception {
    List<String> page = Files.readAllLines(REPO.resolve("docs/cli-concurrency.md"));
    int section = page.indexOf("## Input files and transcripts");
    assertThat(section).isNotNegative();
    List<ConsoleTranscripts.Example> examples = ConsoleTranscripts.of(page.subList(section, page.size()));
    assertThat(examples).hasSizeGreaterThanOrEqualTo(8);
    return examples.stream().map(e -> DynamicTest.dynamicTest(e.command(), () -> {
      assertThat(e.command()).startsWith("./ci-policy ");
      String[] args = e.command().substring("./ci-policy ".length()).split(" ");
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int code = CiPolicyCli.run(args, Map.of(), REPO, new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(out, true, StandardCharsets.UTF_8));
      assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(e.output());
      assertThat(code).isZero();
    }));
  }
}
