package dev.cipolicy.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.gate.CiRunIdentity;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.MetricPoint;
import dev.cipolicy.gate.MetricRecord;
import dev.cipolicy.gate.MetricSeries;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.RecordLimits;
import dev.cipolicy.gate.RunId;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.Sample;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The JSON files of the gate commands.
 *
 * <p>A <b>record</b> is an object from metric key to an array of {@code [step, value]} pairs, e.g.
 * {@code {"train/grad_norm": [[0, 1.02], [1, 0.97]], "rollout/raw_reward": [[0, "NaN"]]}}; a step is a
 * non-negative integer, a value a number or one of the strings {@code "NaN"}, {@code "Infinity"},
 * {@code "-Infinity"}. A record that cannot be read is not an error of the command: its gates get ERROR
 * verdicts, and a series that cannot be read makes only its own gates ERROR.
 *
 * <p>A <b>history</b> file is the state of the in-memory store: {@code {"format": "ci-policy-gate-history/1",
 * "runs": [...], "level_starts": [...]}}; each run has {@code run_id, test_path, backend, suite,
 * created_at, ci_run_id, ci_repository, ci_attempt, commit, cadence, trusted, revoked, samples}
 * ({@code ci_repository} and {@code ci_attempt} only for a run written with a CI run identity), each sample {@code metric, steps,
 * constraint, step, value, trusted}. A history file that cannot be read is an error (exit 1).
 */
final class GateFiles {
  static final String HISTORY_FORMAT = "ci-policy-gate-history/1";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private GateFiles() {}

  static String pretty(String compactJson) {
    try {
      return PRETTY.writeValueAsString(MAPPER.readTree(compactJson));
    } catch (IOException e) {
      throw new IllegalStateException("our own JSON did not parse", e);
    }
  }

  /** A record beyond {@link RecordLimits}: reported as the gate's own {@code ::error::}, and its gates ERROR. */
  static final class RecordLimitException extends CiPolicyException {
    private static final long serialVersionUID = 1L;

    RecordLimitException(String message) {
      super(message);
    }
  }

