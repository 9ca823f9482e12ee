package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.concurrency.ConcurrencyAction;
import dev.cipolicy.api.concurrency.ConcurrencyEventType;
import dev.cipolicy.api.concurrency.WorkflowConcurrency;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.WorkflowRoles;
import dev.cipolicy.core.PolicyResolver;
import dev.cipolicy.core.ReferencePolicy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code workflows} section: reading it, located errors, and its static checks. */
class WorkflowsSectionTest {

  private static final String MINIMAL = """
      name: mini
      cadences:
        nightly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}
      schedules:
        - cron: "0 15 * * 0-5"
          cadence: nightly
      workflows:
      """;

  private static InvalidPolicyException fail(String yaml) {
    try {
      PolicyLoader.load("bad.yaml", yaml);
    } catch (InvalidPolicyException e) {
      return e;
    }
    throw new AssertionError("expected the policy to be rejected:\n" + yaml);
  }

  private static String only(String workflows) {
    InvalidPolicyException e = fail(MINIMAL + workflows);
    assertThat(e.problems()).hasSize(1);
    return e.problems().get(0).toString();
  }

  private static List<WorkflowConcurrency> load(String workflows) {
    return PolicyLoader.load("ok.yaml", MINIMAL + workflows).policy().workflows();
  }

  @Test
  void theReferencePolicyDeclaresTheCudaAndRocmWorkflows() {
    List<WorkflowConcurrency> ws = ReferencePolicy.loaded().policy().workflows();
    assertThat(ws).extracting(WorkflowConcurrency::name).containsExactly("pr-test", "pr-test-rocm");
    assertThat(ws.get(0).groupPrefix()).isEqualTo("pr-test-");
    assertThat(ws.get(0).actions()).containsExactly(
        Map.entry(ConcurrencyEventType.SUPERSEDED, ConcurrencyAction.CANCEL),
        Map.entry(ConcurrencyEventType.CLOSED, ConcurrencyAction.CANCEL),
        Map.entry(ConcurrencyEventType.MERGED, ConcurrencyAction.CANCEL),
        Map.entry(ConcurrencyEventType.SCHEDULED, ConcurrencyAction.CANCEL),
        Map.entry(ConcurrencyEventType.DISPATCHED, ConcurrencyAction.CANCEL));
    assertThat(ws.get(1).groupPrefix()).isEqualTo("pr-test-rocm-");
    assertThat(ws.get(1).actions()).isEmpty();
    assertThat(ws.get(1).action(ConcurrencyEventType.CLOSED)).isEqualTo(ConcurrencyAction.CANCEL);
    assertThat(ws.get(1).action(ConcurrencyEventType.DISPATCHED)).isEqualTo(ConcurrencyAction.QUEUE);
  }

  @Test
  void omittedEventTypesTakeTheirDefaults() {
    WorkflowConcurrency w = load("  ci:\n    group_prefix: ci-\n    on: {superseded: queue}\n").get(0);
    assertThat(w.action(ConcurrencyEventType.SUPERSEDED)).isEqualTo(ConcurrencyAction.QUEUE);
    assertThat(w.action(ConcurrencyEventType.CLOSED)).isEqualTo(ConcurrencyAction.CANCEL);
    assertThat(w.action(ConcurrencyEventType.MERGED)).isEqualTo(ConcurrencyAction.CANCEL);
    assertThat(w.action(ConcurrencyEventType.SCHEDULED)).isEqualTo(ConcurrencyAction.CANCEL);
    assertThat(w.action(ConcurrencyEventType.DISPATCHED)).isEqualTo(ConcurrencyAction.QUEUE);
  }

  @Test
  void aPolicyWithoutTheSectionDeclaresNoWorkflows() {
    assertThat(PolicyLoader.load("ok.yaml", MINIMAL.replace("workflows:\n", "")).policy().workflows()).isEmpty();
  }

  @Test
  void anUnknownEventTypeListsTheAllowedOnes() {
    assertThat(only("  ci:\n    group_prefix: ci-\n    on: {closd: cancel}\n")).isEqualTo("bad.yaml:10:10:"
        + " workflows.ci.on.closd: unknown event type 'closd'; expected one of [closed, dispatched, merged,"
        + " scheduled, superseded]");
  }

  @Test
  void anUnknownActionListsTheAllowedOnes() {
    assertThat(only("  ci:\n    group_prefix: ci-\n    on:\n      superseded: kill\n")).isEqualTo("bad.yaml:11:19:"
        + " workflows.ci.on.superseded: unknown action 'kill'; expected one of [cancel, ignore, queue]");
  }

