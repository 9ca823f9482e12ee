package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.cli.CliTestSupport.Result;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code resolve} on a runner with no flags and none of the reference variables: the event name from
 * {@code GITHUB_EVENT_NAME}, labels and schedule from the payload at {@code GITHUB_EVENT_PATH}. The payloads
 * are the project's own fixtures of the webhook shape, under {@code src/test/resources/events}.
 */
class ResolveRunnerEnvironmentTest {
  static final Path EVENTS = Path.of("src/test/resources/events").toAbsolutePath();
  private static final String ALL_STAGES = "[\"stage-b-2-gpu-h200\",\"stage-c-2-gpu-h200\",\"stage-c-4-gpu-h200\","
      + "\"stage-c-4-gpu-mi350\",\"stage-c-8-gpu-b200\",\"stage-c-8-gpu-h100\",\"stage-c-8-gpu-h200\"]";

  @TempDir
  Path tmp;

  private Map<String, String> runner(String event, String payload) {
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_EVENT_NAME", event);
    env.put("GITHUB_EVENT_PATH", EVENTS.resolve(payload).toString());
    env.put("GITHUB_OUTPUT", tmp.resolve("github_output").toString());
    return env;
  }

  private Result resolve(Map<String, String> env, String... extra) {
    List<String> args = new ArrayList<>(List.of("resolve", "--policy", CliTestSupport.POLICY));
    args.addAll(List.of(extra));
    return CliTestSupport.run(env, args.toArray(String[]::new));
  }

  private String output() throws Exception {
    Path p = tmp.resolve("github_output");
    return Files.exists(p) ? Files.readString(p) : "";
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(delimiter = '|', value = {
      "pull_request|pull_request-labeled.json|regular|run-ci-lora bypass-fastfail|true",
      "pull_request|pull_request-no-labels-key.json|regular||false",
      "pull_request|pull_request-draft.json|regular||false",
      "pull_request|pull_request-fork.json|regular|run-ci-megatron|false",
      "schedule|schedule-weekly.json|weekly||true",
      "schedule|schedule-nightly.json|nightly||true",
      "workflow_dispatch|workflow_dispatch.json|regular||false"})
  void theRunnersVariablesAndPayloadAreEnough(String event, String payload, String cadence, String labels,
      String bypass) throws Exception {
    Result r = resolve(runner(event, payload));
    assertThat(r.code()).as(r.err()).isZero();
    String raw = labels == null ? "" : labels;
    assertThat(output()).isEqualTo("cadence=" + cadence + "\nraw_labels=" + raw + "\nbypass_fastfail=" + bypass
        + "\nskipped_stages=[]\n");
  }

  @Test
  void oddLabelNamesAreDroppedAndABareKnownLabelWarns() throws Exception {
    Result r = resolve(runner("pull_request", "pull_request-labeled.json"), "--json");
    assertThat(r.code()).isZero();
    // 'lora' is a known label without the prefix; the others are not test areas and are dropped silently
    assertThat(r.err()).isEqualTo("::warning title=label-without-prefix::PR label 'lora' ignored: only 'run-ci-<label>' requests a test area"
        + " (did you mean 'run-ci-lora'?)\n");
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("raw_labels").toString()).isEqualTo("[\"run-ci-lora\",\"bypass-fastfail\"]");
    assertThat(json.get("explanation").get("reasons").get(1).get("detail").asText()).isEqualTo("PR labels"
        + " ['good first issue', 'prio: high \uD83D\uDD25', 'a::b', 'say \"hi\"', '%0A,tricky', 'lora'] were"
        + " dropped: only workflow labels and run-ci-<label> count");
  }

  @Test
  void thePayloadGivesNumberActionLabelsAndCron() throws Exception {
    GithubEvent fork = parse("pull_request-fork.json", "pull_request");
    assertThat(fork.prNumber()).hasValue(104);
    assertThat(fork.action()).contains("synchronize");
    assertThat(fork.prLabels()).contains(List.of("run-ci-megatron"));
    GithubEvent noLabels = parse("pull_request-no-labels-key.json", "pull_request");
    assertThat(noLabels.prLabels()).contains(List.of());
    assertThat(noLabels.action()).contains("opened");
    GithubEvent weekly = parse("schedule-weekly.json", "schedule");
    assertThat(weekly.schedule()).contains("0 15 * * 6");
    assertThat(weekly.prLabels()).isEmpty();
    assertThat(weekly.prNumber()).isEmpty();
    assertThat(parse("workflow_dispatch.json", "workflow_dispatch").schedule()).isEmpty();
  }

