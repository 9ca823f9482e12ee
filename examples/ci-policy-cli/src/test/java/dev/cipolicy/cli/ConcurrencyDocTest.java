package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Every {@code $ ./ci-policy} command in a console block of docs/concurrency.md prints what the page shows. */
class ConcurrencyDocTest {
  private static final Path REPO = Path.of("../..").toAbsolutePath().normalize();

  private record Example(String command, String output) {}

  private static List<Example> examples() throws Exception {
    List<String> lines = Files.readAllLines(REPO.resolve("docs/concurrency.md"));
    List<Example> out = new ArrayList<>();
    boolean console = false;
    String command = null;
    StringBuilder output = new StringBuilder();
    for (String line : lines) {
      if (!console) {
        console = line.equals("```console");
        continue;
      }
      if (line.equals("```") || line.startsWith("$ ")) {
        if (command != null) {
          out.add(new Example(command, output.toString()));
        }
        command = null;
        output.setLength(0);
        if (line.equals("```")) {
          console = false;
          continue;
        }
        command = line.substring(2);
        continue;
      }
      output.append(line).append('\n');
    }
    return out;
  }

  @TestFactory
  Stream<DynamicTest> everyConsoleExampleIsRealOutput() throws Exception {
    List<Example> examples = examples();
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
