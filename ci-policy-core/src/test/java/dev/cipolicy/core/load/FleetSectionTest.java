package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.RunnerPool;
import dev.cipolicy.core.ReferencePolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code fleet} section: runner pools and cadence shares, their located errors and static checks. */
class FleetSectionTest {

  private static final String MINIMAL = """
      name: mini
      cadences:
        nightly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}
        weekly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}
      schedules:
        - cron: "0 15 * * 0-5"
          cadence: nightly
      fleet:
        pools:
          h200: {runners: 4, gpus: 16}
          cpu: {runners: 2}
      """;

  private static InvalidPolicyException fail(String yaml) {
    try {
      PolicyLoader.load("bad.yaml", yaml);
    } catch (InvalidPolicyException e) {
      return e;
    }
    throw new AssertionError("expected the policy to be rejected:\n" + yaml);
  }

  private static List<String> problems(String shares) {
    return fail(MINIMAL + shares).problems().stream().map(PolicyProblem::toString).toList();
  }

  private static Policy load(String shares) {
    return PolicyLoader.load("ok.yaml", MINIMAL + shares).policy();
  }

  @Test
  void theReferencePolicyDeclaresItsFourPoolsAWeeklyRunnerOfEachAndANightlyShare() {
    Policy p = ReferencePolicy.loaded().policy();
    assertThat(p.pools()).extracting(RunnerPool::name).containsExactly("h100", "h200", "b200", "mi350");
    assertThat(p.pool("h200").orElseThrow().runners()).isEqualTo(4);
    assertThat(p.pool("b200").orElseThrow().gpus()).isEqualTo(8);
    assertThat(p.fleetShares()).filteredOn(s -> s.cadence().equals("weekly"))
        .containsExactly(FleetShare.runners("weekly", "h100", 1), FleetShare.runners("weekly", "h200", 1),
            FleetShare.runners("weekly", "b200", 1), FleetShare.runners("weekly", "mi350", 1));
    assertThat(p.share("nightly", "h200")).contains(FleetShare.builder().cadence("nightly").pool("h200")
        .unit(FleetShare.Unit.GPUS).amount(12).borrow(true).build());
    assertThat(p.share("regular", "h200")).isEmpty();
    // every GPU suite of the reference policy runs on a declared pool with a budget of 2, 4 or 8 GPUs
    p.backends().stream().flatMap(b -> b.suites().stream()).filter(s -> s.gpus() > 0).forEach(s -> {
      assertThat(s.pool()).as(s.name()).isPresent();
      assertThat(p.pool(s.pool().orElseThrow())).as(s.name()).isPresent();
      assertThat(s.gpuBudget()).as(s.name()).isIn(2, 4, 8);
    });
  }

  @Test
  void sharesAreReadInRunnersOrGpusWithOptionalBorrowing() {
    Policy p = load("""
          shares:
            weekly:
              h200: {runners: 1}
              cpu: {runners: 1}
            nightly:
              h200: {gpus: 12, borrow: true}
        """);
    assertThat(p.fleetShares()).containsExactly(FleetShare.runners("weekly", "h200", 1),
        FleetShare.runners("weekly", "cpu", 1),
        FleetShare.builder().cadence("nightly").pool("h200").unit(FleetShare.Unit.GPUS).amount(12).borrow(true)
            .build());
    assertThat(p.fleetShares().get(0).borrow()).isFalse();
    assertThat(p.pool("cpu").orElseThrow().gpus()).isZero();
    assertThat(p.pool("cpu").orElseThrow().description()).isEmpty();
  }

  @Test
  void aPolicyWithoutTheSectionHasNoPoolsAndNoShares() {
    Policy p = PolicyLoader.load("ok.yaml", MINIMAL.substring(0, MINIMAL.indexOf("fleet:"))).policy();
    assertThat(p.pools()).isEmpty();
    assertThat(p.fleetShares()).isEmpty();
  }

  @Test
  void anUnknownCadenceIsALocatedError() {
    assertThat(problems("""
          shares:
            weekley:
              h200: {runners: 1}
        """)).containsExactly("bad.yaml:13:5: fleet.shares.weekley: unknown cadence 'weekley'; expected one of"
        + " [nightly, weekly]");
  }

  @Test
  void anUnknownPoolIsALocatedError() {
    assertThat(problems("""
          shares:
            weekly:
              h300: {runners: 1}
        """)).containsExactly("bad.yaml:14:7: fleet.shares.weekly.h300: unknown pool 'h300'; expected one of"
        + " [cpu, h200]");
  }

  @Test
  void aShareOfZeroOrLessIsAnError() {
    assertThat(problems("""
          shares:
            weekly:
              h200: {runners: 0}
            nightly:
              h200: {gpus: -2}
        """)).containsExactly(
        "bad.yaml:14:23: fleet.shares.weekly.h200.runners: the share of cadence 'weekly' in pool 'h200' is 0"
            + " runners; expected at least 1",
        "bad.yaml:16:20: fleet.shares.nightly.h200.gpus: the share of cadence 'nightly' in pool 'h200' is -2"
            + " gpus; expected at least 1");
  }

