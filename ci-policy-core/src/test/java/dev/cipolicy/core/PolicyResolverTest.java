package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.UnknownCadenceException;
import dev.cipolicy.api.UnknownScheduleException;
import dev.cipolicy.api.UnsupportedTriggerException;
import dev.cipolicy.api.Warning;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Example tests for every rule and message on the reference policy. */
class PolicyResolverTest {
  private final PolicyResolver resolver = ReferencePolicy.resolver();

  private static Set<String> allExcept(String... labels) {
    Set<String> s = new TreeSet<>(ReferencePolicy.KNOWN);
    List.of(labels).forEach(s::remove);
    return s;
  }

  private static Set<String> only(String... labels) {
    return new TreeSet<>(List.of(labels));
  }

  @Nested
  @DisplayName("cadences")
  class Cadences {
    @ParameterizedTest(name = "{0}: admit={1} bypass={2} write={3}")
    @CsvSource({
        "regular, false, false, false",
        "nightly, true, true, true",
        "weekly, true, true, true",
        "release, true, true, false"
    })
    void flagsFollowTheCadenceTable(String cadence, boolean admit, boolean bypass, boolean write) {
      RunPolicy p = resolver.resolveCadence(cadence, List.of());
      assertThat(p.admitNightlyTests()).isEqualTo(admit);
      assertThat(p.bypassFastfail()).isEqualTo(bypass);
      assertThat(p.writeBaseline()).isEqualTo(write);
    }

    @Test
    void unknownCadenceNamesTheSortedKnownOnes() {
      assertThatThrownBy(() -> resolver.resolveCadence("hourly", List.of()))
          .isInstanceOf(UnknownCadenceException.class)
          .hasMessage("Unknown CI cadence 'hourly'; expected one of [nightly, regular, release, weekly]");
    }

    @Test
    void weeklyCapsEveryGpuMatrixToOneRunner() {
      assertThat(resolver.cadence("weekly").gpuMaxParallel()).contains(1);
      assertThat(resolver.cadence("nightly").gpuMaxParallel()).isEmpty();
    }

    @Test
    void theTwoCronsMapToNightlyAndWeekly() {
      assertThat(resolver.schedule("0 15 * * 0-5").cadence()).isEqualTo("nightly");
      assertThat(resolver.schedule("0 15 * * 6").cadence()).isEqualTo("weekly");
    }

