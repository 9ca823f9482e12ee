package dev.cipolicy.api.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.CanonicalJson;
import dev.cipolicy.api.PolicyProblem;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The declaration rules and the canonical keys. */
class GateDeclarationTest {

  private static List<String> messages(List<PolicyProblem> problems) {
    return problems.stream().map(PolicyProblem::toString).toList();
  }

  @Test
  void stepsKeysAreCanonical() {
    assertThat(GateSteps.last().key()).isEqualTo("last");
    assertThat(GateSteps.all().key()).isEqualTo("all");
    assertThat(GateSteps.indices(List.of(20, 0, 10)).key()).isEqualTo("[0,10,20]");
    assertThat(GateSteps.indices(List.of(0, 10, 20)).key()).isEqualTo(GateSteps.indices(List.of(20, 10, 0)).key());
  }

  @Test
  void stepListsMustBeNonEmptyDistinctAndNonNegative() {
    assertThat(messages(GateSteps.indices(List.of()).violations()))
        .containsExactly("steps must be 'last', 'all' or a non-empty list of step indices, got []");
    assertThat(messages(GateSteps.indices(List.of(3, -1, 3)).violations()))
        .containsExactly("[1]: step index -1 must be non-negative", "[2]: step index 3 is listed twice");
    assertThat(GateSteps.indices(List.of(0, 5)).violations()).isEmpty();
  }

  @Test
  void constraintKeysComeFromTheLiteralAsDeclared() {
    GateConstraint full = GateConstraint.of(.5, .1, .8, .1);
    assertThat(full.key()).isEqualTo("{\"abs_floor_down\":0.1,\"abs_floor_up\":0.1,\"rel_down\":0.8,\"rel_up\":0.5}");
    GateConstraint tito = GateConstraint.builder().relUp(1.0).absFloorUp(.1).relDown(1).build();
    assertThat(tito.key()).isEqualTo("{\"abs_floor_up\":0.1,\"rel_down\":1,\"rel_up\":1}");
    GateConstraint explicitZero = GateConstraint.builder().relUp(1).absFloorUp(.1).relDown(1).absFloorDown(0).build();
    assertThat(explicitZero.key()).isNotEqualTo(tito.key()); // a declared 0 is another literal than an absent one
    assertThat(explicitZero.downTolerance(3)).isEqualTo(tito.downTolerance(3)); // but the same band
  }

  @Test
  void constraintParametersMustBeFiniteAndNonNegative() {
    GateConstraint c = GateConstraint.builder().relUp(-0.5).absFloorUp(Double.NaN).relDown(.2).build();
    assertThat(messages(c.violations()))
        .containsExactly("rel_up: rel_up must be >= 0, got -0.5", "abs_floor_up: abs_floor_up must be finite, got NaN");
  }

  @Test
  void aConstraintNeedsAnUpAndADownParameter() {
    assertThat(messages(GateConstraint.builder().relUp(.5).build().violations()))
        .containsExactly("a constraint needs at least one down parameter (rel_down or abs_floor_down)");
    assertThat(messages(GateConstraint.builder().absFloorDown(.5).build().violations()))
        .containsExactly("a constraint needs at least one up parameter (rel_up or abs_floor_up)");
  }

  @Test
  void missingParametersCountAsZero() {
    GateConstraint c = GateConstraint.builder().absFloorUp(.1).relDown(.5).build();
    assertThat(c.upTolerance(10)).isEqualTo(.1);
    assertThat(c.downTolerance(-10)).isEqualTo(5);
  }

  @Test
  void declarationViolationsAreRootedAtTheirField() {
    GateDeclaration d = GateDeclaration.builder().metricKey(" ").steps(GateSteps.indices(List.of(-2)))
        .constraint(GateConstraint.builder().relUp(-1).relDown(1).build()).build();
    assertThat(messages(d.violations())).containsExactly("metric_key: the metric key must not be empty",
        "steps[0]: step index -2 must be non-negative", "constraint.rel_up: rel_up must be >= 0, got -1");
    assertThat(GateDeclaration.under("gates.defaults.m", d.violations().get(1)).path())
        .isEqualTo("gates.defaults.m.steps[0]");
  }

  @Test
  void betterHasDocumentNames() {
    assertThat(Better.fromDocumentName("lower")).contains(Better.LOWER);
    assertThat(Better.fromDocumentName("Lower")).isEmpty();
    assertThat(Better.HIGHER.documentName()).isEqualTo("higher");
  }

  @Test
  void canonicalNumbers() {
    assertThat(CanonicalJson.number(.5)).isEqualTo("0.5");
    assertThat(CanonicalJson.number(1.0)).isEqualTo("1");
    assertThat(CanonicalJson.number(-0.0)).isEqualTo("0");
    assertThat(CanonicalJson.number(1e-8)).isEqualTo("1E-8");
    assertThat(CanonicalJson.number(1e21)).isEqualTo("1E+21");
    assertThat(CanonicalJson.number(123456.789)).isEqualTo("123456.789");
    assertThat(CanonicalJson.write(List.of(1.5, Double.NaN, Double.NEGATIVE_INFINITY))).isEqualTo("[1.5,\"NaN\",\"-Infinity\"]");
  }
}
