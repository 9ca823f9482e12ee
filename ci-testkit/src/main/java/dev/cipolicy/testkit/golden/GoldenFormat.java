package dev.cipolicy.testkit.golden;

import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.testkit.doubles.PseudoFile;
import dev.cipolicy.testkit.doubles.RecordedCommand;
import dev.cipolicy.testkit.doubles.Recording;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The readable text of a {@link Recording}, the seed's golden-file format: one {@code ### N} section per
 * command (with {@code (on node X)} or {@code (on all nodes: ...)} when it did not run locally), its
 * working directory and environment as {@code cwd:} and {@code env:} lines, the command on one line when
 * it fits the width and otherwise one argument per line, then each generated file as a
 * {@code ### pseudo file N: <path>} section with its content, and each captured sandbox file as a
 * {@code ### sandbox file <path>} section. Arguments are quoted as a POSIX shell would
 * need them, so every argument boundary is visible. A recording with no command and no file renders as
 * {@value #NO_COMMANDS}.
 *
 * <pre>
 * ### 1 (on all nodes: node-0, node-1)
 * nvidia-smi --query-gpu=index --format=csv,noheader
 *
 * ### 2
 * env: CUDA_VISIBLE_DEVICES=4,5,6,7
 * docker
 *   run
 *   --rm
 *   ...
 *
 * ### pseudo file 1: /frozen/pseudo_file_1.json
 * {"tests": [...]}
 * </pre>
 */
public final class GoldenFormat {
  /** The text of a recording with no command and no generated file. */
  public static final String NO_COMMANDS = "(no commands)\n";

  /** The default width above which a command is written one argument per line. */
  public static final int DEFAULT_WIDTH = 100;

  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  private final int width;

  private GoldenFormat(int width) {
    this.width = width;
  }

  /**
   * The format with the default width.
   *
   * @return the format
   */
  public static GoldenFormat standard() {
    return new GoldenFormat(DEFAULT_WIDTH);
  }

  /**
   * The format with a given width.
   *
   * @param width the longest command, in characters, still written on one line (at least 1)
   * @return the format
   * @throws SnapshotConfigurationException when width is below 1
   */
  public static GoldenFormat withWidth(int width) {
    if (width < 1) {
      throw new SnapshotConfigurationException("the golden format width must be at least 1; got " + width);
    }
    return new GoldenFormat(width);
  }

  /**
   * Renders a recording.
   *
   * @param recording the recording
   * @return its text, ending with a newline
   */
  public String render(Recording recording) {
    if (recording.commands().isEmpty() && recording.pseudoFiles().isEmpty()) {
      return NO_COMMANDS;
    }
    List<String> sections = new ArrayList<>();
    if (recording.commands().isEmpty()) {
      sections.add("(no commands)\n");
    }
    for (RecordedCommand c : recording.commands()) {
      sections.add(section(c, recording.outputsRecorded()));
    }
    for (PseudoFile f : recording.pseudoFiles()) {
      sections.add("### pseudo file " + f.number() + ": " + f.path() + "\n" + block(f.content()));
    }
    return String.join("\n", sections);
  }

  /**
   * Renders one command: {@code cwd:} and {@code env:} lines, then the quoted argument vector on one line
   * or, past the width, one argument per line indented by two spaces.
   *
   * @param command the command
   * @return its lines, ending with a newline
   */
  public String command(Command command) {
    StringBuilder b = new StringBuilder();
    command.workingDirectory().ifPresent(d -> b.append("cwd: ").append(quote(d.toString())).append('\n'));
    command.environment().forEach((k, v) -> b.append("env: ").append(k).append('=').append(quote(v)).append('\n'));
    List<String> words = command.argv().stream().map(GoldenFormat::quote).toList();
    String line = String.join(" ", words);
    if (line.length() <= width) {
      b.append(line).append('\n');
    } else {
      b.append(words.get(0)).append('\n');
      for (String w : words.subList(1, words.size())) {
        b.append("  ").append(w).append('\n');
      }
    }
    return b.toString();
  }

  /**
   * Renders a file a launch left in its sandbox, captured after the entrypoint returned.
   *
   * @param relativePath its path below the sandbox, with {@code /} separators
   * @param content its text
   * @return a {@code ### sandbox file <path>} section
   */
  public String sandboxFile(String relativePath, String content) {
    return "### sandbox file " + relativePath + "\n" + block(content);
  }

  private String section(RecordedCommand c, boolean outputs) {
    StringBuilder b = new StringBuilder("### ").append(c.number());
    switch (c.target().kind()) {
      case LOCAL -> { }
      case NODE -> b.append(" (on node ").append(c.target().nodes().get(0)).append(')');
      case ALL_NODES -> b.append(" (on all nodes: ").append(String.join(", ", c.target().nodes())).append(')');
      default -> throw new IllegalStateException("unknown target " + c.target().kind());
    }
    b.append('\n').append(command(c.command()));
    if (outputs) {
      boolean several = c.results().size() > 1;
      for (Map.Entry<String, CommandResult> e : c.results().entrySet()) {
        String on = several ? " on " + e.getKey() : "";
        CommandResult r = e.getValue();
        b.append("--- exit ").append(r.exitCode()).append(on).append('\n');
        if (!r.stdout().isEmpty()) {
          b.append("--- stdout").append(on).append('\n').append(block(r.stdout()));
        }
        if (!r.stderr().isEmpty()) {
          b.append("--- stderr").append(on).append('\n').append(block(r.stderr()));
        }
      }
    }
    return b.toString();
  }

  private static String block(String content) {
    if (content.isEmpty()) {
      return "(empty)\n";
    }
    return content.endsWith("\n") ? content : content + "\n\\ no newline at end\n";
  }

  /**
   * Quotes a word as a POSIX shell would need it: unchanged when it holds only safe characters, in single
   * quotes otherwise, and as {@code $'...'} with escapes when it holds control characters.
   *
   * @param word the word
   * @return its quoted form
   */
  public static String quote(String word) {
    if (SAFE.matcher(word).matches()) {
      return word;
    }
    boolean control = word.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f);
    if (!control) {
      return "'" + word.replace("'", "'\\''") + "'";
    }
    StringBuilder b = new StringBuilder("$'");
    for (int i = 0; i < word.length(); i++) {
      char ch = word.charAt(i);
      switch (ch) {
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        case '\r' -> b.append("\\r");
        case '\\' -> b.append("\\\\");
        case '\'' -> b.append("\\'");
        default -> {
          if (ch < 0x20 || ch == 0x7f) {
            b.append(String.format("\\x%02x", (int) ch));
          } else {
            b.append(ch);
          }
        }
      }
    }
    return b.append('\'').toString();
  }
}
