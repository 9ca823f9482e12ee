package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidGateException;
import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.gate.Better;
import dev.cipolicy.api.gate.FailOnLevel;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.gate.GateSteps;
import dev.cipolicy.core.ReferencePolicy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code gates} section: reading, located errors, static checks; and gate declaration files. */
class GatesSectionTest {
  private static final String MINIMAL = """
      name: mini
      cadences:
        nightly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}
      schedules:
        - cron: "0 15 * * 0-5"
          cadence: nightly
      gates:
        defaults:
      """;

  private static List<String> problems(String defaults) {
    try {
      PolicyLoader.load("bad.yaml", MINIMAL + defaults);
    } catch (InvalidPolicyException e) {
      return e.problems().stream().map(PolicyProblem::toString).toList();
    }
    throw new AssertionError("expected the policy to be rejected:\n" + defaults);
  }

  @Test
  void theReferencePolicyDeclaresTheDefaultsTableOfSpec11() {
    List<GateDeclaration> d = ReferencePolicy.loaded().policy().gateDefaults();
    assertThat(d).extracting(GateDeclaration::metricKey).containsExactly("train/grad_norm", "train/ppo_kl",
        "train/train_rollout_logprob_abs_diff", "train/train_rollout_kl", "rollout/raw_reward",
        "rollout/tito_session_mismatch_rate/v1/assistant_text", "rollout/tito_session_mismatch_rate/v2/assistant_text");
    assertThat(d.get(0)).isEqualTo(GateDeclaration.builder().metricKey("train/grad_norm").steps(GateSteps.all())
        .constraint(GateConstraint.of(.5, .1, .8, .1)).better(Better.LOWER).build());
    assertThat(d.get(4).constraint().orElseThrow()).isEqualTo(GateConstraint.of(.5, .05, .2, .05));
    assertThat(d.get(6).steps()).contains(GateSteps.last());
    assertThat(d.get(6).constraint().orElseThrow().key()).isEqualTo("{\"abs_floor_up\":0.1,\"rel_down\":1,\"rel_up\":1}");
  }

  @Test
  void aPolicyWithoutGatesHasNoDefaults() {
    assertThat(PolicyLoader.load("ok.yaml", MINIMAL.replace("gates:\n  defaults:\n", "")).policy().gateDefaults())
        .isEmpty();
    assertThat(PolicyLoader.load("ok.yaml", MINIMAL + "    {}\n").policy().gateDefaults()).isEmpty();
  }

  @Test
  void listsOfStepsAreRead() {
    List<GateDeclaration> d = PolicyLoader.load("ok.yaml", MINIMAL + """
            eval/acc: {steps: [10, 0], constraint: {abs_floor_up: 1, abs_floor_down: 1}, better: higher}
        """).policy().gateDefaults();
    assertThat(d.get(0).steps()).contains(GateSteps.indices(List.of(10, 0)));
    assertThat(d.get(0).better()).contains(Better.HIGHER);
  }

  @Test
  void typeErrorsAreLocated() {
    assertThat(problems("""
            m1: {steps: some, constraint: {rel_up: 1, rel_down: 1}}
            m2: {steps: [0, x], constraint: {rel_up: "1", rel_down: 1, rel_sideways: 2}, better: sideways}
            m3: {steps: 3, constraint: [1]}
        """)).containsExactly(
        "bad.yaml:9:17: gates.defaults.m1.steps: expected last, all or a list of step indices, found 'some'",
        "bad.yaml:10:21: gates.defaults.m2.steps[1]: expected an integer, found a string",
        "bad.yaml:10:64: gates.defaults.m2.constraint.rel_sideways: unknown field 'rel_sideways'; expected one of"
            + " [abs_floor_down, abs_floor_up, rel_down, rel_up]",
        "bad.yaml:10:46: gates.defaults.m2.constraint.rel_up: expected a number, found a string",
        "bad.yaml:10:90: gates.defaults.m2.better: unknown direction 'sideways'; expected lower or higher",
        "bad.yaml:11:17: gates.defaults.m3.steps: expected last, all or a list of step indices, found an integer (3)",
        "bad.yaml:11:32: gates.defaults.m3.constraint: expected a mapping, found a list");
  }

  @Test
  void theRulesOfSpec11AreStaticChecksWithLocations() {
    assertThat(problems("""
            m1: {steps: [], constraint: {rel_up: -1, abs_floor_up: 0, rel_down: 1}}
            m2: {steps: [3, 3, -1], constraint: {rel_up: 1}}
            m3: {steps: all}
            m4: {constraint: {abs_floor_up: 1, abs_floor_down: 1}}
        """)).containsExactly(
        "bad.yaml:9:10: gates.defaults.m1.steps: steps must be 'last', 'all' or a non-empty list of step indices,"
            + " got []",
        "bad.yaml:9:42: gates.defaults.m1.constraint.rel_up: rel_up must be >= 0, got -1",
        "bad.yaml:10:21: gates.defaults.m2.steps[1]: step index 3 is listed twice",
        "bad.yaml:10:24: gates.defaults.m2.steps[2]: step index -1 must be non-negative",
        "bad.yaml:10:29: gates.defaults.m2.constraint: a constraint needs at least one down parameter (rel_down or"
            + " abs_floor_down)",
        "bad.yaml:11:5: gates.defaults.m3: a gate default must declare a constraint",
        "bad.yaml:12:5: gates.defaults.m4: a gate default must declare steps (last, all or a list of step indices)");
  }

