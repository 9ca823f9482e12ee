package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.fleet.host.HostDevices;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to the {@code fleet} commands as a new user gives it, each refused before any store is named or touched
 * (no {@code CI_POLICY_FLEET_STORE} is set), with one {@code ::error::} line that says what is wrong, where the value
 * came from (the option, or the variable the runner set) and what was expected: a GPU tool that is missing or hangs,
 * a misspelt cadence of a lease, the runner's variables with values that are not a run id, pull request or commit,
 * and a {@code --suite} the policy does not have.
 */
class FleetBadInputTest {
  private static final String FLEET_POLICY = "examples/policies/fleet.yaml";
  private static final String FLEET_REGISTRATIONS = "examples/registrations/fleet.yaml";
  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  @TempDir
  Path dir;

  /** The one error line of a refused command; nothing on standard output, no stack trace. */
  private static String oneError(CliTestSupport.Result r, int code) {
    assertThat(r.code()).as(r.err()).isEqualTo(code);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines().toList()).as(r.err()).hasSize(1);
    assertThat(r.err()).startsWith("::error::").doesNotContain("Exception").doesNotContain("\tat ");
    return r.err().strip();
  }

  private Path tool(String name, String body) throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path tool = bin.resolve(name);
    Files.writeString(tool, "#!/bin/sh\n" + body + "\n");
    assertThat(tool.toFile().setExecutable(true)).isTrue();
    return bin;
  }

  @Test
  void aGpuToolThatIsNotInstalledIsOneLineNamingTheToolAndTheWayOut() throws IOException {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    String line = oneError(CliTestSupport.run(Map.of("PATH", empty.toString()), "fleet", "collector", "--policy",
        FLEET_POLICY, "--pool", "gpu", "--name", "host-a", "--gpu-tool", "nvidia-smi"), CiPolicyCli.EXIT_ERROR);
    assertThat(line).isEqualTo("::error::--gpu-tool nvidia-smi: cannot run nvidia-smi (not found on the PATH, or not"
        + " executable); expected the GPU vendor's tool, or give --devices (e.g. 0-7, or none)");
  }

  @Test
  void theGpuToolIsFoundOnTheCommandsPath() throws IOException {
    Path bin = tool("nvidia-smi", "echo '0, NVIDIA H100'; echo '1, NVIDIA H100'");
    String line = oneError(CliTestSupport.run(Map.of("PATH", bin.toString()), "fleet", "lease", "--host", "host-a",
        "--gpus", "4", "--", "true"), CiPolicyCli.EXIT_ERROR);
    assertThat(line).isEqualTo("::error::--gpus 4 is more than host host-a has: 2 devices [0, 1]");
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void aGpuToolThatHangsIsStoppedAfterItsTime() throws IOException {
    // nvidia-smi on a GPU that fell off the bus: no output, no exit
    Path bin = tool("nvidia-smi", "exec sleep 600");
    long start = System.nanoTime();
    assertThatThrownBy(() -> FleetHostOptions.query(HostDevices.NVIDIA_QUERY, Map.of("PATH", bin.toString()),
        Duration.ofSeconds(1)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("nvidia-smi did not answer within 1 s (a GPU or its driver may be stuck); expected it to list the"
            + " GPUs, or give --devices (e.g. 0-7)");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void aLeasesCadenceMustBeOneOfThePolicysWhenThePolicyIsGiven() {
    // a misspelt cadence would escape its fleet share
    String line = oneError(CliTestSupport.run(Map.of(), "fleet", "lease", "--host", "gpu", "--devices", "0-3",
        "--gpus", "1", "--policy", FLEET_POLICY, "--cadence", "nigthly", "--", "true"), CiPolicyCli.EXIT_ERROR);
    assertThat(line).isEqualTo("::error::--cadence 'nigthly' is not a cadence of the policy; expected one of"
        + " [regular, nightly, weekly]");
  }

  /** The runner's variables of a nightly run of the fleet example. */
  private static Map<String, String> runner() {
    return new HashMap<>(Map.of("GITHUB_REPOSITORY", "acme/trainer", "GITHUB_RUN_ID", "9001",
        "GITHUB_RUN_ATTEMPT", "1", "GITHUB_SHA", SHA, "GITHUB_EVENT_NAME", "schedule", "SCHEDULE", "0 2 * * 1-6"));
  }

  private static CliTestSupport.Result submit(Map<String, String> env, String... extra) {
    String[] args = new String[6 + extra.length];
    System.arraycopy(new String[] {"fleet", "submit", "--policy", FLEET_POLICY, "--registrations",
        FLEET_REGISTRATIONS}, 0, args, 0, 6);
    System.arraycopy(extra, 0, args, 6, extra.length);
    return CliTestSupport.run(env, args);
  }

  @Test
  void aRunnerVariableThatIsNotANumberOrACommitIsNamedAsTheVariable() {
    Map<String, String> runId = runner();
    runId.put("GITHUB_RUN_ID", "abc");
    assertThat(oneError(submit(runId), FleetReport.EXIT_BAD_INPUT))
        .isEqualTo("::error::GITHUB_RUN_ID (--run-id) 'abc' is not a whole number of at least 1");
    Map<String, String> pr = runner();
    pr.put("PR_NUMBER", "abc");
    assertThat(oneError(submit(pr), FleetReport.EXIT_BAD_INPUT))
        .isEqualTo("::error::PR_NUMBER (--pr-number) 'abc' is not a whole number of at least 1");
    Map<String, String> sha = runner();
    sha.put("GITHUB_SHA", "zz$(id)");
    assertThat(oneError(submit(sha), FleetReport.EXIT_BAD_INPUT))
        .isEqualTo("::error::GITHUB_SHA (--commit) 'zz$(id)' is not a commit id; expected 7 to 64 lowercase hex"
            + " digits, such as GitHub's GITHUB_SHA");
    // the flag, when given, is named as the flag
    assertThat(oneError(submit(runner(), "--attempt", "0"), FleetReport.EXIT_BAD_INPUT))
        .isEqualTo("::error::--attempt '0' is not a whole number of at least 1");
  }

  @Test
  void aStepSummaryFileThatCannotBeAppendedToIsRefusedBeforeTheRunIsSubmitted() {
    // found after the jobs had run, it used to turn their success into exit code 3
    Map<String, String> env = runner();
    env.put("GITHUB_STEP_SUMMARY", dir.toString());
    assertThat(oneError(submit(env, "--wait"), FleetReport.EXIT_BAD_INPUT))
        .isEqualTo("::error::step summary file " + dir + " (GITHUB_STEP_SUMMARY) is a directory; expected a file the"
            + " jobs' table is appended to");
    assertThat(oneError(submit(runner(), "--wait", "--step-summary", dir.resolve("no/such/summary.md").toString()),
        FleetReport.EXIT_BAD_INPUT)).isEqualTo("::error::step summary file " + dir.resolve("no/such/summary.md")
        + " (--step-summary) is in no existing directory; expected a file the jobs' table is appended to");
  }

  @Test
  void aSuiteThePolicyDoesNotHaveIsToldApartFromOneThisRunSkips() {
    assertThat(oneError(submit(runner(), "--wait", "--suite", "stage-d"), FleetReport.EXIT_BAD_INPUT))
        .isEqualTo("::error::--suite stage-d is not a suite of the policy on a fleet pool; expected one of"
            + " [stage-a-1-gpu, stage-b-2-gpu, stage-c-4-gpu]");
  }
}
