package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.RunCommand;
import dev.cipolicy.api.policy.RunPlaceholder;
import dev.cipolicy.core.ReferencePolicy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code run} and {@code device_env} fields of backends and suites: how they load and each error. */
class RunSectionTest {

  private static final String HEAD = """
      name: mini
      cadences:
        nightly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}
      backends:
      """;

  private static List<String> problems(String backends) {
    try {
      PolicyLoader.load("bad.yaml", HEAD + backends);
    } catch (InvalidPolicyException e) {
      return e.problems().stream().map(PolicyProblem::toString).toList();
    }
    throw new AssertionError("expected the policy to be rejected:\n" + backends);
  }

  private static Policy load(String backends) {
    return PolicyLoader.load("ok.yaml", HEAD + backends).policy();
  }

  private static String gpuBackend(String command) {
    return """
          cuda:
            gpu: true
            device_env: [CUDA_VISIBLE_DEVICES]
            run:
              command: %s
            suites:
              e2e: {gpus: 2, runner_labels: [a100]}
        """.formatted(command);
  }

  @Test
  void theReferencePolicyRunsRunSuiteWithTheDeviceVariablesOfEachVendor() {
    Policy p = ReferencePolicy.loaded().policy();
    Backend cuda = p.backends().get(1);
    Backend rocm = p.backends().get(2);
    assertThat(cuda.deviceEnv()).containsExactly("CUDA_VISIBLE_DEVICES");
    assertThat(rocm.deviceEnv()).containsExactly("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES");
    assertThat(p.backends().get(0).deviceEnv()).isEmpty();
    assertThat(p.backends().get(0).run().orElseThrow().image()).isEmpty();
    RunCommand run = cuda.run().orElseThrow();
    assertThat(run.command()).containsExactly("python", "tests/ci/run_suite.py", "--hw", "{backend}", "--suite",
        "{suite}", "--auto-partition-id", "{shard}", "--auto-partition-size", "{shards}", "--cadence", "{cadence}",
        "--labels", "{labels}");
    assertThat(run.image()).contains("radixark/miles:{image_tag}");
    assertThat(rocm.run()).isEqualTo(cuda.run());
  }

  @Test
  void aSuiteCommandReplacesTheBackendsAndEnvironmentNamesKeepTheirCase() {
    Policy p = load(gpuBackend("[python, run.py]").replace("e2e: {gpus: 2, runner_labels: [a100]}",
        "e2e: {gpus: 2, runner_labels: [a100], run: {command: [sh, -c, \"echo {{}} {job}\"], env: {Ci_X: \"{pr}\"}}}"));
    Backend b = p.backends().get(0);
    assertThat(b.runOf(b.suites().get(0)).orElseThrow().command()).containsExactly("sh", "-c", "echo {{}} {job}");
    assertThat(b.runOf(b.suites().get(0)).orElseThrow().env()).isEqualTo(Map.of("Ci_X", "{pr}"));
    assertThat(b.run().orElseThrow().command()).containsExactly("python", "run.py");
  }

  @Test
  void anUnknownPlaceholderNamesThePathTheTemplateThePlaceholderAndTheKnownOnes() {
    assertThat(problems(gpuBackend("[python, run.py, --shard, \"{shard_id}\"]"))).containsExactly(
        "bad.yaml:9:42: backends.cuda.run.command[3]: unknown placeholder {shard_id} in template '{shard_id}';"
            + " expected one of " + RunPlaceholder.KNOWN + " (write {{ and }} for literal braces)");
    assertThat(RunPlaceholder.KNOWN).isEqualTo("{attempt}, {backend}, {cadence}, {commit}, {gpus}, {image_tag},"
        + " {job}, {labels}, {pr}, {run_id}, {shard}, {shards}, {suite}, {timeout_minutes}");
  }

  @Test
  void anUnclosedOrUnmatchedBraceIsAnError() {
    assertThat(problems(gpuBackend("[python, \"--suite={suite\"]"))).singleElement().asString()
        .startsWith("bad.yaml:9:25: backends.cuda.run.command[1]: unclosed brace at index 8 in template"
            + " '--suite={suite'; expected a placeholder such as {suite}, one of {attempt},");
    assertThat(problems(gpuBackend("[python, \"a}b\"]"))).containsExactly("bad.yaml:9:25:"
        + " backends.cuda.run.command[1]: unmatched } at index 1 in template 'a}b'; write }} for a literal brace");
  }

