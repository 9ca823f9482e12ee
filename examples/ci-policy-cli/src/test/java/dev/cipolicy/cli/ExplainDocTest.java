package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code $ ./ci-policy} command in a console block of the {@code ci-policy explain} section of docs/cli-explain.md
 * prints what the page shows (standard output and standard error together, run from the repository root).
 */
class ExplainDocTest {
  private static final String SECTION = "## `ci-policy explain`";

  @TestFactory
  Stream<DynamicTest> everyConsoleExampleOfTheSectionIsRealOutput() throws Exception {
    List<String> page = Files.readAllLines(CliTestSupport.REPO.resolve("docs/cli-explain.md"));
    int from = page.indexOf(SECTION);
    assertThat(from).as("the section " + SECTION).isNotNegative();
    int to = from + 1;
    while (to < page.size() && !page.get(to).startsWith("## ")) {
      to++;
    }
    List<ConsoleTranscripts.Example> examples = ConsoleTranscripts.of(page.subList(from, to));
    assertThat(examples).hasSizeGreaterThanOrEqualTo(4);
    return examples.stream().map(e -> DynamicTest.dynamicTest(e.command(), () -> {
      assertThat(e.command()).startsWith("./ci-policy ");
      String[] args = words(e.command().substring("./ci-policy ".length())).toArray(String[]::new);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      PrintStream both = new PrintStream(out, true, StandardCharsets.UTF_8);
      int code = CiPolicyCli.run(args, Map.of(), CliTestSupport.REPO, both, both);
      String expected = e.output();
      int exit = 0;
      if (expected.matches("(?s).*\\(exit \\d\\)\n")) {
        int at = expected.lastIndexOf("(exit ");
        exit = Integer.parseInt(expected.substring(at + 6, at + 7));
        expected = expected.substring(0, at);
      }
      assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(expected);
      assertThat(code).isEqualTo(exit);
    }));
  }

  /** Splits a command line at spaces, a {@code '...'} quote being one word without its quotes. */
  static List<String> words(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    boolean quoted = false;
    boolean any = false;
    for (char c : line.toCharArray()) {
      if (c == '\'') {
        quoted = !quoted;
        any = true;
      } else if (c == ' ' && !quoted) {
        if (any) {
          out.add(w.toString());
        }
        w.setLength(0);
        any = false;
      } else {
        w.append(c);
        any = true;
      }
    }
    if (any) {
      out.add(w.toString());
    }
    return out;
  }
}
