package dev.cipolicy.fleet.job;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.cipolicy.api.CiPolicyException;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The arguments of a CI job in the queue: a JSON object that the submitter writes and the collector reads.
 *
 * <pre>{@code
 * {"v":1,"repository":"acme/trainer","commit":"<sha>","command":["python","run.py"],
 *  "env":{"CI_CADENCE":"nightly"},"deviceEnv":["CUDA_VISIBLE_DEVICES"],"image":"ghcr.io/acme/ci:1"}
 * }</pre>
 *
 * <p>{@code env}, {@code deviceEnv} and {@code image} may be left out. Reading is strict: a version other than 1, an
 * unknown or repeated field, a value of the wrong JSON type or text of more than {@value #MAX_CHARS} characters is
 * an {@link InvalidCiJobException}, so a collector never runs a job whose arguments it does not fully understand.
 */
public final class CiJobArgs {

  /** The most characters of a job's arguments (the queue's limit for them). */
  public static final int MAX_CHARS = 64 * 1024;

  /** The version written and the only one read. */
  public static final int VERSION = 1;

  private static final JsonFactory JSON = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8).maxStringLength(MAX_CHARS).build())
      .build();
  private static final Set<String> FIELDS = Set.of("v", "repository", "commit", "command", "env", "deviceEnv", "image");

  private CiJobArgs() {}

  /**
   * Writes a job's arguments.
   *
   * @param job the job
   * @return its JSON, fields in the order shown above
   * @throws InvalidCiJobException when the JSON would be longer than {@value #MAX_CHARS} characters
   */
  public static String write(CiJob job) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeNumberField("v", VERSION);
      g.writeStringField("repository", job.repository());
      g.writeStringField("commit", job.commit());
      g.writeArrayFieldStart("command");
      for (String a : job.command()) {
        g.writeString(a);
      }
      g.writeEndArray();
      g.writeObjectFieldStart("env");
      for (Map.Entry<String, String> e : job.env().entrySet()) {
        g.writeStringField(e.getKey(), e.getValue());
      }
      g.writeEndObject();
      g.writeArrayFieldStart("deviceEnv");
      for (String n : job.deviceEnv()) {
        g.writeString(n);
      }
      g.writeEndArray();
      if (job.image().isPresent()) {
        g.writeStringField("image", job.image().get());
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String json = out.toString();
    if (json.length() > MAX_CHARS) {
      throw new InvalidCiJobException("the job's arguments have " + json.length() + " characters; expected at most "
          + MAX_CHARS + " (shorten the command or its environment)");
    }
    return json;
  }

  /**
   * Reads a job's arguments.
   *
   * @param json the arguments as the queue returned them
   * @return the job
   * @throws InvalidCiJobException naming what does not fit
   */
  public static CiJob read(String json) {
    if (json.length() > MAX_CHARS) {
      throw new InvalidCiJobException("the job's arguments have " + json.length() + " characters; expected at most "
          + MAX_CHARS);
    }
    CiJob.Builder b = CiJob.builder();
    Set<String> seen = new java.util.HashSet<>();
    try (JsonParser p = JSON.createParser(json)) {
      expect(p.nextToken() == JsonToken.START_OBJECT, "the arguments are not a JSON object");
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        expect(FIELDS.contains(field), "the arguments have an unknown field '" + CiJob.shown(field)
            + "'; expected " + "v, repository, commit, command, env, deviceEnv, image");
        expect(seen.add(field), "the arguments give field '" + field + "' twice");
        JsonToken t = p.nextToken();
        switch (field) {
          case "v" -> expect(t == JsonToken.VALUE_NUMBER_INT && p.getIntValue() == VERSION,
              "the arguments are of version " + CiJob.shown(p.getText()) + "; expected " + VERSION);
          case "repository" -> b.repository(string(p, t, field));
          case "commit" -> b.commit(string(p, t, field));
          case "command" -> b.command(strings(p, t, field));
          case "deviceEnv" -> b.deviceEnv(strings(p, t, field));
          case "image" -> b.image(string(p, t, field));
          default -> b.env(map(p, t, field));
        }
      }
      expect(p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null,
          "the arguments have text after their object");
    } catch (IOException e) {
      throw new InvalidCiJobException("the arguments are not valid JSON: " + CiJob.shown(firstLine(e.getMessage())));
    }
    for (String required : List.of("v", "repository", "commit", "command")) {
      expect(seen.contains(required), "the arguments have no field '" + required + "'");
    }
    try {
      return b.build();
    } catch (InvalidCiJobException e) {
      throw e;
    } catch (CiPolicyException e) {
      throw new InvalidCiJobException("the arguments do not make a CI job: " + e.getMessage());
    }
  }

  private static String string(JsonParser p, JsonToken t, String field) throws IOException {
    expect(t == JsonToken.VALUE_STRING, "field '" + field + "' is not a string");
    return p.getText();
  }

  private static List<String> strings(JsonParser p, JsonToken t, String field) throws IOException {
    expect(t == JsonToken.START_ARRAY, "field '" + field + "' is not an array of strings");
    List<String> out = new ArrayList<>();
    JsonToken next;
    while ((next = p.nextToken()) != JsonToken.END_ARRAY) {
      expect(next == JsonToken.VALUE_STRING, "field '" + field + "' holds a value that is not a string");
      expect(out.size() < CiJob.MAX_ARGS, "field '" + field + "' has more than " + CiJob.MAX_ARGS + " items");
      out.add(p.getText());
    }
    return out;
  }

  private static Map<String, String> map(JsonParser p, JsonToken t, String field) throws IOException {
    expect(t == JsonToken.START_OBJECT, "field '" + field + "' is not an object of strings");
    Map<String, String> out = new LinkedHashMap<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      expect(p.nextToken() == JsonToken.VALUE_STRING, "field '" + field + "." + CiJob.shown(name)
          + "' is not a string");
      expect(out.put(name, p.getText()) == null, "field '" + field + "' gives variable '" + CiJob.shown(name)
          + "' twice");
      expect(out.size() <= CiJob.MAX_ENV, "field '" + field + "' has more than " + CiJob.MAX_ENV + " variables");
    }
    return out;
  }

  private static void expect(boolean ok, String problem) {
    if (!ok) {
      throw new InvalidCiJobException(problem);
    }
  }

  private static String firstLine(@org.jspecify.annotations.Nullable String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