  @Test
  void anEmptyCommandAMissingCommandAndTooManyArgumentsAreErrors() {
    assertThat(problems(gpuBackend("[]"))).singleElement().asString().startsWith(
        "bad.yaml:9:7: backends.cuda.run.command: the command is empty; expected the program and its arguments");
    assertThat(problems(gpuBackend("[\"\", x]"))).containsExactly("bad.yaml:9:17: backends.cuda.run.command[0]:"
        + " the program (the first element of the command) is blank; expected a program name or path");
    String many = "[" + String.join(", ", java.util.Collections.nCopies(257, "x")) + "]";
    assertThat(problems(gpuBackend(many))).containsExactly("bad.yaml:9:7: backends.cuda.run.command: the command"
        + " has 257 arguments; expected at most 256");
    assertThat(problems("""
          cpu:
            run: {image: "x:{image_tag}"}
        """)).containsExactly("bad.yaml:6:10: backends.cpu.run: missing required field 'command'");
  }

  @Test
  void aTemplateLongerThanTheLimitIsAnError() {
    assertThat(problems(gpuBackend("[python, \"" + "a".repeat(4097) + "\"]"))).singleElement().asString()
        .startsWith("bad.yaml:9:25: backends.cuda.run.command[1]: the template 'aaaa")
        .endsWith("' is 4097 characters long; expected at most 4096");
  }

  @Test
  void wrongTypesAndUnknownKeysAreLocated() {
    assertThat(problems(gpuBackend("[python, {suite}]"))).containsExactly(
        "bad.yaml:9:25: backends.cuda.run.command[1]: expected a string, found a mapping");
    assertThat(problems("""
          cpu:
            run: {command: [x], shell: true, env: {A: 1}}
        """)).containsExactly(
        "bad.yaml:6:25: backends.cpu.run.shell: unknown field 'shell'; expected one of [command, env, image]",
        "bad.yaml:6:47: backends.cpu.run.env.A: expected a string, found an integer (1) (quote it)");
  }

  @Test
  void environmentNamesImagesAndSuiteTemplatesAreChecked() {
    assertThat(problems("""
          cpu:
            run: {command: [x], image: "a b", env: {"1X": "{nope}"}}
            suites:
              s: {github_hosted: true, run: {command: ["{sute}"]}}
        """)).containsExactly(
        "bad.yaml:8:48: backends.cpu.suites.s.run.command[0]: unknown placeholder {sute} in template '{sute}';"
            + " expected one of " + RunPlaceholder.KNOWN + " (write {{ and }} for literal braces)",
        "bad.yaml:6:32: backends.cpu.run.image: the image 'a b' is blank or contains white space; expected e.g."
            + " radixark/miles:{image_tag}",
        "bad.yaml:6:51: backends.cpu.run.env.1X: environment variable name '1X' is not valid; expected"
            + " [A-Za-z_][A-Za-z0-9_]{0,127}",
        "bad.yaml:6:51: backends.cpu.run.env.1X: unknown placeholder {nope} in template '{nope}'; expected one of "
            + RunPlaceholder.KNOWN + " (write {{ and }} for literal braces)");
  }

  @Test
  void deviceVariablesAreDeclaredByGpuBackendsWithACommandAndNeverSetByTheCommand() {
    assertThat(problems(gpuBackend("[x]").replace("    device_env: [CUDA_VISIBLE_DEVICES]\n", "")))
        .containsExactly("bad.yaml:5:3: backends.cuda.device_env: GPU backend 'cuda' has a run command but no"
            + " device_env; declare the variables that carry the granted devices, e.g. [CUDA_VISIBLE_DEVICES] for"
            + " CUDA or [HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES] for ROCm");
    assertThat(problems("""
          cpu:
            device_env: [CUDA_VISIBLE_DEVICES]
        """)).containsExactly("bad.yaml:6:5: backends.cpu.device_env: backend 'cpu' is a CPU backend (gpu: false)"
        + " and is granted no devices; remove device_env or declare gpu: true");
    assertThat(problems(gpuBackend("[x]").replace("device_env: [CUDA_VISIBLE_DEVICES]",
        "device_env: [CUDA_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, 9X]"))).containsExactly(
        "bad.yaml:7:40: backends.cuda.device_env[1]: device variable CUDA_VISIBLE_DEVICES is listed twice",
        "bad.yaml:7:62: backends.cuda.device_env[2]: device variable '9X' is not an environment variable name;"
            + " expected [A-Za-z_][A-Za-z0-9_]{0,127}");
    assertThat(problems(gpuBackend("[x]\n      env: {CUDA_VISIBLE_DEVICES: \"0\"}"))).containsExactly(
        "bad.yaml:10:35: backends.cuda.run.env.CUDA_VISIBLE_DEVICES: the run command sets the device variable"
            + " CUDA_VISIBLE_DEVICES, which the job's granted devices set; remove it from env");
  }

  @Test
  void aGpuBackendWithoutACommandNeedsNoDeviceVariables() {
    assertThat(load("""
          cuda:
            gpu: true
            suites:
              e2e: {gpus: 2, runner_labels: [a100]}
        """).backends().get(0).deviceEnv()).isEmpty();
  }
}
