package dev.cipolicy.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.api.run.RunPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The GitHub Actions formats of {@code resolve} and {@code plan-file-run}: the PR labels as the JSON text
 * {@code toJSON(github.event.pull_request.labels.*.name)} gives, the {@code $GITHUB_OUTPUT} lines, the log line
 * and compact JSON string arrays.
 */
final class GithubFormats {
  private static final JsonFactory JSON = new JsonFactory();
  private static final ObjectMapper COMPACT =
      new ObjectMapper(new JsonFactoryBuilder().characterEscapes(new LowercaseHexEscapes()).build());

  private GithubFormats() {}

  /**
   * Decodes the PR labels: exactly one JSON array whose elements are all strings, nothing after it.
   *
   * @param json the JSON text
   * @return the label names in order
   * @throws Inputs.InputException {@code PR labels were not a JSON string array} for anything else
   */
  static List<String> prLabels(String json) {
    try (JsonParser p = JSON.createParser(json)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw notAStringArray();
      }
      List<String> labels = new ArrayList<>();
      for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
        if (t != JsonToken.VALUE_STRING) {
          throw notAStringArray();
        }
        labels.add(p.getText());
      }
      if (p.nextToken() != null) {
        throw notAStringArray();
      }
      return labels;
    } catch (IOException e) {
      throw notAStringArray();
    }
  }

  private static Inputs.InputException notAStringArray() {
    return new Inputs.InputException("PR labels were not a JSON string array");
  }

  /**
   * The four {@code $GITHUB_OUTPUT} lines, in order, each ending in a newline: {@code cadence=},
   * {@code raw_labels=} (space-joined), {@code bypass_fastfail=}, {@code skipped_stages=} (compact sorted JSON
   * array).
   *
   * @param run the run policy
   * @param skippedStages the skipped stages, in any order
   * @return the text to append to {@code $GITHUB_OUTPUT}
   */
  static String outputLines(RunPolicy run, List<String> skippedStages) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("cadence", run.cadence());
    values.put("raw_labels", String.join(" ", run.rawLabels()));
    values.put("bypass_fastfail", String.valueOf(run.bypassFastfail()));
    values.put("skipped_stages", sortedArray(skippedStages));
    return outputBlock(values);
  }

  /**
   * {@code $GITHUB_OUTPUT} lines {@code name=value}, one per entry in order, each ending in a newline. A value with
   * a line break (CR or LF) would start an output of its own, so it is refused: the caller writes nothing.
   *
   * @param values output names (ours: lowercase letters and {@code _}) to values
   * @return the text to append
   * @throws Inputs.InputException {@code cannot write output <name>: the value contains a line break} for such a value
   */
  static String outputBlock(Map<String, String> values) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, String> e : values.entrySet()) {
      String v = e.getValue();
      if (v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0) {
        throw new Inputs.InputException("cannot write output " + e.getKey()
            + ": the value contains a line break, which would forge another output; nothing was written");
      }
      sb.append(e.getKey()).append('=').append(v).append('\n');
    }
    return sb.toString();
  }

  /**
   * The log line printed after resolution.
   *
   * @param run the run policy
   * @param skippedStages the skipped stages
   * @return {@code Resolved CI policy: cadence=<c> labels=[<raw labels>] bypass_fastfail=<b> skipped_stages=<json>}
   */
  static String summaryLine(RunPolicy run, List<String> skippedStages) {
    return "Resolved CI policy: cadence=" + run.cadence()
        + " labels=[" + String.join(" ", run.rawLabels()) + "]"
        + " bypass_fastfail=" + run.bypassFastfail()
        + " skipped_stages=" + sortedArray(skippedStages);
  }

  /**
   * A compact, sorted, de-duplicated JSON array of strings.
   *
   * @param items the strings
   * @return e.g. {@code ["stage-c-8-gpu-b200"]}
   */
  static String sortedArray(List<String> items) {
    return array(List.copyOf(new TreeSet<>(items)));
  }

  /**
   * A compact JSON array of strings in the given order; a control character without a short escape is
   * written as a backslash, {@code u} and four lowercase hex digits.
   *
   * @param items the strings
   * @return e.g. {@code ["gpu","h100"]}
   */
  static String array(List<String> items) {
    try {
      return COMPACT.writeValueAsString(items);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a list of strings did not render as JSON", e);
    }
  }

  /** Jackson's standard escapes, with lowercase hex digits in the four-digit escapes of control characters. */
  private static final class LowercaseHexEscapes extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private final int[] ascii = CharacterEscapes.standardAsciiEscapesForJSON();

    LowercaseHexEscapes() {
      for (int c = 0; c < 0x20; c++) {
        if (ascii[c] == CharacterEscapes.ESCAPE_STANDARD) {
          ascii[c] = CharacterEscapes.ESCAPE_CUSTOM;
        }
      }
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public @Nullable SerializableString getEscapeSequence(int ch) {
      // asked for every character beyond ASCII too: null writes it as it is
      return ch < 0x20 ? new SerializedString(String.format(Locale.ROOT, "\\u%04x", ch)) : null;
    }
  }
}
