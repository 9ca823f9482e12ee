package dev.cipolicy.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidGateException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.gate.Better;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.gate.GateSteps;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Resolving declarations against the defaults table, and the reference table itself. */
class GatesTest {
  private static final List<GateDeclaration> DEFAULTS = Gates.referenceDefaults();

  private static GateDeclaration declare(String metric) {
    return GateDeclaration.builder().metricKey(metric).build();
  }

  @Test
  void theReferenceTableIsTheOneOfSpec11() {
    assertThat(DEFAULTS).extracting(GateDeclaration::metricKey).containsExactly("train/grad_norm", "train/ppo_kl",
        "train/train_rollout_logprob_abs_diff", "train/train_rollout_kl", "rollout/raw_reward",
        "rollout/tito_session_mismatch_rate/v1/assistant_text", "rollout/tito_session_mismatch_rate/v2/assistant_text");
    GateSpec grad = Gates.resolve(List.of(declare("train/grad_norm")), DEFAULTS).get(0);
    assertThat(grad.stepsKey()).isEqualTo("all");
    assertThat(grad.constraint()).isEqualTo(GateConstraint.of(.5, .1, .8, .1));
    GateSpec reward = Gates.resolve(List.of(declare("rollout/raw_reward")), DEFAULTS).get(0);
    assertThat(reward.constraint()).isEqualTo(GateConstraint.of(.5, .05, .2, .05));
    assertThat(reward.better()).contains(Better.HIGHER);
    GateSpec tito = Gates.resolve(List.of(declare("rollout/tito_session_mismatch_rate/v2/assistant_text")), DEFAULTS)
        .get(0);
    assertThat(tito.stepsKey()).isEqualTo("last");
    assertThat(tito.constraintKey()).isEqualTo("{\"abs_floor_up\":0.1,\"rel_down\":1,\"rel_up\":1}");
  }

  @Test
  void aDeclaredPartOverridesTheDefaultAndTheRestIsFilledIn() {
    GateDeclaration d = GateDeclaration.builder().metricKey("train/grad_norm").steps(GateSteps.last()).build();
    GateSpec s = Gates.resolve(List.of(d), DEFAULTS).get(0);
    assertThat(s.stepsKey()).isEqualTo("last");
    assertThat(s.constraint()).isEqualTo(GateConstraint.of(.5, .1, .8, .1));
    assertThat(s.better()).contains(Better.LOWER);
  }

  @Test
  void aMetricWithoutDefaultMustDeclareStepsAndConstraint() {
    assertThatThrownBy(() -> Gates.resolve(List.of(declare("eval/acc")), DEFAULTS))
        .isInstanceOfSatisfying(InvalidGateException.class, e -> assertThat(e.problems())
            .extracting(PolicyProblem::toString).containsExactly(
                "gates[0].steps: the gate on 'eval/acc' declares no steps and no default supplies them",
                "gates[0].constraint: the gate on 'eval/acc' declares no constraint and no default supplies one"));
  }

  @Test
  void everyInvalidDeclarationIsReportedAtOnce() {
    GateDeclaration bad = GateDeclaration.builder().metricKey("m").steps(GateSteps.indices(List.of(1, 1)))
        .constraint(GateConstraint.builder().relUp(1).build()).build();
    assertThatThrownBy(() -> Gates.resolve(List.of(declare("train/ppo_kl"), bad), DEFAULTS))
        .hasMessage("Invalid gate declarations (2 problems): gates[1].steps[1]: step index 1 is listed twice;"
            + " gates[1].constraint: a constraint needs at least one down parameter (rel_down or abs_floor_down)");
  }

  @Test
  void buildingAnInvalidSpecThrows() {
    assertThatThrownBy(() -> GateSpec.builder().metricKey("m").steps(GateSteps.all())
        .constraint(GateConstraint.builder().relUp(-1).relDown(1).build()).build())
        .isInstanceOf(InvalidGateException.class)
        .hasMessage("Invalid gate declarations: m.constraint.rel_up: rel_up must be >= 0, got -1");
  }

  @Test
  void noDeclarationGivesNoSpec() {
    assertThat(Gates.resolve(List.of(), DEFAULTS)).isEmpty();
  }
}
