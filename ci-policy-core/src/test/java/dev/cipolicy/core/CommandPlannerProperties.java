package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.RunCommand;
import dev.cipolicy.api.policy.RunPlaceholder;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.JobPlan;
import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.api.suite.RunFacts;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Properties of {@link CommandPlanner} over the reference policy's suites with random registrations, runs,
 * facts and command templates: each argument is the template rendered piece by piece (no placeholder left,
 * a literal brace only where the template escaped one), each suite's shards are distinct and cover
 * 0..n-1 exactly once when every shard received a test, and job names are unique.
 */
class CommandPlannerProperties {
  private static final PolicyResolver RESOLVER = ReferencePolicy.resolver();
  private static final List<String[]> SUITES = new ArrayList<>();

  static {
    for (Backend b : RESOLVER.policy().backends()) {
      for (Suite s : b.suites()) {
        SUITES.add(new String[] {b.name(), s.name()});
      }
    }
  }

  /** A piece of a template: literal text, a placeholder, or an escaped brace. */
  private record Piece(String literal, Optional<RunPlaceholder> placeholder) {
    String template() {
      return placeholder.map(p -> "{" + p.token() + "}").orElse(literal.equals("{") ? "{{"
          : literal.equals("}") ? "}}" : literal);
    }

    boolean escape() {
      return literal.equals("{") || literal.equals("}");
    }
  }

  private record Case(List<Registration> registrations, RunPolicy run, RunFacts facts, List<List<Piece>> argv) {}

  private static Gen<Piece> pieces() {
    Gen<Piece> literal = strings().betweenCodePoints('a', 'z').ofLengthBetween(1, 4).map(s -> new Piece(s,
        Optional.empty()));
    Gen<Piece> placeholder = Generate.enumValues(RunPlaceholder.class).map(p -> new Piece("", Optional.of(p)));
    Gen<Piece> escape = Generate.pick(List.of("{", "}")).map(b -> new Piece(b, Optional.empty()));
    return literal.mix(placeholder, 50).mix(escape, 15);
  }

  private static Gen<List<Registration>> registrations() {
    Gen<String[]> where = Generate.pick(SUITES);
    return lists().of(where.zip(integers().between(1, 5000), (w, est) -> new Object[] {w, est}))
        .ofSizeBetween(0, 40).map(entries -> {
          List<Registration> out = new ArrayList<>();
          for (int i = 0; i < entries.size(); i++) {
            String[] w = (String[]) entries.get(i)[0];
            out.add(Registration.builder().file("tests/e2e/test_" + i + ".py").backend(w[0]).suite(w[1])
                .estTimeSeconds((Integer) entries.get(i)[1]).addLabels("megatron").build());
          }
          return out;
        });
  }

  private static Gen<RunFacts> facts() {
    Gen<List<String>> labels = lists().of(strings().betweenCodePoints('a', 'z').ofLengthBetween(1, 8))
        .ofSizeBetween(0, 3);
    return labels.zip(integers().between(0, 500), integers().between(1, 5), (l, pr, attempt) -> {
      RunFacts.Builder b = RunFacts.builder().commit("abcdef" + Integer.toHexString(pr + 4096)).runId("run-" + pr)
          .attempt(attempt).cadence("nightly").labels(l);
      if (pr > 0) {
        b.pr(pr);
      }
      return b.build();
    });
  }

  private static Gen<Case> cases() {
    Gen<RunPolicy> run = Generate.pick(List.of("regular", "nightly", "weekly"))
        .map(c -> RESOLVER.resolveCadence(c, List.of("run-ci-megatron")));
    Gen<List<List<Piece>>> argv = lists().of(lists().of(pieces()).ofSizeBetween(1, 4)).ofSizeBetween(1, 6);
    return registrations().zip(run, facts(), argv, Case::new);
  }

  /** The reference policy with every backend running the case's command. */
  private static Policy withCommand(RunCommand command) {
    Policy p = RESOLVER.policy();
    List<Backend> backends = new ArrayList<>();
    for (Backend b : p.backends()) {
      Backend.Builder nb = Backend.builder().name(b.name()).gpu(b.gpu()).addAllSuites(b.suites()).run(command);
      nb.addAllDeviceEnv(b.gpu() ? List.of("CUDA_VISIBLE_DEVICES") : List.of());
      backends.add(nb.build());
    }
    return Policy.builder().from(p).backends(backends).build();
  }

