package dev.cipolicy.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.concurrency.ConcurrencyEvent;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.run.TriggerInput;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The builders as a host outside the value packages uses them: fluent calls typed by the public
 * {@code X.Builder}, and one {@link InvalidValueException} naming the type and the field for whatever
 * cannot be built.
 */
class ValueBuildersTest {

  @Test
  void aBuilderIsTypedByThePublicTypes() {
    Suite.Builder builder = Suite.builder().name("stage-a-cpu").githubHosted(true);
    Suite suite = builder.shards(2).build();
    Suite copy = Suite.builder().from(suite).shards(4).build();
    assertThat(copy.name()).isEqualTo("stage-a-cpu");
    assertThat(copy.shards()).isEqualTo(4);
    assertThat(suite.shards()).isEqualTo(2);
  }

  @Test
  void aRequiredFieldThatIsNotSetIsNamed() {
    assertThatThrownBy(() -> Policy.builder().build()).isInstanceOf(InvalidValueException.class)
        .hasMessage("Policy: required field 'name' is not set")
        .satisfies(e -> {
          InvalidValueException v = (InvalidValueException) e;
          assertThat(v.valueType()).isEqualTo("Policy");
          assertThat(v.field()).isEqualTo("name");
        });
    assertThatThrownBy(() -> TriggerInput.builder().build())
        .hasMessage("TriggerInput: required field 'eventName' is not set");
    assertThatThrownBy(() -> ConcurrencyEvent.builder().build()).isInstanceOf(InvalidValueException.class)
        .hasMessage("ConcurrencyEvent: required fields 'type', 'workflow', 'runId' are not set")
        .satisfies(e -> assertThat(((InvalidValueException) e).problems())
            .extracting(InvalidValueException.Problem::field).containsExactly("type", "workflow", "runId"));
  }

  @Test
  void aNullIsRejectedWhereItIsGiven() {
    @Nullable String nothing = null;
    assertThatThrownBy(() -> Suite.builder().name(nothing)).isInstanceOf(InvalidValueException.class)
        .hasMessage("Suite.name: must not be null");
    assertThatThrownBy(() -> Suite.builder().addRunnerLabels(nothing)).isInstanceOf(InvalidValueException.class)
        .hasMessage("Suite.runnerLabels: must not contain null");
  }

  @Test
  void aBrokenRuleNamesTheField() {
    assertThatThrownBy(() -> TriggerInput.builder().eventName("").build()).isInstanceOf(InvalidValueException.class)
        .hasMessage("TriggerInput.eventName: must not be empty (only a non-empty cadence override decides a run"
            + " without an event)");
    assertThat(TriggerInput.builder().eventName("").cadenceOverride("weekly").build().cadenceOverride())
        .contains("weekly");
    assertThatThrownBy(() -> Suite.builder().name("").shards(0).build()).isInstanceOf(InvalidValueException.class)
        .hasMessage("Suite.name: must not be empty; Suite.shards: must be at least 1, got 0");
  }
}