  /**
   * Reads a record file: at most {@link RecordLimits#MAX_BYTES} + 1 bytes of it (so {@code /dev/zero} or a
   * huge file costs no more than the limit), then parses it as a stream, stopping as soon as it holds more than
   * {@link RecordLimits#MAX_METRICS} series or {@link RecordLimits#MAX_POINTS} points. Throws when the whole
   * record cannot be used, which makes every gate of the test ERROR.
   */
  static MetricRecord record(String file, Path path) {
    byte[] bytes;
    Inputs.requireRegularFile(path, "record file", RecordLimits.MAX_BYTES);
    try (InputStream in = Files.newInputStream(path)) {
      bytes = in.readNBytes(Math.toIntExact(RecordLimits.MAX_BYTES + 1));
    } catch (IOException e) {
      throw new Inputs.InputException("cannot read record file " + path + ": " + Inputs.describe(e));
    }
    if (bytes.length > RecordLimits.MAX_BYTES) {
      throw new RecordLimitException(RecordLimits.tooLarge(file));
    }
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new Inputs.InputException("cannot read record file " + path + ": the file is not valid UTF-8");
    }
    return record(file, text);
  }

  /** Parses a record's text as a stream of series; each point is read as a small tree. */
  static MetricRecord record(String file, String text) {
    try (JsonParser p = MAPPER.getFactory().createParser(text)) {
      p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new Inputs.InputException(file + ": the file is empty; expected JSON");
      }
      if (first != JsonToken.START_OBJECT) {
        JsonNode root = p.readValueAsTree();
        throw new Inputs.InputException(file + ": expected an object from metric key to [[step, value], ...],"
            + " found " + describe(root));
      }
      Map<String, MetricSeries> metrics = new LinkedHashMap<>();
      long points = 0;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String key = p.currentName();
        if (metrics.size() == RecordLimits.MAX_METRICS) {
          throw new RecordLimitException(file + ": " + RecordLimits.tooManyMetrics());
        }
        p.nextToken();
        MetricSeries series = series(p, RecordLimits.MAX_POINTS - points, file);
        points += series.points().size();
        metrics.put(key, series);
      }
      if (p.nextToken() != null) {
        JsonLocation l = p.currentTokenLocation();
        throw new Inputs.InputException(file + ":" + l.getLineNr() + ":" + l.getColumnNr()
            + ": malformed JSON: unexpected content after the end of the value");
      }
      return MetricRecord.of(metrics);
    } catch (JsonProcessingException e) {
      JsonLocation l = e.getLocation();
      String where = l == null ? "" : ":" + l.getLineNr() + ":" + l.getColumnNr();
      String message = String.valueOf(e.getOriginalMessage());
      int nl = message.indexOf('\n');
      throw new Inputs.InputException(file + where + ": malformed JSON: "
          + (nl < 0 ? message : message.substring(0, nl)).strip());
    } catch (IOException e) {
      throw new Inputs.InputException(file + ": unreadable JSON: " + Inputs.describe(e));
    }
  }

  /**
   * One series from the parser at its first token; a series that breaks the format is malformed. Points of a
   * malformed series count towards the limit too, as they were read.
   */
  private static MetricSeries series(JsonParser p, long pointsLeft, String file) throws IOException {
    if (p.currentToken() != JsonToken.START_ARRAY) {
      JsonNode node = p.readValueAsTree();
      return MetricSeries.malformed("expected an array of [step, value] pairs, found " + describe(node));
    }
    List<MetricPoint> points = new ArrayList<>();
    @Nullable String malformed = null;
    long read = 0;
    for (int i = 0; p.nextToken() != JsonToken.END_ARRAY; i++) {
      if (read++ == pointsLeft) {
        throw new RecordLimitException(file + ": " + RecordLimits.tooManyPoints());
      }
      JsonNode node = p.readValueAsTree();
      if (malformed != null) {
        continue; // the rest of a malformed series is read past, not judged
      }
      String problem = point(node, i, points);
      if (problem != null) {
        malformed = problem;
        points.clear();
      }
    }
    return malformed != null ? MetricSeries.malformed(malformed) : MetricSeries.of(points);
  }

  /** Adds the point to the list, or says why it is not one. */
  private static @Nullable String point(JsonNode p, int i, List<MetricPoint> points) {
    if (!p.isArray() || p.size() != 2) {
      return "point " + i + " is not a [step, value] pair: " + shown(p);
    }
    JsonNode step = p.get(0);
    if (!step.isIntegralNumber() || !step.canConvertToInt() || step.intValue() < 0) {
      return "point " + i + ": the step must be an integer from 0 to " + Integer.MAX_VALUE + ", found " + shown(step);
    }
    Optional<Double> value = value(p.get(1));
    if (value.isEmpty()) {
      return "point " + i + ": the value must be a number or \"NaN\", \"Infinity\", \"-Infinity\", found "
          + shown(p.get(1));
    }
    points.add(new MetricPoint(step.intValue(), value.get()));
    return null;
  }

  /** A JSON value as shown in a message: at most 100 characters, whole code points. */
  private static String shown(JsonNode n) {
    String text = n.toString();
    if (text.length() <= 100) {
      return text;
    }
    int end = Character.isHighSurrogate(text.charAt(99)) ? 99 : 100;
    return text.substring(0, end) + "… (" + text.length() + " characters)";
  }

  private static Optional<Double> value(JsonNode v) {
    if (v.isNumber()) {
      return Optional.of(v.doubleValue());
    }
    if (v.isTextual()) {
      return switch (v.textValue()) {
        case "NaN" -> Optional.of(Double.NaN);
        case "Infinity", "+Infinity" -> Optional.of(Double.POSITIVE_INFINITY);
        case "-Infinity" -> Optional.of(Double.NEGATIVE_INFINITY);
        default -> Optional.empty();
      };
    }
    return Optional.empty();
  }

  static String describe(JsonNode n) {
    if (n.isObject()) {
      return "an object";
    }
    if (n.isArray()) {
      return "an array";
    }
    if (n.isTextual()) {
      return "a string";
    }
    if (n.isNumber()) {
      return "a number (" + n + ")";
    }
    if (n.isBoolean()) {
      return "a boolean (" + n + ")";
    }
    return "null";
  }

  /** Reads a history file into a store; every problem is an {@link Inputs.InputException} naming the field. */
  static InMemoryMetricHistoryStore history(String file, String text) {
    JsonNode root = Inputs.parseJson(file, text);
    Reader r = new Reader(file);
    r.object(root, "");
    String format = r.string(root, "format");
    if (!format.equals(HISTORY_FORMAT)) {
      throw r.error("format", "unsupported format '" + format + "'; expected " + HISTORY_FORMAT);
    }
    List<InMemoryMetricHistoryStore.StoredRun> runs = new ArrayList<>();
    JsonNode runsNode = r.array(root, "runs");
    for (int i = 0; i < runsNode.size(); i++) {
      String at = "runs[" + i + "]";
      JsonNode run = runsNode.get(i);
      r.object(run, at);
      SeriesKey series = r.series(run, at);
      List<Sample> samples = new ArrayList<>();
      JsonNode samplesNode = r.array(run, at + ".samples");
      for (int j = 0; j < samplesNode.size(); j++) {
        String sat = at + ".samples[" + j + "]";
        JsonNode s = samplesNode.get(j);
        r.object(s, sat);
        samples.add(r.guard(sat, () -> new Sample(r.coordinate(s, sat), r.number(s, sat + ".value"),
            r.bool(s, sat + ".trusted"))));
      }
      Optional<String> ciRunId = r.optionalString(run, at + ".ci_run_id");
      Optional<String> repository = r.optionalString(run, at + ".ci_repository");
      Optional<Integer> attempt = run.has("ci_attempt") && !run.get("ci_attempt").isNull()
          ? Optional.of(r.integer(run, at + ".ci_attempt")) : Optional.empty();
      if ((attempt.isPresent() || repository.isPresent()) && (attempt.isEmpty() || ciRunId.isEmpty())) {
        throw r.error(at, "a CI run identity needs ci_run_id and ci_attempt (ci_repository is optional)");
      }
      Optional<CiRunIdentity> identity = attempt.isEmpty() ? Optional.empty()
          : Optional.of(r.guard(at, () -> new CiRunIdentity(repository, ciRunId.orElseThrow(), attempt.get())));
      Provenance provenance = new Provenance(ciRunId, r.optionalString(run, at + ".commit"),
          r.optionalString(run, at + ".cadence"), identity);
      RunRecord record = r.guard(at, () -> new RunRecord(series, provenance, r.instant(run, at + ".created_at"),
          r.bool(run, at + ".trusted"), samples));
      runs.add(new InMemoryMetricHistoryStore.StoredRun(r.runId(run, at + ".run_id"), record,
          r.bool(run, at + ".revoked")));
    }
    List<InMemoryMetricHistoryStore.LevelStart> starts = new ArrayList<>();
    JsonNode startsNode = root.has("level_starts") ? r.array(root, "level_starts") : MAPPER.createArrayNode();
    for (int i = 0; i < startsNode.size(); i++) {
      String at = "level_starts[" + i + "]";
      JsonNode s = startsNode.get(i);
      r.object(s, at);
      starts.add(new InMemoryMetricHistoryStore.LevelStart(r.series(s, at), r.coordinate(s, at),
          r.runId(s, at + ".run_id")));
    }
    return r.guard("", () -> InMemoryMetricHistoryStore.restore(new InMemoryMetricHistoryStore.Snapshot(runs, starts)));
  }

  /** Writes a text file whole (replacing it), or fails with the file named. */
  static void writeText(Path file, String text) {
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new Inputs.InputException("cannot write " + file + ": " + Inputs.describe(e));
    }
  }

  /** Writes a store's state as a history file, pretty-printed and deterministic. */
  static String history(InMemoryMetricHistoryStore store) {
    InMemoryMetricHistoryStore.Snapshot snap = store.snapshot();
    ObjectNode root = MAPPER.createObjectNode();
    root.put("format", HISTORY_FORMAT);
    ArrayNode runs = root.putArray("runs");
    for (InMemoryMetricHistoryStore.StoredRun r : snap.runs()) {
      ObjectNode run = runs.addObject();
      run.put("run_id", r.id().value());
      putSeries(run, r.run().series());
      run.put("created_at", r.run().createdAt().toString());
      r.run().provenance().ciRunId().ifPresent(v -> run.put("ci_run_id", v));
      r.run().provenance().commit().ifPresent(v -> run.put("commit", v));
      r.run().provenance().cadence().ifPresent(v -> run.put("cadence", v));
      r.run().provenance().identity().ifPresent(i -> {
        i.repository().ifPresent(v -> run.put("ci_repository", v));
        run.put("ci_attempt", i.attempt());
      });
      run.put("trusted", r.run().trusted());
      run.put("revoked", r.revoked());
      ArrayNode samples = run.putArray("samples");
      for (Sample s : r.run().samples()) {
        ObjectNode sample = samples.addObject();
        putCoordinate(sample, s.coordinate());
        sample.put("value", s.value());
        sample.put("trusted", s.trusted());
      }
    }
    ArrayNode starts = root.putArray("level_starts");
    for (InMemoryMetricHistoryStore.LevelStart l : snap.levelStarts()) {
      ObjectNode s = starts.addObject();
      putSeries(s, l.series());
      putCoordinate(s, l.coordinate());
      s.put("run_id", l.firstRun().value());
    }
    try {
      return PRETTY.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render the history", e);
    }
  }

  private static void putSeries(ObjectNode node, SeriesKey s) {
    node.put("test_path", s.testPath());
    node.put("backend", s.backend());
    node.put("suite", s.suite());
  }

  private static void putCoordinate(ObjectNode node, Coordinate c) {
    node.put("metric", c.metricKey());
    node.put("steps", c.stepsKey());
    node.put("constraint", c.constraintKey());
    node.put("step", c.step());
  }

  /** Typed reads of the history file; each failure names the file and the field path. */
  private static final class Reader {
    private final String file;

    Reader(String file) {
      this.file = file;
    }

    Inputs.InputException error(String path, String message) {
      return new Inputs.InputException(file + ": " + (path.isEmpty() ? "" : path + ": ") + message);
    }

    <T> T guard(String path, java.util.function.Supplier<T> build) {
      try {
        return build.get();
      } catch (Inputs.InputException e) {
        throw e;
      } catch (CiPolicyException | IllegalArgumentException e) {
        throw error(path, e.getMessage());
      }
    }

    private static String key(String path) {
      return path.substring(path.lastIndexOf('.') + 1);
    }

    private JsonNode field(JsonNode object, String path) {
      JsonNode n = object.get(key(path));
      if (n == null || n.isNull()) {
        throw error(path, "missing required field");
      }
      return n;
    }

    void object(JsonNode node, String path) {
      if (!node.isObject()) {
        throw error(path, "expected an object, found " + describe(node));
      }
    }

    JsonNode array(JsonNode object, String path) {
      JsonNode n = field(object, path);
      if (!n.isArray()) {
        throw error(path, "expected an array, found " + describe(n));
      }
      return n;
    }

    String string(JsonNode object, String path) {
      JsonNode n = field(object, path);
      if (!n.isTextual()) {
        throw error(path, "expected a string, found " + describe(n));
      }
      return n.textValue();
    }

    Optional<String> optionalString(JsonNode object, String path) {
      JsonNode n = object.get(key(path));
      if (n == null || n.isNull()) {
        return Optional.empty();
      }
      if (!n.isTextual()) {
        throw error(path, "expected a string or null, found " + describe(n));
      }
      return Optional.of(n.textValue());
    }

    boolean bool(JsonNode object, String path) {
      JsonNode n = field(object, path);
      if (!n.isBoolean()) {
        throw error(path, "expected true or false, found " + describe(n));
      }
      return n.booleanValue();
    }

    double number(JsonNode object, String path) {
      JsonNode n = field(object, path);
      if (!n.isNumber()) {
        throw error(path, "expected a number, found " + describe(n));
      }
      return n.doubleValue();
    }

    int integer(JsonNode object, String path) {
      JsonNode n = field(object, path);
      if (!n.isIntegralNumber() || !n.canConvertToInt()) {
        throw error(path, "expected an integer, found " + describe(n));
      }
      return n.intValue();
    }

    RunId runId(JsonNode object, String path) {
      JsonNode n = field(object, path);
      if (!n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < 1) {
        throw error(path, "expected a positive integer, found " + describe(n));
      }
      return new RunId(n.longValue());
    }

    Instant instant(JsonNode object, String path) {
      String text = string(object, path);
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException e) {
        throw error(path, "expected an ISO-8601 instant such as 2026-11-01T15:00:00Z, found '" + text + "'");
      }
    }

    SeriesKey series(JsonNode object, String path) {
      String test = string(object, path + ".test_path");
      String backend = string(object, path + ".backend");
      String suite = string(object, path + ".suite");
      return guard(path, () -> new SeriesKey(test, backend, suite));
    }

    Coordinate coordinate(JsonNode object, String path) {
      String metric = string(object, path + ".metric");
      String steps = string(object, path + ".steps");
      String constraint = string(object, path + ".constraint");
      int step = integer(object, path + ".step");
      return guard(path, () -> new Coordinate(metric, steps, constraint, step));
    }
  }
}