  private static GithubEvent parse(String fixture, String event) throws Exception {
    Path p = EVENTS.resolve(fixture);
    return GithubEvent.parse(p.toString(), Files.readString(p), event);
  }

  @Test
  void flagsBeatTheReferenceVariablesWhichBeatTheRunner() throws Exception {
    Map<String, String> env = runner("pull_request", "pull_request-labeled.json");
    env.put("PR_LABELS_JSON", "[\"run-ci-megatron\"]");
    assertThat(resolve(env).code()).isZero();
    assertThat(output()).contains("raw_labels=run-ci-megatron\n");
    Files.delete(tmp.resolve("github_output"));
    assertThat(resolve(env, "--pr-labels-json", "[\"run-ci-eval\"]").code()).isZero();
    assertThat(output()).contains("raw_labels=run-ci-eval\n");
    Files.delete(tmp.resolve("github_output"));
    // EVENT_NAME beats GITHUB_EVENT_NAME; the payload then describes another event and is not read
    env.put("EVENT_NAME", "workflow_dispatch");
    env.put("GITHUB_EVENT_PATH", tmp.resolve("absent.json").toString());
    assertThat(resolve(env).code()).isZero();
    assertThat(output()).startsWith("cadence=regular\nraw_labels=\n");
    Files.delete(tmp.resolve("github_output"));
    assertThat(resolve(env, "--event-name", "schedule", "--schedule", "0 15 * * 6").code()).isZero();
    assertThat(output()).startsWith("cadence=weekly\n");
  }

  @Test
  void aDispatchsCadenceInputComesAfterTheFlagAndTheVariable() throws Exception {
    Map<String, String> env = runner("workflow_dispatch", "workflow_dispatch-cadence.json");
    assertThat(parse("workflow_dispatch-cadence.json", "workflow_dispatch").dispatchCadence()).contains("release");
    assertThat(parse("workflow_dispatch-empty-cadence.json", "workflow_dispatch").dispatchCadence()).isEmpty();
    assertThat(parse("workflow_dispatch.json", "workflow_dispatch").dispatchCadence()).isEmpty();
    // the same payload read for another event has no dispatch cadence
    assertThat(parse("workflow_dispatch-cadence.json", "schedule").dispatchCadence()).isEmpty();
    assertThat(resolve(env).code()).isZero();
    assertThat(output()).startsWith("cadence=release\n");
    Files.delete(tmp.resolve("github_output"));
    env.put("CADENCE_OVERRIDE", "nightly");
    assertThat(resolve(env).code()).isZero();
    assertThat(output()).startsWith("cadence=nightly\n");
    Files.delete(tmp.resolve("github_output"));
    // an empty variable is no override, so the payload's input applies
    env.put("CADENCE_OVERRIDE", "");
    assertThat(resolve(env).code()).isZero();
    assertThat(output()).startsWith("cadence=release\n");
    Files.delete(tmp.resolve("github_output"));
    // the flag wins even when empty: no override, the event's cadence
    assertThat(resolve(env, "--cadence-override", "").code()).isZero();
    assertThat(output()).startsWith("cadence=regular\n");
    Files.delete(tmp.resolve("github_output"));
    assertThat(resolve(env, "--cadence-override", "weekly").code()).isZero();
    assertThat(output()).startsWith("cadence=weekly\n");
  }

  @Test
  void aDispatchsInputsMustBeAnObjectWithAStringCadence() throws Exception {
    Path bad = tmp.resolve("dispatch.json");
    Files.writeString(bad, "{\"inputs\": [\"release\"]}");
    Map<String, String> env = runner("workflow_dispatch", "workflow_dispatch.json");
    env.put("GITHUB_EVENT_PATH", bad.toString());
    Result r = resolve(env);
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::" + bad + ": inputs: expected an object, found an array\n");
    Files.writeString(bad, "{\"inputs\": {\"cadence\": true}}");
    assertThat(resolve(env).err()).isEqualTo("::error::" + bad
        + ": inputs.cadence: expected a string or null, found a boolean (true)\n");
    assertThat(output()).isEmpty();
  }

