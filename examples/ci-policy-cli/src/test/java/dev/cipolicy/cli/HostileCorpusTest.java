package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cipolicy.cli.CliTestSupport.Result;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The regression corpus of hostile inputs under {@code src/test/resources/hostile/}: one directory per case, run
 * in-process; see the README there for the format. Each case asserts the exit code, our single {@code ::error::}
 * line on failure, no stack trace, no forged workflow command, nothing written to {@code $GITHUB_OUTPUT} or
 * {@code $GITHUB_STEP_SUMMARY} on failure, no secret of the case in the log, and the time bound.
 */
class HostileCorpusTest {
  static final Path CORPUS = Path.of("src/test/resources/hostile").toAbsolutePath();
  private static final long DEFAULT_MAX_MILLIS = 10_000;
  private static final List<String> STACK_TRACE_MARKS = List.of("at dev.", "Exception in thread", "\tat ",
      "at java.", "at picocli.");

  @TempDir
  Path tmp;

  @TestFactory
  Stream<DynamicTest> everyCase() throws IOException {
    List<Path> cases;
    try (Stream<Path> s = Files.list(CORPUS)) {
      cases = s.filter(Files::isDirectory).sorted().toList();
    }
    assertThat(cases).as("corpus size").hasSizeGreaterThanOrEqualTo(80);
    return cases.stream().map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> run(dir)));
  }

  private void run(Path dir) throws IOException {
    Properties expect = new Properties();
    try (Reader r = Files.newBufferedReader(dir.resolve("expect.properties"), StandardCharsets.UTF_8)) {
      expect.load(r);
    }
    Path work = Files.createDirectories(tmp.resolve(dir.getFileName().toString()));
    Path caseDir = Files.createDirectories(work.resolve("case"));
    Path tmpDir = Files.createDirectories(work.resolve("tmp"));
    copyTree(dir, caseDir);
    Map<String, String> env = new HashMap<>();
    Path githubOutput = work.resolve("github_output");
    Path stepSummary = work.resolve("step_summary");
    env.put("GITHUB_OUTPUT", githubOutput.toString());
    env.put("GITHUB_STEP_SUMMARY", stepSummary.toString());
    for (String key : expect.stringPropertyNames()) {
      if (key.startsWith("env.")) {
        env.put(key.substring(4), unescape(expect.getProperty(key)).replace("${CASE}", caseDir.toString()));
      } else if (key.startsWith("generate.")) {
        generate(caseDir.resolve(key.substring("generate.".length())), expect.getProperty(key));
      }
    }
    List<String> args = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("args"), StandardCharsets.UTF_8)) {
      args.add(unescape(line).replace("${CASE}", caseDir.toString()).replace("${TMP}", tmpDir.toString()));
    }
    long maxMillis = Long.parseLong(expect.getProperty("maxMillis", String.valueOf(DEFAULT_MAX_MILLIS)));
    Result r = assertTimeoutPreemptively(Duration.ofMillis(maxMillis),
        () -> CliTestSupport.run(env, args.toArray(String[]::new)));
    String context = dir.getFileName() + "\nstdout:\n" + r.out() + "\nstderr:\n" + r.err();

    int exit = Integer.parseInt(expect.getProperty("exit"));
    assertThat(r.code()).as(context).isEqualTo(exit);
    String all = r.out() + r.err();
    for (String mark : STACK_TRACE_MARKS) {
      assertThat(all).as(context).doesNotContain(mark);
    }
    WorkflowCommandForgeryProperties.assertNoForgedCommand(r, context);
    Path secret = dir.resolve("secret.txt");
    if (Files.exists(secret)) {
      assertThat(all).as(context).doesNotContain(Files.readString(secret, StandardCharsets.UTF_8).strip());
    }
    if (exit != 0) {
      List<String> errors = r.err().lines()
          .filter(l -> WorkflowCommandForgeryProperties.OUR_ERROR.matcher(l).lookingAt()).toList();
      assertThat(errors).as(context).hasSize(Integer.parseInt(expect.getProperty("errors", "1")));
      String error = expect.getProperty("error");
      assertThat(error).as(dir.getFileName() + ": expect.properties needs error= when exit is not 0").isNotNull();
      assertThat(errors.get(0)).as(context).contains(error);
      if (Boolean.parseBoolean(expect.getProperty("lintSummary", "false"))) {
        // workflow lint reports findings (exit 1) with its one summary line on stdout, by design
        assertThat(r.out().lines().toList()).as(context + "\nonly the lint summary on stdout").singleElement()
            .asString().startsWith("Linted ");
      } else {
        assertThat(r.out()).as(context + "\nnothing on stdout on error").isEmpty();
      }
      for (Path written : List.of(githubOutput, stepSummary)) {
        assertThat(!Files.exists(written) || Files.size(written) == 0).as(context + "\nwrote " + written).isTrue();
      }
    }
  }

  /** The escapes of an {@code args} line and an {@code env.} value: backslash n, r, t, 0, backslash, u and 4 hex digits. */
  static String unescape(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '\\' || i + 1 == s.length()) {
        sb.append(c);
        continue;
      }
      char n = s.charAt(++i);
      switch (n) {
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case '0' -> sb.append('\0');
        case '\\' -> sb.append('\\');
        case 'u' -> {
          sb.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
          i += 4;
        }
        default -> throw new IllegalArgumentException("unknown escape \\" + n + " in " + s);
      }
    }
    return sb.toString();
  }

  /**
   * Writes a generated input: {@code repeat:<count>:<text>} (the text, with the escapes of {@link #unescape},
   * count times), {@code bytes:<hex>} (raw bytes), {@code zeros:<count>} (NUL bytes), {@code nest:<depth>:<open>:<close>}
   * (open depth times, then close depth times), {@code dir} (an empty directory), {@code fifo} (a named pipe
   * nobody writes to: opening it for reading would block for ever), {@code chain:<count>:<order>} (a workflow of
   * count jobs, each needing the one before, written {@code forward}, in {@code reverse} order, or closed into a
   * {@code cycle}).
   */
  static void generate(Path file, String spec) throws IOException {
    String[] p = spec.split(":", 2);
    Path parent = file.getParent();
    if (parent != null) {
      Files.createDirectories(parent); // a generated file may be in a directory git does not keep (an empty one)
    }
    switch (p[0]) {
      case "dir" -> Files.createDirectories(file);
      case "fifo" -> mkfifo(file);
      case "bytes" -> Files.write(file, HexFormat.of().parseHex(p[1]));
      case "zeros" -> {
        try (OutputStream out = Files.newOutputStream(file)) {
          byte[] block = new byte[8192];
          for (long left = Long.parseLong(p[1]); left > 0; left -= block.length) {
            out.write(block, 0, (int) Math.min(block.length, left));
          }
        }
      }
      case "repeat" -> {
        String[] q = p[1].split(":", 2);
        String text = unescape(q[1]);
        try (var w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
          for (long i = Long.parseLong(q[0]); i > 0; i--) {
            w.write(text);
          }
        }
      }
      case "nest" -> {
        String[] q = p[1].split(":", 3);
        int depth = Integer.parseInt(q[0]);
        Files.writeString(file, unescape(q[1]).repeat(depth) + unescape(q[2]).repeat(depth), StandardCharsets.UTF_8);
      }
      case "chain" -> {
        String[] q = p[1].split(":", 2);
        int count = Integer.parseInt(q[0]);
        boolean reverse = q[1].equals("reverse");
        boolean cycle = q[1].equals("cycle");
        try (var w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
          w.write("on:\n  push:\n  pull_request:\n    types: [opened, closed]\njobs:\n");
          for (int k = 0; k < count; k++) {
            int i = reverse ? count - 1 - k : k;
            if (i == 0 && !cycle) {
              w.write("  j0: {if: \"github.event.action != 'closed'\", runs-on: x}\n");
            } else {
              w.write("  j" + i + ": {needs: j" + (i == 0 ? count - 1 : i - 1) + ", runs-on: x}\n");
            }
          }
        }
      }
      default -> throw new IllegalArgumentException("unknown generator '" + spec + "' for " + file);
    }
  }

  private static void mkfifo(Path file) throws IOException {
    try {
      Process p = new ProcessBuilder("mkfifo", file.toString()).inheritIO().start();
      if (p.waitFor() != 0 || !Files.exists(file)) {
        throw new IOException("mkfifo " + file + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while making " + file, e);
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      s.forEach(p -> {
        Path target = to.resolve(from.relativize(p).toString());
        try {
          if (Files.isDirectory(p)) {
            Files.createDirectories(target);
          } else {
            Files.copy(p, target);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