  @Test
  void everyArgumentIsItsTemplateRenderedAndEveryShardIsPlannedOnceUnderAUniqueName() {
    qt().forAll(cases()).checkAssert(c -> {
      RunCommand command = RunCommand.builder().addAllCommand(c.argv().stream()
          .map(ps -> String.join("", ps.stream().map(Piece::template).toList())).toList()).build();
      SuiteRegistry registry = SuiteRegistry.of(RESOLVER, c.registrations());
      StageSelection none = new StageSelection(List.of(), List.of(), Optional.empty(),
          new Explanation("random", List.of(), List.of()));
      List<PlannedJob> planned = SuitePlanner.of(registry).plan(c.run(), none);
      List<JobPlan> plans = CommandPlanner.of(withCommand(command)).plan(planned, c.facts());

      assertThat(plans).hasSameSizeAs(planned);
      assertThat(plans).extracting(JobPlan::name).doesNotHaveDuplicates();
      Map<String, Set<Integer>> shardsOf = new HashMap<>();
      for (int i = 0; i < plans.size(); i++) {
        JobPlan job = plans.get(i);
        assertThat(job.suite()).isEqualTo(planned.get(i).suite());
        assertThat(shardsOf.computeIfAbsent(job.suite(), s -> new HashSet<>()).add(job.shard()))
            .as("shard %s of %s planned twice", job.shard(), job.suite()).isTrue();
        for (int a = 0; a < job.argv().size(); a++) {
          List<Piece> pieces = c.argv().get(a);
          String rendered = job.argv().get(a);
          assertThat(rendered).isEqualTo(model(pieces, job, c.facts()));
          if (pieces.stream().noneMatch(Piece::escape)) {
            assertThat(rendered).as("argument %s of %s", a, job.name()).doesNotContain("{", "}");
          }
        }
      }
      for (String[] s : SUITES) {
        Suite suite = registry.suite(s[0], s[1]);
        int enabled = registry.select(s[0], s[1], c.run(), false).enabled().size();
        boolean runs = !suite.externallyScheduled() || c.run().admitNightlyTests();
        if (runs && enabled >= suite.shards()) {
          assertThat(shardsOf.get(s[1])).as("the shards of %s", s[1])
              .isEqualTo(new TreeSet<>(IntStream.range(0, suite.shards()).boxed().toList()));
        } else if (shardsOf.containsKey(s[1])) {
          assertThat(shardsOf.get(s[1])).allMatch(i -> i >= 0 && i < suite.shards());
        }
      }
    });
  }

  /** The expected rendering, written independently of {@link dev.cipolicy.api.policy.CommandTemplate}. */
  private static String model(List<Piece> pieces, JobPlan job, RunFacts f) {
    Map<RunPlaceholder, String> v = new EnumMap<>(RunPlaceholder.class);
    v.put(RunPlaceholder.SUITE, job.suite());
    v.put(RunPlaceholder.BACKEND, job.backend());
    v.put(RunPlaceholder.SHARD, String.valueOf(job.shard()));
    v.put(RunPlaceholder.SHARDS, String.valueOf(job.shards()));
    v.put(RunPlaceholder.GPUS, String.valueOf(job.gpus()));
    v.put(RunPlaceholder.JOB, job.suite() + "-" + job.shard() + "of" + job.shards());
    v.put(RunPlaceholder.TIMEOUT_MINUTES, String.valueOf((long) Math.ceil(job.timeoutSeconds() / 60.0)));
    v.put(RunPlaceholder.CADENCE, f.cadence());
    v.put(RunPlaceholder.LABELS, String.join(",", f.labels()));
    v.put(RunPlaceholder.COMMIT, f.commit());
    v.put(RunPlaceholder.PR, f.pr().map(String::valueOf).orElse(""));
    v.put(RunPlaceholder.RUN_ID, f.runId());
    v.put(RunPlaceholder.ATTEMPT, String.valueOf(f.attempt()));
    v.put(RunPlaceholder.IMAGE_TAG, f.imageTag());
    StringBuilder sb = new StringBuilder();
    for (Piece p : pieces) {
      sb.append(p.placeholder().map(v::get).orElse(p.literal()));
    }
    return sb.toString();
  }
}