  @Test
  void anActionMustBeAString() {
    assertThat(only("  ci:\n    group_prefix: ci-\n    on: {closed: true}\n"))
        .isEqualTo("bad.yaml:10:18: workflows.ci.on.closed: expected a string, found a boolean (true) (quote it)");
  }

  @Test
  void theGroupPrefixIsRequiredAndFieldsAreChecked() {
    InvalidPolicyException e = fail(MINIMAL + "  ci:\n    prefix: ci-\n");
    assertThat(e.problems()).extracting(PolicyProblem::toString).containsExactly(
        "bad.yaml:9:5: workflows.ci.prefix: unknown field 'prefix'; expected one of [description, group_prefix, on, roles]",
        "bad.yaml:9:5: workflows.ci: missing required field 'group_prefix'");
  }

  @Test
  void closedMustAlwaysCancel() {
    assertThat(only("  ci:\n    group_prefix: ci-\n    on: {closed: ignore}\n")).isEqualTo("bad.yaml:10:18:"
        + " workflows.ci.on.closed: closed must be cancel, not ignore: closing a pull request must end every run of"
        + " it in every workflow (a workflow that does not cancel on close keeps runners busy for a PR nobody will"
        + " merge)");
    assertThat(only("  ci:\n    group_prefix: ci-\n    on: {closed: queue}\n"))
        .contains("closed must be cancel, not queue");
  }

  @Test
  void mergedCannotQueue() {
    assertThat(only("  ci:\n    group_prefix: ci-\n    on: {merged: queue}\n")).isEqualTo("bad.yaml:10:18:"
        + " workflows.ci.on.merged: merged must be cancel or ignore, not queue: the run a merge starts is"
        + " cancellation-only, so queueing it would only hold the group until older runs finish");
    assertThat(load("  ci:\n    group_prefix: ci-\n    on: {merged: ignore}\n").get(0)
        .action(ConcurrencyEventType.MERGED)).isEqualTo(ConcurrencyAction.IGNORE);
  }

  @Test
  void prefixesMustBeNonEmptyAndShellSafe() {
    assertThat(only("  ci:\n    group_prefix: \"\"\n")).isEqualTo("bad.yaml:9:19: workflows.ci.group_prefix: the"
        + " group prefix must not be empty: concurrency groups are repository-wide, so without a prefix per"
        + " workflow the groups of different workflows collide");
    assertThat(only("  ci:\n    group_prefix: \"ci $(id)-\"\n")).isEqualTo("bad.yaml:9:19:"
        + " workflows.ci.group_prefix: group prefix 'ci $(id)-' must use only letters, digits and _ . - so that"
        + " group keys are shell-safe");
  }

  @Test
  void workflowNamesMustBeShellSafe() {
    assertThat(only("  \"c i\":\n    group_prefix: ci-\n"))
        .isEqualTo("bad.yaml:8:3: workflows.c i: workflow name 'c i' must match [A-Za-z0-9][A-Za-z0-9_.-]*");
  }

  @Test
  void twoWorkflowsCannotShareAPrefix() {
    assertThat(only("  a:\n    group_prefix: ci-\n  b:\n    group_prefix: ci-\n")).isEqualTo("bad.yaml:11:19:"
        + " workflows.b.group_prefix: group prefix 'ci-' is already used by workflow 'a'; concurrency groups are"
        + " repository-wide, so the two workflows would cancel each other's runs");
  }

  @Test
  void aPrefixMayNotExtendAnotherByTextAKeyCanStartWith() {
    assertThat(only("  a:\n    group_prefix: ci-\n  b:\n    group_prefix: ci-1\n")).isEqualTo("bad.yaml:11:19:"
        + " workflows.b.group_prefix: group prefix 'ci-1' extends the prefix 'ci-' of workflow 'a' by '1', so group"
        + " key 'ci-11' belongs both to workflow 'a' (PR #11) and to workflow 'b' (PR #1); concurrency groups are"
        + " repository-wide, so their runs would cancel each other. A prefix may extend another only by text no"
        + " key can start with, such as a letter (e.g. 'pr-test-' and 'pr-test-rocm-')");
    // The order of declaration does not matter.
    assertThat(only("  b:\n    group_prefix: ci-12\n  a:\n    group_prefix: ci-\n"))
        .startsWith("bad.yaml:9:19: workflows.b.group_prefix: group prefix 'ci-12' extends the prefix 'ci-'");
  }

