package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.cli.CliTestSupport.Result;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine;

/** picocli's {@code @file} expansion is off: an argument {@code @<path>} is the text itself, never the file's content. */
class AtFileExpansionTest {
  private static final String SECRET = "ci-policy-secret-7f3a";

  @TempDir
  Path tmp;

  private Path secret() throws Exception {
    Path f = tmp.resolve("secret.txt");
    // were the file expanded, its words would become arguments, and --help would print the usage
    Files.writeString(f, SECRET + " --help\n", StandardCharsets.UTF_8);
    return f;
  }

  /** Every subcommand, nested ones included ({@code workflow simulate}), by the words that name it. */
  private static Map<List<String>, CommandLine> commands(CommandLine root) {
    Map<List<String>, CommandLine> out = new LinkedHashMap<>();
    collect(List.of(), root, out);
    return out;
  }

  private static void collect(List<String> path, CommandLine cmd, Map<List<String>, CommandLine> out) {
    for (Map.Entry<String, CommandLine> sub : cmd.getSubcommands().entrySet()) {
      List<String> p = new ArrayList<>(path);
      p.add(sub.getKey());
      out.put(List.copyOf(p), sub.getValue());
      collect(p, sub.getValue(), out);
    }
  }

  private static CommandLine commandLine() {
    PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    return CiPolicyCli.commandLine(new CiPolicyCli(Map.of(), CliTestSupport.REPO, sink, sink));
  }

  @Test
  void everyOptionOfEverySubcommandTakesAnAtArgumentLiterally() throws Exception {
    String at = "@" + secret();
    CommandLine root = commandLine();
    assertThat(root.isExpandAtFiles()).isFalse();
    assertThat(root.getSubcommands()).hasSize(11);
    Map<List<String>, CommandLine> commands = commands(root);
    assertThat(commands).containsKey(List.of("workflow", "simulate")).containsKey(List.of("fleet", "collector"))
        .containsKey(List.of("fleet", "logs")).containsKey(List.of("fleet", "submit"))
        .containsKey(List.of("fleet", "lease")).containsKey(List.of("fleet", "cancel"))
        .containsKey(List.of("fleet", "serve")).containsKey(List.of("fleet", "retire"));
    assertThat(commands.get(List.of("fleet")).getSubcommands()).hasSize(7);
    int checked = 0;
    for (Map.Entry<List<String>, CommandLine> sub : commands.entrySet()) {
      assertThat(sub.getValue().isExpandAtFiles()).as(sub.getKey().toString()).isFalse();
      for (OptionSpec o : sub.getValue().getCommandSpec().options()) {
        if (o.arity().max() == 0 || o.type() != String.class && o.type() != List.class) {
          continue;
        }
        CommandLine fresh = commandLine();
        List<String> args = new ArrayList<>(sub.getKey());
        args.addAll(List.of(o.longestName(), at));
        try {
          fresh.parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.ParameterException missingRequiredOptions) {
          // the options given are set before picocli checks for the required ones
        }
        CommandLine parsed = fresh;
        for (String name : sub.getKey()) {
          parsed = parsed.getSubcommands().get(name);
        }
        Object value = parsed.getCommandSpec().findOption(o.longestName()).getValue();
        assertThat(String.valueOf(value)).as(sub.getKey() + " " + o.longestName()).contains(at)
            .doesNotContain(SECRET);
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(40);
  }

  @Test
  void theSecretNeverReachesTheLogWhateverTheSubcommandAndOption() throws Exception {
    String at = "@" + secret();
    CommandLine root = commandLine();
    for (Map.Entry<List<String>, CommandLine> sub : commands(root).entrySet()) {
      for (OptionSpec o : sub.getValue().getCommandSpec().options()) {
        if (o.arity().max() == 0) {
          continue;
        }
        List<String> args = new ArrayList<>(sub.getKey());
        for (String[] base : new String[][] {{"--policy", POLICY}, {"--registrations", REGISTRATIONS}}) {
          if (sub.getValue().getCommandSpec().findOption(base[0]) != null && !o.longestName().equals(base[0])) {
            args.addAll(List.of(base));
          }
        }
        if (sub.getKey().equals(List.of("fleet", "serve")) && !o.longestName().equals("--port")) {
          args.addAll(List.of("--port", "70000")); // parsed, then refused: the server never starts and blocks
        }
        args.addAll(List.of(o.longestName(), at));
        Result r = run(args.toArray(String[]::new));
        assertThat(r.out() + r.err()).as(sub.getKey() + " " + o.longestName()).doesNotContain(SECRET);
      }
    }
  }

  @Test
  void aRerunCommentNamingAFileIsTheCommentNotTheFile() throws Exception {
    Result r = run("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--comment", "@" + secret(),
        "--permission", "write", "--pr-number", "1");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::the comment is not a /rerun-test command\n");
    Result git = run("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--comment", "@pom.xml",
        "--permission", "write", "--pr-number", "1");
    assertThat(git.out() + git.err()).doesNotContain("<project").doesNotContain("modelVersion");
  }
}