  @Test
  void aShareBeyondThePoolIsAnError() {
    assertThat(problems("""
          shares:
            weekly:
              h200: {runners: 5}
              cpu: {gpus: 1}
        """)).containsExactly(
        "bad.yaml:14:23: fleet.shares.weekly.h200.runners: the share of cadence 'weekly' is 5 runners but pool"
            + " 'h200' has 4; expected at most 4",
        "bad.yaml:15:19: fleet.shares.weekly.cpu.gpus: the share of cadence 'weekly' is 1 gpus but pool 'cpu'"
            + " has 0; expected at most 0");
  }

  @Test
  void aShareCountsRunnersOrGpusExactlyOnce() {
    assertThat(problems("""
          shares:
            weekly:
              h200: {borrow: true}
            nightly:
              h200: {runners: 1, gpus: 4}
        """)).containsExactly(
        "bad.yaml:14:13: fleet.shares.weekly.h200: missing required field 'runners' or 'gpus'",
        "bad.yaml:16:13: fleet.shares.nightly.h200: a share counts runners or gpus, not both; found both");
  }

  @Test
  void wrongTypesAndUnknownKeysAreLocated() {
    assertThat(problems("""
          shares:
            weekly:
              h200: {runners: one, borow: true}
        """)).containsExactly(
        "bad.yaml:14:28: fleet.shares.weekly.h200.borow: unknown field 'borow'; expected one of [borrow, gpus,"
            + " runners]",
        "bad.yaml:14:23: fleet.shares.weekly.h200.runners: expected an integer, found a string");
    assertThat(fail(MINIMAL.replace("{runners: 2}", "{gpus: 2}")).problems()).extracting(PolicyProblem::toString)
        .containsExactly("bad.yaml:11:10: fleet.pools.cpu: missing required field 'runners'");
  }

  @Test
  void onceThePoolsAreDeclaredEverySuitesPoolIsOneOfThem() {
    String yaml = MINIMAL + """
        backends:
          cuda:
            gpu: true
            suites:
              stage-c-4-gpu-h100:
                runner_labels: [h100, 4gpu]
                gpus: 4
                hardware: h100
                pool: h100
        """;
    assertThat(fail(yaml).problems()).extracting(PolicyProblem::toString).containsExactly(
        "bad.yaml:20:15: backends.cuda.suites.stage-c-4-gpu-h100.pool: suite 'stage-c-4-gpu-h100' runs on pool"
            + " 'h100', which fleet.pools does not declare; expected one of [cpu, h200]");
  }

  @Test
  void poolsAndSharesAreValidWhenBuilt() {
    assertThatThrownBy(() -> FleetShare.gpus("nightly", "h200", 0)).isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("the share of cadence 'nightly' in pool 'h200' is 0 gpus; expected at least 1");
    assertThatThrownBy(() -> FleetShare.runners("", "h200", 1)).isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("cadence");
    assertThatThrownBy(() -> RunnerPool.builder().name("h200").runners(0).build())
        .isInstanceOf(InvalidValueException.class).hasMessageContaining("runners");
    assertThatThrownBy(() -> RunnerPool.builder().name("h 200").runners(1).build())
        .isInstanceOf(InvalidValueException.class).hasMessageContaining("pool name 'h 200' is not shell-safe");
    assertThatThrownBy(() -> RunnerPool.builder().name("h200").runners(1).gpus(-1).build())
        .isInstanceOf(InvalidValueException.class).hasMessageContaining("gpus");
    RunnerPool pool = RunnerPool.builder().name("h200").runners(4).gpus(16).build();
    assertThat(pool.capacity(FleetShare.Unit.RUNNERS)).isEqualTo(4);
    assertThat(pool.capacity(FleetShare.Unit.GPUS)).isEqualTo(16);
  }

  @Test
  void morePoliciesSharesThanTheQueueHoldsAreOneProblemOfTheCheck() {
    StringBuilder pools = new StringBuilder();
    StringBuilder nightly = new StringBuilder("    nightly:\n");
    StringBuilder weekly = new StringBuilder("    weekly:\n");
    for (int i = 0; i < 501; i++) {
      pools.append("    p").append(i).append(": {runners: 4}\n");
      nightly.append("      p").append(i).append(": {runners: 1}\n");
      weekly.append("      p").append(i).append(": {runners: 1}\n");
    }
    String yaml = MINIMAL.replace("    cpu: {runners: 2}\n", "    cpu: {runners: 2}\n" + pools) + "  shares:\n"
        + nightly + weekly;
    assertThat(fail(yaml).problems()).extracting(PolicyProblem::message).containsExactly(
        "the policy declares 1002 fleet shares; at most " + FleetShare.MAX_SHARES + " are accepted (the queue holds"
            + " no more)");
    assertThat(FleetShare.MAX_SHARES).isEqualTo(1_000);
  }
}