  @Test
  void theSectionAcceptsOnlyFailOnAndDefaults() {
    assertThatThrownBy(() -> PolicyLoader.load("bad.yaml", MINIMAL.replace("  defaults:\n", "  default: {}\n")))
        .hasMessage("Invalid CI policy: bad.yaml:8:3: gates.default: unknown field 'default'; expected one of"
            + " [defaults, fail_on]");
  }

  private static final String TWO_CADENCES = """
      name: mini
      cadences:
        nightly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}
        weekly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}
      gates:
        fail_on:
      """;

  private static List<String> failOnProblems(String entries) {
    try {
      PolicyLoader.load("bad.yaml", TWO_CADENCES + entries);
    } catch (InvalidPolicyException e) {
      return e.problems().stream().map(PolicyProblem::toString).toList();
    }
    throw new AssertionError("expected the policy to be rejected:\n" + entries);
  }

  @Test
  void failOnNamesTheBlockingLevelOfEachCadence() {
    assertThat(PolicyLoader.load("ok.yaml", TWO_CADENCES + "    {weekly: error, nightly: regression}\n").policy()
        .gateFailOn()).containsExactly(Map.entry("weekly", FailOnLevel.ERROR),
            Map.entry("nightly", FailOnLevel.REGRESSION));
    assertThat(PolicyLoader.load("ok.yaml", TWO_CADENCES + "    {}\n").policy().gateFailOn()).isEmpty();
    assertThat(PolicyLoader.load("ok.yaml", MINIMAL + "    {}\n").policy().gateFailOn()).isEmpty();
  }

  @Test
  void failOnValuesAreRegressionOrErrorWithLocations() {
    assertThat(failOnProblems("""
            nightly: sometimes
            weekly: [error]
            release: REGRESSION
        """)).containsExactly(
        "bad.yaml:7:14: gates.fail_on.nightly: unknown blocking level 'sometimes'; expected regression or error",
        "bad.yaml:8:13: gates.fail_on.weekly: expected regression or error, found a list",
        "bad.yaml:9:14: gates.fail_on.release: unknown blocking level 'REGRESSION'; expected regression or error");
    assertThat(failOnProblems("    [nightly]\n")).containsExactly(
        "bad.yaml:7:5: gates.fail_on: expected a mapping of names, found a list");
  }

  @Test
  void failOnKeysAreDeclaredCadencesWithLocations() {
    assertThat(failOnProblems("""
            nightly: regression
            nighty: error
        """)).containsExactly(
        "bad.yaml:8:5: gates.fail_on.nighty: unknown cadence 'nighty'; expected one of [nightly, weekly]");
  }

  @Test
  void aDeclarationsFileMapsTestFilesToTheirGates() {
    Map<String, List<GateDeclaration>> gates = GateDeclarationsLoader.load("gates.yaml", """
        tests/e2e/test_a.py:
          - metric_key: train/grad_norm
          - {metric_key: rollout/raw_reward, steps: last, constraint: {rel_up: .5, rel_down: .2}, better: higher}
        tests/e2e/test_b.py: []
        """);
    assertThat(gates.keySet()).containsExactly("tests/e2e/test_a.py", "tests/e2e/test_b.py");
    assertThat(gates.get("tests/e2e/test_a.py")).containsExactly(
        GateDeclaration.builder().metricKey("train/grad_norm").build(),
        GateDeclaration.builder().metricKey("rollout/raw_reward").steps(GateSteps.last())
            .constraint(GateConstraint.builder().relUp(.5).relDown(.2).build()).better(Better.HIGHER).build());
    assertThat(gates.get("tests/e2e/test_b.py")).isEmpty();
  }

  @Test
  void aDeclarationsFileIsCheckedWithLocations() {
    assertThatThrownBy(() -> GateDeclarationsLoader.load("gates.json", """
        {"tests/e2e/test_a.py": [
          {"steps": "all"},
          {"metric_key": "m", "steps": [1, 1], "constraint": {"rel_up": -1, "rel_down": 1}}
        ], "tests/e2e/test_b.py": {}}"""))
        .isInstanceOfSatisfying(InvalidGateException.class, e -> assertThat(e.problems())
            .extracting(PolicyProblem::toString).containsExactly(
                "gates.json:2:3: tests/e2e/test_a.py[0]: missing required field 'metric_key'",
                "gates.json:3:36: tests/e2e/test_a.py[1].steps[1]: step index 1 is listed twice",
                "gates.json:3:65: tests/e2e/test_a.py[1].constraint.rel_up: rel_up must be >= 0, got -1",
                "gates.json:4:27: tests/e2e/test_b.py: expected a list, found a mapping"));
    assertThatThrownBy(() -> GateDeclarationsLoader.load("gates.yaml", "a: [b"))
        .isInstanceOf(InvalidGateException.class).hasMessageStartingWith("Invalid gate declarations: gates.yaml:1:");
  }
}
