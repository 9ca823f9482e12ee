package dev.cipolicy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cipolicy.core.load.DocumentLimits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Reads the {@code on.schedule[*].cron} strings of a GitHub Actions workflow file. */
final class WorkflowCrons {
  private static final YAMLMapper YAML = new YAMLMapper();

  private WorkflowCrons() {}

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
