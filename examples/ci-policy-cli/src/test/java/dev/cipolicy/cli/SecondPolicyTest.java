package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.cli.CliTestSupport.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every subcommand of the CLI on the second example policy, {@code examples/policies/jvm-service.yaml}: a JVM
 * service whose suites ({@code unit}, {@code integration}, {@code e2e-gpu}), labels, prefix, test layout,
 * backends, image and metrics share nothing with the reference project's.
 */
class SecondPolicyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String POLICY = "examples/policies/jvm-service.yaml";
  private static final String REGISTRATIONS = "examples/registrations/jvm-service.yaml";
  private static final String GATES = "examples/gate/jvm-service/gates.yaml";
  private static final String GPU_TEST = "src/test/java/com/acme/orders/e2e/FraudScoringGpuTest.java";

  @TempDir
  Path tmp;

  private String diff(String path) throws Exception {
    Path p = tmp.resolve("diff-" + Math.abs(path.hashCode()));
    Files.write(p, ("M\0" + path + "\0").getBytes(StandardCharsets.UTF_8));
    return p.toString();
  }

  private String file(String name, String content) throws Exception {
    Path p = tmp.resolve(name);
    Files.writeString(p, content);
    return p.toString();
  }

  @Test
  void checkAcceptsIt() {
    Result r = run("check", "--policy", POLICY);
    assertThat(r.err()).isEmpty();
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo("Policy orders-service is valid: 4 labels, 2 cadences, 1 schedules, 2 backends,"
        + " 3 suites, 0 warnings\n");
  }

  @Test
  void resolveUsesItsOwnPrefixWorkflowLabelAndSchedule() throws Exception {
    Result pr = run("resolve", "--policy", POLICY, "--event-name", "pull_request", "--pr-labels-json",
        "[\"test-api\",\"full-ci\",\"run-ci-megatron\"]");
    assertThat(pr.code()).isZero();
    assertThat(pr.out()).isEqualTo("Resolved CI policy: cadence=nightly labels=[test-api full-ci]"
        + " bypass_fastfail=true skipped_stages=[]\n");
    Result nightly = run("resolve", "--policy", POLICY, "--event-name", "schedule", "--schedule", "30 2 * * 1-5",
        "--json");
    assertThat(JSON.readTree(nightly.out()).get("cadence").asText()).isEqualTo("nightly");
    assertThat(run("resolve", "--policy", POLICY, "--event-name", "schedule", "--schedule", "0 15 * * 6").code())
        .isEqualTo(1);
  }

  @Test
  void resolveSkipsTheGpuSuiteWhenNoLabelNeedsIt() throws Exception {
    Result docs = run("resolve", "--policy", POLICY, "--registrations", REGISTRATIONS, "--event-name",
        "pull_request", "--pr-labels-json", "[]", "--changed-files", diff("docs/intro.md"));
    assertThat(docs.out()).isEqualTo("Resolved CI policy: cadence=regular labels=[]"
        + " bypass_fastfail=false skipped_stages=[\"e2e-gpu\"]\n");
    Result code = run("resolve", "--policy", POLICY, "--registrations", REGISTRATIONS, "--event-name",
        "pull_request", "--pr-labels-json", "[\"test-fraud-model\"]", "--changed-files",
        diff("src/main/java/com/acme/orders/Pricing.java"));
    assertThat(code.out()).isEqualTo("Resolved CI policy: cadence=regular labels=[test-fraud-model]"
        + " bypass_fastfail=false skipped_stages=[]\n");
  }

  @Test
  void planSuitePlansTheGpuSuiteAndShardsTheUnitSuite() throws Exception {
    Result gpu = run("plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", "gpu", "--suite",
        "e2e-gpu", "--cadence", "nightly", "--json");
    assertThat(gpu.code()).isZero();
    JsonNode j = JSON.readTree(gpu.out());
    assertThat(j.get("enabled").toString()).isEqualTo("[\"src/test/java/com/acme/orders/e2e/CheckoutSoakTest.java\","
        + "\"" + GPU_TEST + "\"]");
    assertThat(j.get("continue_on_error").asBoolean()).isTrue();
    Result unit = run("plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", "jvm", "--suite",
        "unit", "--partition-id", "0", "--partition-size", "2");
    assertThat(unit.out()).isEqualTo("Policy: cadence=regular include=[] admit_nightly_tests=false"
        + " bypass_fastfail=false write_baseline=false\n"
        + "1 test(s) selected for unit (jvm) shard 0/2, about 20 s estimated\n"
        + "  run  src/test/java/com/acme/orders/OrderServiceTest.java (timeout 1800 s)\n"
        + "continue_on_error=false max_parallel=2\n");
  }

  @Test
  void fileRunFollowsItsOwnCommandLayoutBackendsAndImage() throws Exception {
    Result gpu = run("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--comment",
        "/retest " + GPU_TEST, "--permission", "write", "--pr-number", "42", "--json");
    assertThat(gpu.code()).isZero();
    JsonNode j = JSON.readTree(gpu.out());
    assertThat(j.get("hw").asText() + " " + j.get("suite").asText() + " " + j.get("runs_on") + " "
        + j.get("container_image").asText() + " " + j.get("concurrency_group").asText())
        .isEqualTo("gpu e2e-gpu [\"self-hosted\",\"a100\",\"2gpu\"] ghcr.io/acme/orders-service:main retest-42-"
            + GPU_TEST);
    Result cpu = run("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--test-file",
        "src/test/java/com/acme/orders/PricingTest.java");
    assertThat(cpu.out()).isEqualTo("Rerun src/test/java/com/acme/orders/PricingTest.java: hw=jvm suite=unit"
        + " runs_on=[] container_image=ghcr.io/acme/orders-service:main timeout_seconds=1800\n");
    Result python = run("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--comment",
        "/retest tests/e2e/test_lora.py", "--permission", "write", "--pr-number", "42");
    assertThat(python.code()).isEqualTo(1);
    assertThat(python.err()).isEqualTo("::error::usage: /retest src/test/java/.../<name>Test.java (one registered"
        + " test file, nothing else)\n");
  }

  @Test
  void concurrencyUsesItsOwnWorkflow() throws Exception {
    Result r = run("concurrency", "--policy", POLICY, "--event-json",
        file("event.json", "{\"type\":\"superseded\",\"workflow\":\"ci\",\"pr_number\":7,\"run_id\":\"500\"}"),
        "--in-flight-json", file("in-flight.json", "[{\"run_id\":\"71\",\"workflow\":\"ci\",\"pr_number\":7},"
            + "{\"run_id\":\"72\",\"workflow\":\"ci\",\"pr_number\":8}]"));
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo("cancel 71: same group 'ci-7': workflow ci cancels in-progress runs of the same"
        + " group on superseded events\n"
        + "keep 72: a run of workflow ci for PR #8 in group 'ci-8', not in group 'ci-7'\n"
        + "new run start in group 'ci-7'\n");
  }

  @Nested
  class TheGate {
    private String history() {
      return tmp.resolve("history.json").toString();
    }

    private Result gate(String record, String... extra) {
      List<String> args = new ArrayList<>(List.of("gate", "--policy", POLICY, "--gates", GATES, "--test-file",
          GPU_TEST, "--registrations", REGISTRATIONS, "--record", "examples/gate/jvm-service/" + record,
          "--history", history()));
      args.addAll(List.of(extra));
      return run(args.toArray(String[]::new));
    }

    private void threeNightlies() {
      for (int i = 1; i <= 3; i++) {
        Result r = gate("nightly-" + i + ".json", "--write-baseline", "--ci-run-id", "80" + i, "--commit",
            "abc" + i, "--cadence", "nightly", "--created-at", "2026-11-2" + i + "T02:30:00Z");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("[CI Gate][baseline] " + GPU_TEST + ": wrote baseline\n");
      }
    }

    @Test
    void gateFlagsASlowerP99AgainstThePolicysDefault() {
      threeNightlies();
      Result r = gate("pr-slow.json");
      assertThat(r.code()).isZero();
      assertThat(r.out()).startsWith("[CI Gate][shadow] " + GPU_TEST + ": FAIL (2 coordinates: 1 PASS, 1 FAIL;"
          + " 1 regression; run untrusted)\n");
      assertThat(r.out()).contains("`gpu` / `e2e-gpu` · model `band`");
    }

    @Test
    void gateRevokeTakesACommitOutOfTheBaseline() {
      threeNightlies();
      assertThat(run("gate-revoke", "--history", history(), "--commit", "abc2").out())
          .isEqualTo("Revoked commit abc2: 1 run(s) matched, 1 newly revoked, 2 trusted sample(s) left the"
              + " baseline\n");
    }

    @Test
    void gateReplayBacktestsThePolicysDefault() {
      threeNightlies();
      Result r = run("gate-replay", "--policy", POLICY, "--gates", GATES, "--history", history(), "--test-file",
          GPU_TEST, "--registrations", REGISTRATIONS, "--metric", "latency/p99_ms");
      assertThat(r.code()).isZero();
      assertThat(r.out()).startsWith("Replaying band on latency/p99_ms (steps=all constraint={\"abs_floor_down\":5,"
          + "\"abs_floor_up\":5,\"rel_down\":0.5,\"rel_up\":0.2}) over " + GPU_TEST + " (gpu/e2e-gpu)\n"
          + "  step 0 (stored as steps=all): 3 values, 0 alert(s) (0.00 %), 0 level shift(s) proposed\n");
    }
  }

  /** The issue's own reproduction: suites named {@code unit-tests} and {@code integration}. */
  @Nested
  class SuitesNamedByTheProject {
    private static final String SMALL = """
        name: small
        cadences:
          regular: {admit_nightly_tests: false, bypass_fastfail: false, write_baseline: false}
        events:
          pull_request: {source: pull_request_labels, cadence: regular}
        labels:
          db: database tests
        backends:
          cpu:
            suites:
              unit-tests: {github_hosted: true}
              integration: {github_hosted: true, shards: 2}
        """;

    @Test
    void passCheckAndResolve() throws Exception {
      String policy = file("small.yaml", SMALL);
      Result check = run("check", "--policy", policy);
      assertThat(check.err()).isEmpty();
      assertThat(check.out()).isEqualTo("Policy small is valid: 1 labels, 1 cadences, 0 schedules, 1 backends,"
          + " 2 suites, 0 warnings\n");
      Result resolve = run("resolve", "--policy", policy, "--event-name", "pull_request", "--pr-labels-json",
          "[\"run-ci-db\"]");
      assertThat(resolve.err()).isEmpty();
      assertThat(resolve.out()).isEqualTo("Resolved CI policy: cadence=regular labels=[run-ci-db]"
          + " bypass_fastfail=false skipped_stages=[]\n");
    }
  }
}