  @Test
  void aPrefixMayExtendAnotherByTextNoKeyCanStartWith() {
    // No PR number, run id, declared cron or full git ref starts with 'rocm-', '0-' or '_': no key collides.
    assertThat(load("  a:\n    group_prefix: ci-\n  b:\n    group_prefix: ci-rocm-\n  c:\n    group_prefix: ci-0-\n"
        + "  d:\n    group_prefix: ci-_\n")).hasSize(4);
    // A leading zero is no PR number and ' 15 * * 0-5' is no cron: 'x' + '0 15 * * 0-5' is not 'x0' + anything.
    assertThat(load("  a:\n    group_prefix: x\n  b:\n    group_prefix: x0\n")).hasSize(2);
  }

  @Test
  void checksRunOnPoliciesBuiltInCodeToo() {
    Policy p = Policy.builder().from(ReferencePolicy.loaded().policy()).workflows(List.of(
        WorkflowConcurrency.builder().name("a").groupPrefix("a-").build(),
        WorkflowConcurrency.builder().name("a").groupPrefix("b-")
            .putActions(ConcurrencyEventType.CLOSED, ConcurrencyAction.QUEUE).build())).build();
    assertThatThrownBy(() -> PolicyResolver.of(p))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessage("Invalid CI policy (2 problems): workflows.a: workflow 'a' is declared twice;"
            + " workflows.a.on.closed: closed must be cancel, not queue: closing a pull request must end every run"
            + " of it in every workflow (a workflow that does not cancel on close keeps runners busy for a PR nobody"
            + " will merge)");
  }

  @Test
  void rolesAreReadWithTheirDefaults() {
    List<WorkflowRoles> roles = ReferencePolicy.loaded().policy().workflowRoles();
    assertThat(roles).extracting(WorkflowRoles::workflow).containsExactly("pr-test", "pr-test-rocm");
    WorkflowRoles cuda = roles.get(0);
    assertThat(cuda.file()).isEqualTo("pr-test.yml");
    assertThat(cuda.policyJob()).isEqualTo("resolve-ci-policy");
    assertThat(cuda.gateJob()).contains("stage-a-cpu");
    assertThat(cuda.throttledCadences()).containsExactly("weekly");
    assertThat(roles.get(1).gateJob()).isEmpty();
    WorkflowRoles mini = PolicyLoader.load("ok.yaml", MINIMAL + "  ci:\n    group_prefix: ci-\n    roles:\n"
        + "      policy_job: p\n      outputs: {bypass: bypass}\n").policy().workflowRoles().get(0);
    assertThat(mini.file()).isEqualTo("ci.yml");
    assertThat(mini.bypassOutput()).isEqualTo("bypass");
    assertThat(mini.cadenceOutput()).isEqualTo("cadence");
    assertThat(mini.skippedStagesOutput()).isEqualTo("skipped_stages");
    assertThat(mini.stageJobs()).isEmpty();
    assertThat(mini.location()).map(l -> l.line()).contains(10);
  }

  @Test
  void badRolesAreLocatedErrors() {
    String head = "  ci:\n    group_prefix: ci-\n    roles:\n";
    assertThat(only(head + "      gate_job: g\n")).contains("workflows.ci.roles").contains("missing required field"
        + " 'policy_job'");
    assertThat(only(head + "      policy_job: p\n      throttled_cadences: [weeky]\n"))
        .contains("bad.yaml:12:28:").contains("workflows.ci.roles.throttled_cadences[0]: unknown cadence 'weeky'");
    assertThat(only(head + "      policy_job: p\n      stage_jobs: {a: no-suite}\n"))
        .contains("stage job 'a' runs unknown suite 'no-suite'");
    assertThat(only(head + "      policy_job: p\n      file: .github/workflows/ci.yml\n"))
        .contains("workflows.ci.roles.file").contains("without a directory");
    assertThat(only(head + "      policy_job: p\n      gate_job: p\n")).contains("is the policy job");
    assertThat(only(head + "      policy_job: p\n      colour: red\n")).contains("colour");
    assertThat(only(head + "      policy_job: p\n  other:\n    group_prefix: other-\n    roles:\n"
        + "      policy_job: p\n      file: ci.yml\n")).contains("has roles declared twice");
  }
}
