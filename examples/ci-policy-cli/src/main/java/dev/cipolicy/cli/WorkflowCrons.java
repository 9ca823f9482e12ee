package dev.cipolicy.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.cipolicy.core.load.DocumentLimits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Reads the {@code on.schedule[*].cron} strings of a GitHub Actions workflow file. */
final class WorkflowCrons {
  private static final YAMLMapper YAML = new YAMLMapper();

  private WorkflowCrons() {}

  /**
   * Refuses a workflow with a YAML alias: the YAML reader reports an alias by its anchor's name, so a cron
   * given as {@code *nightly} would be read as the text {@code nightly} — a different document.
   */
  private static void rejectAliases(String name, String text) throws IOException {
    try (JsonParser p = YAML.getFactory().createParser(text)) {
      while (p.nextToken() != null) {
        if (p instanceof YAMLParser y && y.isCurrentAlias()) {
          JsonLocation at = p.currentTokenLocation();
          String alias = p.getText();
          throw new Inputs.InputException("workflow " + name + ":" + at.getLineNr() + ":" + at.getColumnNr()
              + ": YAML alias *" + (alias.length() > 80 ? alias.substring(0, 80) + "..." : alias)
              + " is not supported (an alias would be read as its anchor's name); write the value out");
        }
      }
    }
  }

  static List<String> read(String name, String text) {
    int line = 1;
    int start = 0;
    for (int i = 0; i <= text.length(); i++) {
      if (i == text.length() || text.charAt(i) == '\n') {
        if (i - start > DocumentLimits.MAX_YAML_LINE_CHARS) {
          throw new Inputs.InputException("cannot parse workflow " + name + ": line " + line + " is " + (i - start)
              + " characters long; YAML lines are limited to " + DocumentLimits.MAX_YAML_LINE_CHARS);
        }
        line++;
        start = i + 1;
      }
    }
    JsonNode root;
    try {
      rejectAliases(name, text);
      root = YAML.readTree(text);
    } catch (IOException e) {
      throw new Inputs.InputException("cannot parse workflow " + name + ": " + e.getMessage().lines().findFirst()
          .orElse(""));
    }
    List<String> crons = new ArrayList<>();
    if (root == null || !root.isObject()) {
      throw new Inputs.InputException("workflow " + name + " is not a YAML mapping");
    }
    // YAML 1.1 reads the key `on` as the boolean true; Jackson then names it "true".
    JsonNode on = root.has("on") ? root.get("on") : root.get("true");
    JsonNode schedule = on == null ? null : on.get("schedule");
    if (schedule == null) {
      return crons;
    }
    if (!schedule.isArray()) {
      throw new Inputs.InputException("workflow " + name + ": on.schedule must be a list of {cron: ...}");
    }
    for (JsonNode entry : schedule) {
      JsonNode cron = entry.get("cron");
      if (cron == null || !cron.isTextual()) {
        throw new Inputs.InputException("workflow " + name + ": every on.schedule entry needs a cron string");
      }
      crons.add(cron.textValue());
    }
    return crons;
  }
}
