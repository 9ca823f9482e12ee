package dev.cipolicy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.concurrency.ConcurrencyEvent;
import dev.cipolicy.api.concurrency.ConcurrencyEventType;
import dev.cipolicy.api.concurrency.InFlightRun;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * The JSON inputs of {@code ci-policy concurrency}. Every error names the file and the field.
 *
 * <p>Event: an object with {@code type} (one of {@code superseded}, {@code closed}, {@code merged},
 * {@code scheduled}, {@code dispatched}), {@code workflow}, {@code run_id} (a string or an integer) and,
 * as the type requires, {@code pr_number} (a positive integer), {@code cron}, {@code release_ref} (a full
 * git ref) and {@code label}. In-flight runs: an array of objects with {@code run_id}, {@code workflow} and
 * optionally {@code pr_number}, {@code cron}, {@code release_ref}. Optional fields may be {@code null} or
 * {@code ""} for absent.
 */
final class ConcurrencyJson {
  static final Set<String> EVENT_FIELDS =
      Set.of("type", "workflow", "pr_number", "cron", "release_ref", "run_id", "label");
  static final Set<String> RUN_FIELDS = Set.of("run_id", "workflow", "pr_number", "cron", "release_ref");

  private ConcurrencyJson() {}

  /** Parses the event file's text. */
  static ConcurrencyEvent event(String file, String text) {
    Reader r = new Reader(file);
    JsonNode root = r.parse(text);
    r.object(root, "", EVENT_FIELDS);
    ConcurrencyEvent.Builder b = ConcurrencyEvent.builder();
    String type = r.requiredString(root, "type");
    b.type(ConcurrencyEventType.fromDocumentName(type).orElseThrow(() -> r.error("type",
        "unknown event type '" + type + "'; expected one of " + ConcurrencyEventType.documentNames())));
    b.workflow(r.requiredString(root, "workflow"));
    b.runId(r.runId(root, "run_id"));
    b.prNumber(r.prNumber(root, "pr_number"));
    b.cron(r.optionalString(root, "cron"));
    b.releaseRef(r.optionalString(root, "release_ref"));
    b.label(r.optionalString(root, "label"));
    try {
      return b.build();
    } catch (InvalidInputException e) {
      throw new Inputs.InputException(file + ": " + e.getMessage());
    }
  }

  /** Parses the in-flight file's text. */
  static List<InFlightRun> inFlight(String file, String text) {
    Reader r = new Reader(file);
    JsonNode root = r.parse(text);
    if (!root.isArray()) {
      throw r.error("", "expected an array of in-flight runs, found " + Reader.describe(root));
    }
    List<InFlightRun> runs = new ArrayList<>();
    for (int i = 0; i < root.size(); i++) {
      String at = "[" + i + "]";
      JsonNode item = root.get(i);
      r.object(item, at, RUN_FIELDS);
      InFlightRun.Builder b = InFlightRun.builder();
      b.runId(r.runId(item, at + ".run_id"));
      b.workflow(r.requiredString(item, at + ".workflow"));
      b.prNumber(r.prNumber(item, at + ".pr_number"));
      b.cron(r.optionalString(item, at + ".cron"));
      b.releaseRef(r.optionalString(item, at + ".release_ref"));
      try {
        runs.add(b.build());
      } catch (InvalidInputException e) {
        throw r.error(at, e.getMessage());
      }
    }
    return runs;
  }

  /**
   * Typed reads of one JSON file, each failure naming the file and the field path; also used for the
   * GitHub event payload ({@link GithubEvent}).
   */
  static final class Reader {
    private final String file;

    Reader(String file) {
      this.file = file;
    }

    JsonNode parse(String text) {
      return Inputs.parseJson(file, text);
    }

    Inputs.InputException error(String path, String message) {
      return new Inputs.InputException(file + ": " + (path.isEmpty() ? "" : path + ": ") + message);
    }

    void object(JsonNode node, String path, Set<String> allowed) {
      if (!node.isObject()) {
        throw error(path, "expected an object, found " + describe(node));
      }
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        String key = field.getKey();
        if (!allowed.contains(key)) {
          throw error(child(path, key), "unknown field '" + key + "'; expected one of " + new TreeSet<>(allowed));
        }
      }
    }

    private static String child(String path, String key) {
      return path.isEmpty() ? key : path + "." + key;
    }

    private static String key(String path) {
      return path.substring(path.lastIndexOf('.') + 1);
    }

    private static Optional<JsonNode> field(JsonNode object, String path) {
      JsonNode n = object.get(key(path));
      return n == null || n.isNull() ? Optional.empty() : Optional.of(n);
    }

    String requiredString(JsonNode object, String path) {
      JsonNode n = field(object, path).orElseThrow(() -> error(path, "missing required field"));
      if (!n.isTextual() || n.textValue().isEmpty()) {
        throw error(path, "expected a non-empty string, found " + describe(n));
      }
      return n.textValue();
    }

    Optional<String> optionalString(JsonNode object, String path) {
      Optional<JsonNode> n = field(object, path);
      if (n.isPresent() && !n.get().isTextual()) {
        throw error(path, "expected a string or null, found " + describe(n.get()));
      }
      return n.map(JsonNode::textValue).filter(s -> !s.isEmpty());
    }

    String runId(JsonNode object, String path) {
      JsonNode n = field(object, path).orElseThrow(() -> error(path, "missing required field"));
      if (n.isIntegralNumber()) {
        return n.bigIntegerValue().toString();
      }
      if (n.isTextual()) {
        return n.textValue();
      }
      throw error(path, "expected a run id (a string or an integer), found " + describe(n));
    }

    OptionalLong prNumber(JsonNode object, String path) {
      Optional<JsonNode> n = field(object, path);
      if (n.isEmpty() || (n.get().isTextual() && n.get().textValue().isEmpty())) {
        return OptionalLong.empty();
      }
      BigInteger value;
      if (n.get().isIntegralNumber()) {
        value = n.get().bigIntegerValue();
      } else if (n.get().isTextual() && n.get().textValue().matches("[0-9]{1,19}")) {
        value = new BigInteger(n.get().textValue());
      } else {
        throw error(path, "expected a positive integer, found " + describe(n.get()));
      }
      if (value.signum() <= 0 || value.bitLength() > 63) {
        throw error(path, "expected a positive integer, found " + value);
      }
      return OptionalLong.of(value.longValue());
    }

    static String describe(JsonNode n) {
      if (n.isTextual()) {
        return "a string ('" + n.textValue() + "')";
      }
      if (n.isIntegralNumber()) {
        return "an integer (" + n.asText() + ")";
      }
      if (n.isNumber()) {
        return "a number (" + n.asText() + ")";
      }
      if (n.isBoolean()) {
        return "a boolean (" + n.asText() + ")";
      }
      if (n.isNull()) {
        return "null";
      }
      return n.isArray() ? "an array" : "an object";
    }
  }
}