    @Test
    void aWorkflowsCronListIsComparedWithTheTableBothWays() {
      assertThat(resolver.compareWorkflowCrons(List.of("0 15 * * 0-5", "0 15 * * 6"))).isEmpty();
      assertThat(resolver.compareWorkflowCrons(List.of("0 15 * * 0-5", "0 15 * * *")))
          .extracting(w -> w.code() + ": " + w.message()).containsExactly(
              "workflow-cron-without-policy: workflow cron '0 15 * * *' has no entry in the schedule table: No CI"
                  + " policy is defined for schedule: 0 15 * * *",
              "policy-cron-not-scheduled: policy cron '0 15 * * 6' (weekly) is not scheduled by the workflow, so that"
                  + " cadence never runs");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"0 15 * * *", "'0 15 * * 6 '", "' 0 15 * * 6'", "0 16 * * 6", "''"})
    void anUnknownCronIsAnErrorNeverADefault(String cron) {
      assertThatThrownBy(() -> resolver.schedule(cron))
          .isInstanceOf(UnknownScheduleException.class)
          .hasMessageStartingWith("No CI policy is defined for schedule: " + cron + "; ")
          .hasMessageContaining("the schedule table has the crons ['0 15 * * 0-5', '0 15 * * 6']");
    }
  }

  @Nested
  @DisplayName("run policy resolution")
  class Resolution {
    static Stream<Arguments> table() {
      return Stream.of(
          Arguments.of("regular", List.of(), only(), "none"),
          Arguments.of("regular", List.of("run-ci-all"), allExcept(), "all"),
          Arguments.of("regular", List.of("run-ci-image"), allExcept("long", "ft-short", "ft-long"), "image"),
          Arguments.of("regular", List.of("run-ci-image", "run-ci-long"), allExcept("ft-short", "ft-long"), "image"),
          Arguments.of("regular", List.of("run-ci-image", "run-ci-all"), allExcept(), "all"),
          Arguments.of("regular", List.of("run-ci-megatron", "run-ci-fsdp"), only("fsdp", "megatron"), "none"),
          Arguments.of("regular", List.of("bypass-fastfail"), only(), "none"),
          Arguments.of("nightly", List.of(), allExcept("long", "ft-long"), "nightly"),
          Arguments.of("nightly", List.of("nightly"), allExcept("long", "ft-long"), "nightly"),
          Arguments.of("nightly", List.of("run-ci-long"), allExcept("ft-long"), "nightly"),
          Arguments.of("nightly", List.of("run-ci-image"), allExcept("long", "ft-long"), "nightly"),
          Arguments.of("nightly", List.of("run-ci-all"), allExcept(), "all"),
          Arguments.of("weekly", List.of(), allExcept(), "all"),
          Arguments.of("weekly", List.of("run-ci-image"), allExcept(), "all"),
          Arguments.of("release", List.of(), allExcept(), "all"),
          Arguments.of("release", List.of("run-ci-ft-long"), allExcept(), "all"));
    }

    @ParameterizedTest(name = "{0} {1} -> scope {3}")
    @MethodSource("table")
    void scopePrecedenceAndExplicitRequests(String cadence, List<String> raw, Set<String> expected, String scope) {
      RunPolicy p = resolver.resolveCadence(cadence, raw);
      assertThat(p.includeLabels()).containsExactlyElementsOf(expected);
      assertThat(p.scope().orElse("none")).isEqualTo(scope);
      assertThat(p.rawLabels()).isEqualTo(raw);
    }

    @Test
    void runCiAllOnARegularPrWidensLabelsButDoesNotAdmitNightlyTests() {
      RunPolicy p = resolver.resolveCadence("regular", List.of("run-ci-all"));
      assertThat(p.includeLabels()).hasSize(19);
      assertThat(p.admitNightlyTests()).isFalse();
      assertThat(p.writeBaseline()).isFalse();
    }

    @Test
    void bypassFastfailLabelBypassesButIsNotAScope() {
      RunPolicy p = resolver.resolveCadence("regular", List.of("bypass-fastfail"));
      assertThat(p.bypassFastfail()).isTrue();
      assertThat(p.includeLabels()).isEmpty();
      assertThat(p.admitNightlyTests()).isFalse();
    }

    @Test
    void runCiNightlyStripsToAnUnknownLabelAndHasNoEffect() {
      RunPolicy p = resolver.resolveCadence("regular", List.of("run-ci-nightly"));
      assertThat(p.includeLabels()).isEmpty();
      assertThat(p.admitNightlyTests()).isFalse();
      assertThat(p.warnings()).extracting(Warning::toString).containsExactly("unknown-label: label 'run-ci-nightly'"
          + " requests nothing: 'nightly' is not a known label; did you mean the workflow label nightly?");
      assertThat(p.explanation().sentence()).contains("run-ci-nightly names 'nightly', which is not a known label");
    }

    @Test
    void aPrefixedLabelNamingNoKnownLabelIsAWarningWithTheClosestKnownLabel() {
      RunPolicy p = resolver.resolveCadence("regular", List.of("run-ci-lorra", "run-ci-lora"));
      assertThat(p.warnings()).extracting(Warning::toString).containsExactly(
          "unknown-label: label 'run-ci-lorra' requests nothing: 'lorra' is not a known label; did you mean"
              + " run-ci-lora?");
      assertThat(p.explanation().sentence()).contains("run-ci-lorra names 'lorra', which is not a known label"
          + " (did you mean run-ci-lora?)");
      assertThat(resolver.resolveCadence("regular", List.of("run-ci-zzzzzz")).warnings()).singleElement()
          .satisfies(w -> assertThat(w.message()).doesNotContain("did you mean").contains("the known labels are"));
      TriggerResolution r = resolver.resolve(TriggerInput.builder().eventName("pull_request")
          .prLabels(List.of("run-ci-megatrom")).build());
      assertThat(r.warnings()).extracting(Warning::message).containsExactly("label 'run-ci-megatrom' requests"
          + " nothing: 'megatrom' is not a known label; did you mean run-ci-megatron?");
    }

    @Test
    void theEditDistanceIsCappedAndOnlyCloseNamesAreSuggested() {
      assertThat(PolicyResolver.editDistance("lorra", "lora", 2)).isEqualTo(1);
      assertThat(PolicyResolver.editDistance("kitten", "sitting", 5)).isEqualTo(3);
      assertThat(PolicyResolver.editDistance("kitten", "sitting", 2)).isEqualTo(3);
      assertThat(PolicyResolver.editDistance("", "abc", 5)).isEqualTo(3);
      assertThat(resolver.closestKnown("ab")).isEmpty();
      assertThat(resolver.closestKnown("evl")).contains("eval");
    }

    @Test
    void theExplanationNeverSaysTheRunKeepsFastFailWhenALabelBypassesIt() {
      RunPolicy p = resolver.resolveCadence("regular", List.of("bypass-fastfail"));
      assertThat(p.bypassFastfail()).isTrue();
      assertThat(p.explanation().sentence()).doesNotContain("keeps fast-fail")
          .contains("a bypass-fastfail workflow label bypasses fast-fail (cadence regular alone would keep it)");
      assertThat(resolver.resolveCadence("regular", List.of()).explanation().sentence()).contains("keeps fast-fail");
    }

    @ParameterizedTest
    @CsvSource({"regular", "weekly", "release"})
    void theNightlyLabelRequiresTheNightlyCadence(String cadence) {
      assertThatThrownBy(() -> resolver.resolveCadence(cadence, List.of("run-ci-megatron", "nightly")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("The nightly workflow label requires cadence='nightly'");
    }

    @Test
    void unknownCadenceIsCheckedBeforeTheNightlyLabel() {
      assertThatThrownBy(() -> resolver.resolveCadence("bogus", List.of("nightly")))
          .isInstanceOf(UnknownCadenceException.class);
    }

    @Test
    void aBareLabelNeverMatchesAndWarns() {
      RunPolicy p = resolver.resolveCadence("regular", List.of("megatron", "", "nightly-ish"));
      assertThat(p.includeLabels()).isEmpty();
      assertThat(p.warnings()).extracting(w -> w.code()).containsExactly("label-without-prefix",
          "label-without-prefix");
      assertThat(p.warnings().get(0).message())
          .isEqualTo("label 'megatron' ignored: only 'run-ci-<label>' requests a test area"
              + " (did you mean 'run-ci-megatron'?)");
      assertThat(p.warnings().get(1).message()).doesNotContain("did you mean");
    }

    @Test
    void emptyStringsAndWorkflowLabelsAreSkippedSilently() {
      PolicyResolver.LabelRequest r = resolver.stripPrefix(List.of("", "nightly", "bypass-fastfail", "run-ci-lora"));
      assertThat(r.requested()).containsExactly("lora");
      assertThat(r.warnings()).isEmpty();
    }

    @Test
    void scopeLabelsAreNeverDomainLabels() {
      PolicyResolver.LabelRequest r = resolver.stripPrefix(List.of("run-ci-all", "run-ci-image"));
      assertThat(r.requested()).isEmpty();
      assertThat(r.dropped()).containsExactly("run-ci-all is a scope label, not a test area",
          "run-ci-image is a scope label, not a test area");
    }

    @Test
    void includedLabelsAreSortedAndRequestedLabelsRecorded() {
      RunPolicy p = resolver.resolveCadence("regular", List.of("run-ci-sglang", "run-ci-amd", "run-ci-sglang"));
      assertThat(p.includeLabels()).containsExactly("amd", "sglang");
      assertThat(p.requestedLabels()).containsExactly("amd", "sglang");
      assertThat(p.rawLabels()).containsExactly("run-ci-sglang", "run-ci-amd", "run-ci-sglang");
    }
  }

  @Nested
  @DisplayName("canonical PR labels")
  class Canonical {
    @Test
    void keepsWorkflowLabelsAndWellFormedPrefixedLabelsInOrderWithDuplicates() {
      List<String> in = List.of("run-ci-megatron", "nightly", "run-ci-", "run-ci-$(rm -rf /)", "run-ci-a b",
          "Run-CI-x", "bypass-fastfail", "run-ci-megatron", "run-ci-_x", "run-ci-x.y_z-1", "megatron",
          "run-ci-\nx", "good first issue");
      assertThat(resolver.canonicalPrLabels(in)).containsExactly("run-ci-megatron", "nightly",
          "bypass-fastfail", "run-ci-megatron", "run-ci-x.y_z-1");
    }
  }

  @Nested
  @DisplayName("trigger resolution")
  class Triggers {
    private TriggerResolution resolve(String event, String schedule, List<String> labels, String override) {
      var b = TriggerInput.builder().eventName(event);
      if (schedule != null) {
        b.schedule(schedule);
      }
      if (labels != null) {
        b.prLabels(labels);
      }
      if (override != null) {
        b.cadenceOverride(override);
      }
      return resolver.resolve(b.build());
    }

    @Test
    void aNonEmptyOverrideWinsAndIgnoresEventAndLabels() {
      TriggerResolution r = resolve("pull_request", null, List.of("nightly", "run-ci-megatron"), "weekly");
      assertThat(r.source()).isEqualTo(TriggerResolution.Source.CADENCE_OVERRIDE);
      assertThat(r.runPolicy().cadence()).isEqualTo("weekly");
      assertThat(r.runPolicy().rawLabels()).isEmpty();
      assertThat(resolve("push", null, null, "release").runPolicy().cadence()).isEqualTo("release");
    }

    @Test
    void anEmptyOverrideCountsAsAbsent() {
      assertThat(resolve("workflow_dispatch", null, null, "").source()).isEqualTo(TriggerResolution.Source.FIXED);
    }

    @Test
    void anUnknownOverrideIsAnUnknownCadence() {
      assertThatThrownBy(() -> resolve("pull_request", null, List.of(), "hourly"))
          .isInstanceOf(UnknownCadenceException.class)
          .hasMessageStartingWith("Unknown CI cadence 'hourly'");
    }

    @Test
    void pullRequestUsesCanonicalLabels() {
      TriggerResolution r = resolve("pull_request", null,
          List.of("run-ci-megatron", "megatron", "good first issue", "bypass-fastfail"), null);
      assertThat(r.runPolicy().cadence()).isEqualTo("regular");
      assertThat(r.runPolicy().rawLabels()).containsExactly("run-ci-megatron", "bypass-fastfail");
      assertThat(r.runPolicy().includeLabels()).containsExactly("megatron");
      assertThat(r.runPolicy().bypassFastfail()).isTrue();
      assertThat(r.matchAllLabels()).isFalse();
    }

    @Test
    void droppedPrLabelsAreNamedAndABareKnownLabelWarns() {
      TriggerResolution r = resolve("pull_request", null, List.of("megatron", "good first issue"), null);
      assertThat(r.runPolicy().includeLabels()).isEmpty();
      assertThat(r.warnings()).singleElement().satisfies(w -> assertThat(w.message()).isEqualTo(
          "PR label 'megatron' ignored: only 'run-ci-<label>' requests a test area (did you mean 'run-ci-megatron'?)"));
      assertThat(r.explanation().reasons()).extracting(x -> x.detail()).contains(
          "PR labels ['megatron', 'good first issue'] were dropped: only workflow labels and run-ci-<label> count");
      assertThat(r.explanation().sentence()).doesNotContain("canonical");
    }

    @Test
    void theNightlyLabelSwitchesAPullRequestToNightly() {
      TriggerResolution r = resolve("pull_request", null, List.of("nightly"), null);
      assertThat(r.runPolicy().cadence()).isEqualTo("nightly");
      assertThat(r.runPolicy().includeLabels()).containsExactlyElementsOf(allExcept("long", "ft-long"));
      assertThat(r.runPolicy().writeBaseline()).isTrue();
    }

    @Test
    void absentPrLabelsOnAPullRequestAreAnError() {
      assertThatThrownBy(() -> resolve("pull_request", null, null, null))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("PR labels missing: event 'pull_request' takes its cadence from the PR labels; expected the"
              + " PR's label names (an empty list for a PR without labels)");
    }

    @Test
    void emptyPrLabelsAreAPullRequestWithoutLabels() {
      TriggerResolution r = resolve("pull_request", null, List.of(), null);
      assertThat(r.runPolicy().cadence()).isEqualTo("regular");
      assertThat(r.runPolicy().rawLabels()).isEmpty();
    }

    @Test
    void onlyAPullRequestWithoutOverrideReadsThePrLabels() {
      assertThat(resolver.readsPrLabels(TriggerInput.builder().eventName("pull_request").build())).isTrue();
      assertThat(resolver.readsPrLabels(TriggerInput.builder().eventName("pull_request").cadenceOverride("").build()))
          .isTrue();
      assertThat(resolver.readsPrLabels(TriggerInput.builder().eventName("pull_request").cadenceOverride("weekly")
          .build())).isFalse();
      assertThat(resolver.readsPrLabels(TriggerInput.builder().eventName("schedule").build())).isFalse();
      assertThat(resolver.readsPrLabels(TriggerInput.builder().eventName("workflow_dispatch").build())).isFalse();
      assertThat(resolver.readsPrLabels(TriggerInput.builder().eventName("push").build())).isFalse();
    }

    @Test
    void theInputKeepsItsOwnCopyOfTheLabelsAndRejectsANullLabel() {
      List<String> labels = new java.util.ArrayList<>(List.of("run-ci-megatron"));
      TriggerInput input = TriggerInput.builder().eventName("pull_request").prLabels(labels).build();
      labels.add("run-ci-fsdp");
      assertThat(input.prLabels()).contains(List.of("run-ci-megatron"));
      assertThatThrownBy(() -> input.prLabels().orElseThrow().add("x"))
          .isInstanceOf(UnsupportedOperationException.class);
      List<String> withNull = java.util.Arrays.asList("run-ci-megatron", null);
      assertThatThrownBy(() -> TriggerInput.builder().eventName("pull_request").prLabels(withNull).build())
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("trigger input prLabels[1] is null; expected a label name");
    }

    @Test
    void scheduleUsesTheExactCronAndIgnoresPrLabels() {
      TriggerResolution r = resolve("schedule", "0 15 * * 6", List.of("run-ci-megatron", "nightly"), null);
      assertThat(r.source()).isEqualTo(TriggerResolution.Source.SCHEDULE_TABLE);
      assertThat(r.runPolicy().cadence()).isEqualTo("weekly");
      assertThat(r.runPolicy().includeLabels()).hasSize(19);
      assertThat(resolve("schedule", "0 15 * * 0-5", null, null).runPolicy().cadence()).isEqualTo("nightly");
    }

    @Test
    void aScheduleWithoutAnExactEntryFails() {
      assertThatThrownBy(() -> resolve("schedule", "0 15 * * *", null, null))
          .isInstanceOf(UnknownScheduleException.class)
          .hasMessageStartingWith("No CI policy is defined for schedule: 0 15 * * *; the schedule table has the"
              + " crons ['0 15 * * 0-5', '0 15 * * 6']");
      assertThatThrownBy(() -> resolve("schedule", null, null, null))
          .hasMessageStartingWith("No CI policy is defined for schedule: ; ");
    }

    @Test
    void workflowDispatchIsRegularWithoutLabelsAndMatchesAllLabels() {
      TriggerResolution r = resolve("workflow_dispatch", null, List.of("run-ci-all"), null);
      assertThat(r.runPolicy().cadence()).isEqualTo("regular");
      assertThat(r.runPolicy().rawLabels()).isEmpty();
      assertThat(r.runPolicy().includeLabels()).isEmpty();
      assertThat(r.matchAllLabels()).isTrue();
      assertThat(r.runPolicy().admitNightlyTests()).isFalse();
    }

    @ParameterizedTest
    @CsvSource({"push", "pull_request_target", "release", "PULL_REQUEST"})
    void anyOtherEventIsUnsupported(String event) {
      assertThatThrownBy(() -> resolve(event, null, List.of(), null))
          .isInstanceOf(UnsupportedTriggerException.class)
          .hasMessage("unsupported trigger: the policy has no rule for event '" + event + "'; it declares the"
              + " events [pull_request, schedule, workflow_dispatch] (add an events entry for it, or pass a cadence"
              + " override)")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("PR Test"));
    }
  }

  @Nested
  @DisplayName("explanations")
  class Explanations {
    @Test
    void explainsTheScopeRuleAndWhatWouldChangeTheResult() {
      RunPolicy p = resolver.resolveCadence("nightly", List.of());
      assertThat(p.explanation().reasons()).extracting(r -> r.rule()).contains("scope.nightly", "cadence.nightly");
      assertThat(p.explanation().hints()).containsExactly("adding run-ci-long would include long",
          "adding run-ci-ft-long would include ft-long");
      assertThat(p.explanation().sentence()).startsWith("cadence=nightly scope=nightly included 17 of 19 labels"
          + " because scope 'nightly' (every known label except [ft-long, long]) matched: cadence is nightly");
    }

    @Test
    void anEmptyScopeHintsAtTheWideningLabel() {
      RunPolicy p = resolver.resolveCadence("regular", List.of());
      assertThat(p.explanation().hints()).containsExactly("adding run-ci-all would include every known label");
    }

    @Test
    void rendersDeterministicJson() {
      TriggerResolution a = resolver.resolve(TriggerInput.builder().eventName("schedule").schedule("0 15 * * 6").build());
      TriggerResolution b = resolver.resolve(TriggerInput.builder().eventName("schedule").schedule("0 15 * * 6").build());
      assertThat(a.explanation().toJson()).isEqualTo(b.explanation().toJson());
      assertThat(a.explanation().toJson()).startsWith("{\"decision\":\"cadence=weekly scope=all included 19 of 19"
          + " labels\",\"reasons\":[{\"rule\":\"trigger.schedule\",\"detail\":\"schedule '0 15 * * 6' maps to cadence"
          + " weekly\"}");
      assertThat(new HashSet<>(a.explanation().hints())).isEmpty();
    }
  }
}
