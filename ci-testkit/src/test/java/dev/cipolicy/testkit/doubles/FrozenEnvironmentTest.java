package dev.cipolicy.testkit.doubles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FrozenEnvironmentTest {

  @Test
  void aFixedKeyCannotBeOverriddenAndTheErrorNamesIt() {
    FrozenEnvironment env = FrozenEnvironment.builder().set("MASTER_ADDR", "127.0.0.1").build();

    assertThatThrownBy(() -> env.withOverride("MASTER_ADDR", "10.0.0.7"))
        .isInstanceOf(FrozenKeyException.class)
        .hasMessageStartingWith("environment variable MASTER_ADDR is frozen to '127.0.0.1' and cannot be"
            + " overridden with '10.0.0.7'")
        .satisfies(e -> assertThat(((FrozenKeyException) e).key()).isEqualTo("MASTER_ADDR"));
    assertThat(env.get("MASTER_ADDR")).contains("127.0.0.1");
  }

  @Test
  void aClearedHostVariableCannotBeOverriddenEither() {
    FrozenEnvironment env = FrozenEnvironment.defaults();

    assertThatThrownBy(() -> env.withOverride("CUDA_VISIBLE_DEVICES", "0,1"))
        .isInstanceOf(FrozenKeyException.class)
        .hasMessageStartingWith("environment variable CUDA_VISIBLE_DEVICES is frozen as cleared")
        .hasMessageContaining("cannot be overridden with '0,1'");
  }

  @Test
  void theDefaultsClearTheSeedsHostVariables() {
    FrozenEnvironment env = FrozenEnvironment.defaults();

    assertThat(env.clearedVariables()).containsExactlyElementsOf(FrozenEnvironment.SEED_HOST_VARIABLES);
    assertThat(FrozenEnvironment.SEED_HOST_VARIABLES).contains("CUDA_VISIBLE_DEVICES", "SLURM_JOB_NUM_NODES",
        "RAY_ADDRESS", "NCCL_SOCKET_IFNAME").hasSize(13);
    assertThat(env.variables()).isEmpty();
    assertThat(FrozenEnvironment.builderWithoutDefaults().build().clearedVariables()).isEmpty();
  }

  @Test
  void nothingOfTheHostLeaksInAndAnInheritedBaseStillLosesItsClearedVariables() {
    assertThat(System.getenv()).isNotEmpty();
    assertThat(FrozenEnvironment.defaults().variables()).isEmpty();

    FrozenEnvironment env = FrozenEnvironment.builder()
        .set("PATH", "/frozen/bin")
        .inherit(Map.of("PATH", "/usr/bin", "HOME", "/root", "RAY_ADDRESS", "10.0.0.1:6379"))
        .build();

    assertThat(env.variables()).containsExactly(Map.entry("HOME", "/root"), Map.entry("PATH", "/frozen/bin"));
    assertThat(env.get("RAY_ADDRESS")).isEmpty();
  }

  @Test
  void otherVariablesCanBeAddedWithoutChangingTheOriginal() {
    FrozenEnvironment env = FrozenEnvironment.builder().set("A", "1").build();

    FrozenEnvironment more = env.withOverride("MODEL", "qwen3-4b");

    assertThat(more.variables()).containsExactly(Map.entry("A", "1"), Map.entry("MODEL", "qwen3-4b"));
    assertThat(env.get("MODEL")).isEmpty();
    assertThat(more.isFrozen("MODEL")).isFalse();
    assertThat(more.isFrozen("A")).isTrue();
  }

  @Test
  void conflictingFreezesAreErrorsNamingTheKey() {
    assertThatThrownBy(() -> FrozenEnvironment.builder().set("X", "1").set("X", "2"))
        .isInstanceOf(FrozenKeyException.class)
        .hasMessage("environment variable X is frozen twice: to '1', then to '2'");
    assertThatThrownBy(() -> FrozenEnvironment.builder().set("RAY_ADDRESS", "x"))
        .isInstanceOf(FrozenKeyException.class)
        .hasMessageStartingWith("environment variable RAY_ADDRESS is cleared and cannot also be frozen to 'x'");
    assertThatThrownBy(() -> FrozenEnvironment.builder().set("X", "1").clear("X"))
        .isInstanceOf(FrozenKeyException.class)
        .hasMessage("environment variable X is frozen to '1' and cannot also be cleared");
    assertThat(FrozenEnvironment.builder().unclear("RAY_ADDRESS").set("RAY_ADDRESS", "auto").build()
        .get("RAY_ADDRESS")).contains("auto");
  }
}
