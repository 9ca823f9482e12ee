package dev.cipolicy.cli;

import java.util.ArrayList;
import java.util.List;

/** The {@code $ ./ci-policy ...} commands of a page's {@code console} blocks, each with the output shown under it. */
final class ConsoleTranscripts {
  private ConsoleTranscripts() {}

  /** One command of a transcript and the output the page shows for it. */
  record Example(String command, String output) {}

  static List<Example> of(List<String> lines) {
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
}
