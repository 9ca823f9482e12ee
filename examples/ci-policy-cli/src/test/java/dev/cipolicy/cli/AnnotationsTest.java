package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.cli.Annotations.Document;
import dev.cipolicy.cli.CliTestSupport.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Policy problems and warnings become GitHub annotations: {@code ::error file=..,line=..,col=..,title=<rule>::..}
 * with the file relative to the workspace, the rule from the documented table, and every property and the data
 * escaped so that the line stays one line and forges nothing.
 */
class AnnotationsTest {
  private static final String MINIMAL = "name: demo\n"
      + "cadences:\n"
      + "  nightly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}\n"
      + "events:\n"
      + "  schedule: {source: schedule_table}\n"
      + "schedules:\n"
      + "  - cron: \"0 15 * * 0-5\"\n"
      + "    cadence: nightly\n";

  @TempDir
  Path tmp;

  private Result check(Path policy, Map<String, String> env) {
    return CliTestSupport.run(env, "check", "--policy", policy.toString());
  }

  @Test
  void aPolicyErrorAtAKnownLineAndColumnIsExactlyOneAnnotationRelativeToTheWorkspace() throws Exception {
    Path policy = tmp.resolve("policy.yaml");
    Files.writeString(policy, MINIMAL.replace("cadence: nightly", "cadence: nighty"));
    Result r = check(policy, Map.of("GITHUB_WORKSPACE", tmp.toString()));
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).isEqualTo("::error file=policy.yaml,line=8,col=14,title=schedules::unknown cadence"
        + " 'nighty'; expected one of [nightly]\n");
    // outside the workspace (or without one) the file is the name given on the command line
    assertThat(check(policy, Map.of()).err()).isEqualTo("::error file=" + Console.escapeProperty(policy.toString())
        + ",line=8,col=14,title=schedules::unknown cadence 'nighty'; expected one of [nightly]\n");
  }

  @Test
  void aFleetShareOfAnUnknownPoolOrCadenceIsALocatedErrorTitledFleet() throws Exception {
    Path policy = tmp.resolve("policy.yaml");
    Files.writeString(policy, MINIMAL + "fleet:\n"
        + "  pools:\n"
        + "    h200: {runners: 2, gpus: 8}\n"
        + "  shares:\n"
        + "    nightly:\n"
        + "      h300: {runners: 1}\n"
        + "    weekly:\n"
        + "      h200: {gpus: 4}\n");
    Result r = check(policy, Map.of("GITHUB_WORKSPACE", tmp.toString()));
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().lines().toList()).containsExactly(
        "::error file=policy.yaml,line=14,col=7,title=fleet::unknown pool 'h300'; expected one of [h200]",
        "::error file=policy.yaml,line=15,col=5,title=fleet::unknown cadence 'weekly'; expected one of [nightly]");
  }

  @Test
  void aSyntaxErrorIsTitledSyntax() throws Exception {
    Path policy = tmp.resolve("broken.yaml");
    Files.writeString(policy, "name: [unclosed\n");
    Result r = check(policy, Map.of("GITHUB_WORKSPACE", tmp.toString()));
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).startsWith("::error file=broken.yaml,line=").contains(",title=syntax::").hasLineCount(1);
  }

  @Test
  void commasColonsPercentsAndLineBreaksInTheFileNameAndMessageAreEscaped() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("a,b:c%d\ne"));
    Path policy = dir.resolve("p%0A,x.yaml");
    // a '%' and a line break in the message: quoted from an unknown key and from the label prefix
    Files.writeString(policy, MINIMAL.replace("name: demo\n", "name: demo\nlabel_prefix: \"run%ci-\"\n"
        + "\"evil\\n::error::x, 50%\": 1\n"), StandardCharsets.UTF_8);
    Result r = check(policy, Map.of("GITHUB_WORKSPACE", tmp.toString()));
    assertThat(r.code()).isEqualTo(1);
    String file = "a%2Cb%3Ac%25d%0Ae/p%250A%2Cx.yaml";
    assertThat(r.err().lines().toList()).containsExactly(
        "::error file=" + file + ",line=3,col=1,title=policy::unknown field 'evil\\n::error::x, 50%25'; expected one"
            + " of [$schema, backends, cadences, container_image, events, file_run, fleet, gates, hosts, label_prefix, labels,"
            + " name,"
            + " non_gpu_paths, policy_version, pr_stages, retry, schedules, scopes, suite_naming, timeouts,"
            + " workflow_labels,"
            + " workflows]");
    WorkflowCommandForgeryProperties.assertNoForgedCommand(r, "escaped annotation");
  }

  @Test
  void aProblemWithoutALocationKeepsItsPathInTheData() throws Exception {
    Path policy = tmp.resolve("p.yaml");
    Files.writeString(policy, MINIMAL.replace("name: demo\n", "name: demo\nlabel_prefix: \"run%ci-\"\n"));
    Result r = check(policy, Map.of("GITHUB_WORKSPACE", tmp.toString()));
    // the label prefix is located: its value is the problem, the rule its section
    assertThat(r.err()).isEqualTo("::error file=p.yaml,line=2,col=15,title=label-prefix::label prefix 'run%25ci-'"
        + " must be non-empty and use only letters, digits and _ . -\n");
    // a gate built for an undeclared metric has no place in a document: the path leads the data
    Result gates = CliTestSupport.run(Map.of(), "gate-replay", "--policy", CliTestSupport.POLICY, "--history",
        HostileCorpusTest.CORPUS.resolve("gate-replay-newline-metric/h.json").toString(), "--test-file",
        "tests/e2e/test_fsdp_short.py", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--gates",
        "examples/gate/gates.yaml", "--metric", "loss");
    assertThat(gates.err()).startsWith("::error title=gates::gates[0].steps: the gate on 'loss' declares no steps");
  }

  @Test
  void aLocatedWarningIsAWarningAnnotationTitledWithItsCode() throws Exception {
    Path policy = tmp.resolve("warn.yaml");
    Files.writeString(policy, MINIMAL + "  - cron: \"0 15 * * MON\"\n    cadence: nightly\n");
    Result r = check(policy, Map.of("GITHUB_WORKSPACE", tmp.toString()));
    assertThat(r.code()).isZero();
    assertThat(r.err()).isEqualTo("::warning file=warn.yaml,line=9,col=11,title=schedule-overlap::schedules[1].cron:"
        + " crons '0 15 * * 0-5' and '0 15 * * MON' (both nightly) both fire at 2024-01-01T15:00:00Z, starting two"
        + " runs\n");
  }

  @Test
  void anUnlocatedWarningIsTitledWithItsCode() {
    Result r = CliTestSupport.run(Map.of(), "resolve", "--policy", CliTestSupport.POLICY, "--event-name",
        "pull_request", "--pr-labels-json", "[\"megatron\"]");
    assertThat(r.code()).isZero();
    assertThat(r.err()).isEqualTo("::warning title=label-without-prefix::PR label 'megatron' ignored: only"
        + " 'run-ci-<label>' requests a test area (did you mean 'run-ci-megatron'?)\n");
  }

  @Test
  void theRuleTable() {
    assertThat(Annotations.rule(Document.POLICY, "")).isEqualTo("syntax");
    assertThat(Annotations.rule(Document.REGISTRATIONS, "")).isEqualTo("syntax");
    assertThat(Annotations.rule(Document.POLICY, "schedules[1].cron")).isEqualTo("schedules");
    assertThat(Annotations.rule(Document.POLICY, "backends.cuda.suites.stage-c.runner_labels[2]")).isEqualTo("suites");
    assertThat(Annotations.rule(Document.POLICY, "backends.cuda.suites")).isEqualTo("suites");
    assertThat(Annotations.rule(Document.POLICY, "backends.cuda")).isEqualTo("backends");
    assertThat(Annotations.rule(Document.POLICY, "pr_stages[0]")).isEqualTo("pr-stages");
    assertThat(Annotations.rule(Document.POLICY, "non_gpu_paths[3]")).isEqualTo("non-gpu-paths");
    assertThat(Annotations.rule(Document.POLICY, "file_run.command")).isEqualTo("file-run");
    assertThat(Annotations.rule(Document.POLICY, "fleet.shares.weekly.h200.runners")).isEqualTo("fleet");
    assertThat(Annotations.rule(Document.POLICY, "workflows.pr-test.on.closed")).isEqualTo("workflows");
    assertThat(Annotations.rule(Document.POLICY, "gates.defaults.train/loss")).isEqualTo("gates");
    assertThat(Annotations.rule(Document.POLICY, "labels.x")).isEqualTo("labels");
    assertThat(Annotations.rule(Document.POLICY, "bogus")).isEqualTo("policy");
    assertThat(Annotations.rule(Document.REGISTRATIONS, "[0].labels")).isEqualTo("registrations");
    assertThat(Annotations.rule(Document.GATES, "tests/x.py[0].steps[1]")).isEqualTo("gates");
    assertThat(Annotations.rule(Document.POLICY, PolicyProblem.at("", "missing required field 'name'")))
        .isEqualTo("name");
    assertThat(Annotations.rule(Document.POLICY, PolicyProblem.at("", "the document is empty")))
        .isEqualTo("syntax");
    assertThat(Annotations.rule(Document.REGISTRATIONS, PolicyProblem.at("", "missing required field 'file'")))
        .isEqualTo("registrations");
  }

  @Test
  void theFileIsMadeRelativeOnlyInsideTheWorkspace() {
    assertThat(Annotations.file("/w/repo/p.yaml", "/w/repo")).isEqualTo("p.yaml");
    assertThat(Annotations.file("/w/repo/../repo/a/p.yaml", "/w/repo/")).isEqualTo("a/p.yaml");
    assertThat(Annotations.file("/w/other/p.yaml", "/w/repo")).isEqualTo("/w/other/p.yaml");
    assertThat(Annotations.file("/w/repo-2/p.yaml", "/w/repo")).isEqualTo("/w/repo-2/p.yaml");
    assertThat(Annotations.file("p.yaml", "/w/repo")).isEqualTo("p.yaml");
    assertThat(Annotations.file("/w/repo/p.yaml", null)).isEqualTo("/w/repo/p.yaml");
    assertThat(Annotations.file("/w/repo/p\0.yaml", "/w/repo")).isEqualTo("/w/repo/p\0.yaml");
  }
}
