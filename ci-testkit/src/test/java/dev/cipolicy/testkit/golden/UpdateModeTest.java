package dev.cipolicy.testkit.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class UpdateModeTest {

  @Test
  void comparesUnlessTheExactSwitchIsGiven() {
    assertThat(UpdateMode.decide(Map.of(), Map.of())).isEqualTo(UpdateMode.COMPARE);
    assertThat(UpdateMode.decide(Map.of(), Map.of("ci.testkit.update", "false"))).isEqualTo(UpdateMode.COMPARE);
    assertThat(UpdateMode.decide(Map.of("CI_TESTKIT_UPDATE", "0"), Map.of())).isEqualTo(UpdateMode.COMPARE);
    assertThat(UpdateMode.decide(Map.of("CI_TESTKIT_UPDATE", ""), Map.of())).isEqualTo(UpdateMode.COMPARE);
    assertThat(UpdateMode.decide(Map.of(), Map.of("ci.testkit.update", "true"))).isEqualTo(UpdateMode.UPDATE);
    assertThat(UpdateMode.decide(Map.of("CI_TESTKIT_UPDATE", "1"), Map.of())).isEqualTo(UpdateMode.UPDATE);
    assertThat(UpdateMode.decide(Map.of("CI_TESTKIT_UPDATE", "1", "CI", "false"), Map.of()))
        .isEqualTo(UpdateMode.UPDATE);
  }

  @Test
  void anyOtherValueIsAnErrorNotASilentChoice() {
    assertThatThrownBy(() -> UpdateMode.decide(Map.of(), Map.of("ci.testkit.update", "yes")))
        .isInstanceOf(SnapshotConfigurationException.class)
        .hasMessage("system property ci.testkit.update is 'yes'; expected exactly 'true' to update golden files,"
            + " or 'false' (or unset) to compare with them");
    assertThatThrownBy(() -> UpdateMode.decide(Map.of("CI_TESTKIT_UPDATE", "true"), Map.of()))
        .isInstanceOf(SnapshotConfigurationException.class)
        .hasMessageStartingWith("environment variable CI_TESTKIT_UPDATE is 'true'; expected exactly '1'");
  }

  @Test
  void anUpdateIsRefusedUnderCi() {
    assertThatThrownBy(() -> UpdateMode.decide(Map.of("CI", "true"), Map.of("ci.testkit.update", "true")))
        .isInstanceOf(UpdateRefusedException.class)
        .hasMessageStartingWith("refusing to update golden files: -Dci.testkit.update=true asks for an update, but"
            + " CI=true says this is a CI run");
    assertThatThrownBy(() -> UpdateMode.decide(Map.of("CI", "true", "CI_TESTKIT_UPDATE", "1"), Map.of()))
        .isInstanceOf(UpdateRefusedException.class)
        .hasMessageContaining("CI_TESTKIT_UPDATE=1 asks for an update");
    assertThat(UpdateMode.decide(Map.of("CI", "true"), Map.of())).isEqualTo(UpdateMode.COMPARE);
  }
}
