package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.cli.CliTestSupport.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented input limits, end to end: each oversized or hostile input is exit 1 with one
 * {@code ::error::} line, no stack trace and nothing on stdout, within a generous time bound.
 */
class LimitsCommandTest {
  @TempDir
  Path tmp;

  private static void assertOneError(Result r, String expected) {
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).containsPattern("^::error[ :]").hasLineCount(1).contains(expected).doesNotContain("\tat ")
        .doesNotContain("Exception in").doesNotContain("Error:");
  }

  private static Result timed(String... args) {
    long t0 = System.nanoTime();
    Result r = run(args);
    assertThat(System.nanoTime() - t0).as("generous bound against unbounded work").isLessThan(20_000_000_000L);
    return r;
  }

  @Test
  void policyFromDevZeroFailsFastWithoutExhaustingMemory() {
    assertOneError(timed("check", "--policy", "/dev/zero"),
        "cannot read policy file /dev/zero: it is not a regular file (a FIFO, socket or device); expected a regular"
            + " file of at most 4194304 bytes, the limit for a policy file");
  }

  @Test
  void registrationsFromDevZeroFailsFast() {
    assertOneError(timed("plan-suite", "--policy", POLICY, "--registrations", "/dev/zero", "--hw", "cpu",
        "--suite", "stage-a-cpu"), "not a regular file (a FIFO, socket or device); expected a regular file of at most 4194304 bytes, the limit"
        + " for a registrations file");
  }

  @Test
  void eventAndInFlightFilesAreBounded() {
    assertOneError(timed("concurrency", "--policy", POLICY, "--event-json", "/dev/zero", "--in-flight-json",
        "/dev/zero"), "expected a regular file of at most 26214400 bytes, the limit for a event file");
  }

  @Test
  void changedFilesAreBounded() {
    assertOneError(timed("resolve", "--policy", POLICY, "--event-name", "pull_request", "--pr-labels-json", "[]",
        "--changed-files", "/dev/zero", "--registrations", REGISTRATIONS),
        "expected a regular file of at most 16777216 bytes, the limit for a changed-files file");
  }

  @Test
  void aWorkflowFileIsBounded() {
    assertOneError(timed("check", "--policy", POLICY, "--workflow", "/dev/zero"),
        "expected a regular file of at most 1048576 bytes, the limit for a workflow file");
  }

  @Test
  void aTenMegabyteCommentLineInThePolicyFailsFast() throws IOException {
    Path p = tmp.resolve("long.yaml");
    Files.writeString(p, Files.readString(CliTestSupport.REPO.resolve(POLICY)) + "# " + "x".repeat(10_000_000)
        + "\n", StandardCharsets.UTF_8);
    assertOneError(timed("check", "--policy", p.toString()), "the file is larger than 4194304 bytes");
  }

  @Test
  void aLongYamlLineUnderTheSizeLimitFailsAtItsLine() throws IOException {
    Path p = tmp.resolve("line.yaml");
    Files.writeString(p, "# " + "x".repeat(1_000_000) + "\n" + Files.readString(CliTestSupport.REPO.resolve(POLICY)),
        StandardCharsets.UTF_8);
    assertOneError(timed("check", "--policy", p.toString()),
        "line.yaml,line=1,col=1,title=syntax::the line is 1000002 characters long; YAML lines are limited to 65536 characters");
  }

  @Test
  void hexadecimalNumbersInThePolicyAreALocatedError() throws IOException {
    Path p = tmp.resolve("hex.yaml");
    String policy = Files.readString(CliTestSupport.REPO.resolve(POLICY));
    Files.writeString(p, policy.replaceFirst("shards: 4", "shards: 0x10"), StandardCharsets.UTF_8);
    int line = policy.substring(0, policy.indexOf("shards: 4")).split("\n", -1).length;
    assertOneError(timed("check", "--policy", p.toString()),
        "hex.yaml,line=" + line + ",col=17,title=suites::0x10 is not a decimal number");
  }

  @Test
  void nanInRegistrationsIsALocatedError() throws IOException {
    Path p = tmp.resolve("r.yaml");
    Files.writeString(p, Files.readString(CliTestSupport.REPO.resolve(REGISTRATIONS))
        .replaceFirst("est_time: 30}", "est_time: .nan}"), StandardCharsets.UTF_8);
    assertOneError(timed("plan-suite", "--policy", POLICY, "--registrations", p.toString(), "--hw", "cpu",
        "--suite", "stage-a-cpu"), "r.yaml,line=4,col=84,title=registrations::test file 'tests/fast/test_ci_policy.py': .nan is not a decimal"
        + " number");
  }

  @Test
  void anAliasInThePolicyIsRejectedNotReadAsItsName() throws IOException {
    Path p = tmp.resolve("alias.yaml");
    String text = Files.readString(CliTestSupport.REPO.resolve(POLICY)).replaceFirst("cadence: regular",
        "cadence: &weekly nightly").replaceFirst("cadence: nightly", "cadence: *weekly");
    Files.writeString(p, text, StandardCharsets.UTF_8);
    assertOneError(timed("check", "--policy", p.toString()), "YAML alias *weekly is not supported");
  }

  @Test
  void aHugePartitionSizeIsAnErrorNotOutOfMemory() {
    assertOneError(timed("plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", "cuda",
        "--suite", "stage-c-4-gpu-h200", "--partition-id", "0", "--partition-size", "2147483647"),
        "Invalid partition size 2147483647; expected at most 1000 shards");
  }

  @Test
  void theMaximumPartitionSizeWorks() {
    Result r = timed("plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", "cuda",
        "--suite", "stage-c-4-gpu-h200", "--partition-id", "999", "--partition-size", "1000");
    assertThat(r.code()).as(r.err()).isZero();
  }

  @Test
  void aDeepFourKilobyteRerunCommentIsARefusalNotAStackOverflow() {
    String comment = "/rerun-test tests/e2e/" + "a/".repeat(2_000) + "test_x.py";
    assertOneError(timed("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--comment", comment,
        "--permission", "write", "--pr-number", "1"), "has no CI registration");
  }

  @Test
  void aCommentOverTheCapIsRefused() {
    String comment = "/rerun-test tests/e2e/" + "a/".repeat(40_000) + "test_x.py";
    assertOneError(timed("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--comment", comment,
        "--permission", "write", "--pr-number", "1"), "characters long; at most 65536 are read");
  }
}