  @Test
  void aScheduleVariableBeatsThePayloadsCron() throws Exception {
    Map<String, String> env = runner("schedule", "schedule-weekly.json");
    env.put("SCHEDULE", "0 15 * * 0-5");
    assertThat(resolve(env).code()).isZero();
    assertThat(output()).startsWith("cadence=nightly\n");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "pull_request-labels-not-array.json|: pull_request.labels: expected an array of label objects, found a string"
          + " ('run-ci-lora')",
      "pull_request-label-name-not-string.json|: pull_request.labels[0].name: expected a non-empty string, found an"
          + " integer (7)",
      "schedule-weekly.json|: pull_request: missing required field for a pull_request event",
      "pull_request-truncated.json|:16:64: malformed JSON: Unexpected end-of-input"})
  void aMalformedPayloadIsOneErrorNamingTheFileAndField(String payload, String message) throws Exception {
    Result r = resolve(runner("pull_request", payload));
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).startsWith("::error::" + EVENTS.resolve(payload) + message).endsWith("\n");
    assertThat(r.err().lines()).hasSize(1);
    assertThat(output()).isEmpty();
  }

  @Test
  void theSchedulePayloadMustBeAnObjectWithAStringCron() throws Exception {
    Path p = tmp.resolve("event.json");
    Files.writeString(p, "{\"schedule\": 15}");
    Map<String, String> env = runner("schedule", "x");
    env.put("GITHUB_EVENT_PATH", p.toString());
    assertThat(resolve(env).err()).isEqualTo("::error::" + p + ": schedule: expected a string or null, found an"
        + " integer (15)\n");
    Files.writeString(p, "[]");
    assertThat(resolve(env).err()).isEqualTo("::error::" + p + ": expected the event payload, a JSON object, found"
        + " an array\n");
  }

  @Test
  void aPayloadOverTheEventFileLimitFailsBeforeParsing() throws Exception {
    Path big = tmp.resolve("big.json");
    try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
      f.setLength(Inputs.MAX_EVENT_BYTES + 1);
    }
    Map<String, String> env = runner("pull_request", "x");
    env.put("GITHUB_EVENT_PATH", big.toString());
    Result r = resolve(env);
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::cannot read GitHub event payload " + big + ": the file is larger than"
        + " 26214400 bytes, the limit for a GitHub event payload\n");
    Map<String, String> missing = runner("pull_request", "nope.json");
    assertThat(resolve(missing).err()).isEqualTo("::error::cannot read GitHub event payload "
        + EVENTS.resolve("nope.json") + ": no such file\n");
  }

  @Test
  void aMissingDiffFileIsNoErrorOutsideAPullRequest() throws Exception {
    String absent = tmp.resolve("changed-files.bin").toString();
    for (String[] run : List.of(new String[] {"schedule", "schedule-weekly.json"},
        new String[] {"workflow_dispatch", "workflow_dispatch.json"})) {
      Result r = resolve(runner(run[0], run[1]), "--changed-files", absent, "--registrations",
          CliTestSupport.REGISTRATIONS);
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.err()).isEmpty();
    }
    Map<String, String> env = new HashMap<>(Map.of("CHANGED_FILES_PATH", absent));
    assertThat(resolve(env, "--event-name", "schedule", "--schedule", "0 15 * * 6").code()).isZero();
    Files.delete(tmp.resolve("github_output"));
    Result pr = resolve(runner("pull_request", "pull_request-draft.json"), "--changed-files", absent,
        "--registrations", CliTestSupport.REGISTRATIONS);
    assertThat(pr.code()).isEqualTo(1);
    assertThat(pr.err()).isEqualTo("::error::cannot read changed-files file " + absent + ": no such file\n");
    assertThat(output()).isEmpty();
  }

  @Test
  void aPullRequestWithACadenceOverrideIsPrunedByItsDiff() throws Exception {
    Path diff = tmp.resolve("changed-files.bin");
    Files.write(diff, "M\0docs/guide.md\0".getBytes(StandardCharsets.UTF_8));
    Map<String, String> env = runner("pull_request", "pull_request-labeled.json");
    env.put("CADENCE_OVERRIDE", "regular");
    Result r = resolve(env, "--changed-files", diff.toString(), "--registrations", CliTestSupport.REGISTRATIONS,
        "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("raw_labels")).isEmpty();
    assertThat(json.get("skipped_stages").toString()).isEqualTo(ALL_STAGES);
    assertThat(output()).isEqualTo("cadence=regular\nraw_labels=\nbypass_fastfail=false\nskipped_stages="
        + ALL_STAGES + "\n");
  }
}
