package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Properties of run-policy resolution on the reference policy, for any label input. */
class PolicyResolverProperties {
  private static final PolicyResolver RESOLVER = ReferencePolicy.resolver();
  private static final Set<String> KNOWN = Set.copyOf(ReferencePolicy.KNOWN);
  private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9_.-]+");

  /** Raw labels mixing every kind: prefixed known, bare known, scope, workflow, unknown and junk. */
  private static Gen<String> rawLabel() {
    List<String> interesting = new ArrayList<>();
    for (String k : ReferencePolicy.KNOWN) {
      interesting.add("run-ci-" + k);
      interesting.add(k);
    }
    interesting.addAll(List.of("run-ci-all", "run-ci-image", "nightly", "bypass-fastfail", "run-ci-nightly",
        "run-ci-", "", "run-ci-unknown", "RUN-CI-megatron", "run-ci-megatron ", "run-ci-$(id)"));
    return Generate.pick(interesting).mix(strings().ascii().ofLengthBetween(0, 12), 20);
  }

  private static Gen<List<String>> rawLabels() {
    return lists().of(rawLabel()).ofSizeBetween(0, 8);
  }

  private static Gen<String> cadence() {
    return Generate.pick(List.of("regular", "nightly", "weekly", "release"));
  }

  private static Gen<List<String>> withoutNightlyLabel() {
    return rawLabels().map(l -> l.stream().filter(x -> !x.equals("nightly")).toList());
  }

  @Test
  void includedLabelsAreAlwaysKnownLabels() {
    qt().forAll(cadence(), withoutNightlyLabel()).checkAssert((c, raw) ->
        assertThat(KNOWN).containsAll(RESOLVER.resolveCadence(c, raw).includeLabels()));
  }

  @Test
  void anExplicitRequestIsAlwaysIncluded() {
    qt().forAll(cadence(), withoutNightlyLabel()).checkAssert((c, raw) -> {
      RunPolicy p = RESOLVER.resolveCadence(c, raw);
      for (String l : raw) {
        if (l.startsWith("run-ci-") && KNOWN.contains(l.substring(7))) {
          assertThat(p.includeLabels()).contains(l.substring(7));
        }
      }
    });
  }

  @Test
  void precedenceOrderHoldsForAnyCombination() {
    qt().forAll(cadence(), withoutNightlyLabel()).checkAssert((c, raw) -> {
      RunPolicy p = RESOLVER.resolveCadence(c, raw);
      Set<String> requested = new HashSet<>(p.requestedLabels());
      Set<String> expectedScope = new HashSet<>();
      if (raw.contains("run-ci-all") || c.equals("weekly") || c.equals("release")) {
        expectedScope.addAll(KNOWN);
        assertThat(p.scope()).contains("all");
      } else if (c.equals("nightly")) {
        expectedScope.addAll(KNOWN);
        expectedScope.removeAll(Set.of("long", "ft-long"));
        assertThat(p.scope()).contains("nightly");
      } else if (raw.contains("run-ci-image")) {
        expectedScope.addAll(KNOWN);
        expectedScope.removeAll(Set.of("long", "ft-short", "ft-long"));
        assertThat(p.scope()).contains("image");
      } else {
        assertThat(p.scope()).isEmpty();
      }
      expectedScope.addAll(requested);
      assertThat(new HashSet<>(p.includeLabels())).isEqualTo(expectedScope);
      boolean full = !c.equals("regular");
      assertThat(p.admitNightlyTests()).isEqualTo(full);
      assertThat(p.bypassFastfail()).isEqualTo(full || raw.contains("bypass-fastfail"));
      assertThat(p.writeBaseline()).isEqualTo(c.equals("nightly") || c.equals("weekly"));
    });
  }

  @Test
  void theNightlyLabelOutsideTheNightlyCadenceIsAlwaysAnError() {
    qt().forAll(Generate.pick(List.of("regular", "weekly", "release")), rawLabels()).checkAssert((c, raw) -> {
      List<String> withNightly = new ArrayList<>(raw);
      withNightly.add("nightly");
      assertThatThrownBy(() -> RESOLVER.resolveCadence(c, withNightly)).isInstanceOf(InvalidInputException.class);
    });
  }

  @Test
  void resolutionIsDeterministicDownToTheExplanationBytes() {
    qt().forAll(cadence(), withoutNightlyLabel()).checkAssert((c, raw) -> {
      RunPolicy a = RESOLVER.resolveCadence(c, raw);
      RunPolicy b = RESOLVER.resolveCadence(c, List.copyOf(raw));
      assertThat(a).isEqualTo(b);
      assertThat(a.explanation().toJson()).isEqualTo(b.explanation().toJson());
      assertThat(a.explanation().sentence()).isEqualTo(b.explanation().sentence());
    });
  }

  @Test
  void canonicalLabelsAreAlwaysShellSafeAndKeepOrder() {
    qt().forAll(lists().of(rawLabel().mix(strings().allPossible().ofLengthBetween(0, 10), 30)).ofSizeBetween(0, 10))
        .checkAssert(labels -> {
          List<String> canonical = RESOLVER.canonicalPrLabels(labels);
          canonical.forEach(l -> assertThat(l).matches(SHELL_SAFE));
          // order preserved: canonical is a subsequence of the input
          int i = 0;
          for (String l : labels) {
            if (i < canonical.size() && canonical.get(i).equals(l)) {
              i++;
            }
          }
          assertThat(i).isEqualTo(canonical.size());
        });
  }

  @Test
  void pullRequestResolutionNeverFailsOnAnyLabels() {
    qt().forAll(rawLabels()).checkAssert(labels -> {
      TriggerResolution r = RESOLVER.resolve(
          TriggerInput.builder().eventName("pull_request").prLabels(labels).build());
      assertThat(r.runPolicy().cadence()).isIn("regular", "nightly");
      assertThat(r.runPolicy().cadence().equals("nightly")).isEqualTo(labels.contains("nightly"));
    });
  }
}
