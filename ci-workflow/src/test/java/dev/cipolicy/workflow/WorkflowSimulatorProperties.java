package dev.cipolicy.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.cipolicy.api.SourceLocation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The simulator against a brute-force reference written as plainly as possible, on random job graphs of up
 * to ten jobs with random {@code if}s built from status functions, {@code needs.X.result} comparisons and
 * {@code && || !}.
 */
class WorkflowSimulatorProperties {
  private static final String[] STATUS = {"success", "failure", "cancelled", "always"};
  private static final String[] WORDS = {"success", "failure", "cancelled", "skipped"};

  /** A condition of the reference: its own tree, rendered to text for the simulator. */
  sealed interface Cond {}

  record Status(String fn) implements Cond {}

  record Result(int job, String word, boolean equal) implements Cond {}

  record Literal(boolean value) implements Cond {}

  record And(Cond left, Cond right) implements Cond {}

  record Or(Cond left, Cond right) implements Cond {}

  record Not(Cond operand) implements Cond {}

  static String render(Cond c) {
    if (c instanceof Status s) {
      return s.fn() + "()";
    } else if (c instanceof Result r) {
      return "needs.j" + r.job() + ".result " + (r.equal() ? "==" : "!=") + " '" + r.word() + "'";
    } else if (c instanceof Literal l) {
      return String.valueOf(l.value());
    } else if (c instanceof And a) {
      return "(" + render(a.left()) + " && " + render(a.right()) + ")";
    } else if (c instanceof Or o) {
      return "(" + render(o.left()) + " || " + render(o.right()) + ")";
    }
    return "!(" + render(((Not) c).operand()) + ")";
  }

  /** One random case: a DAG, conditions, injected results. */
  record Case(int n, List<Set<Integer>> needs, List<Optional<Cond>> conds, List<InjectedResult> injected,
      List<Boolean> continueOnError, boolean cancelled) {}

  static Case randomCase(long seed) {
    Random r = new Random(seed);
    int n = 1 + r.nextInt(10);
    List<Set<Integer>> needs = new ArrayList<>();
    List<Optional<Cond>> conds = new ArrayList<>();
    List<InjectedResult> injected = new ArrayList<>();
    List<Boolean> coe = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Set<Integer> ns = new HashSet<>();
      for (int j = 0; j < i; j++) {
        if (r.nextInt(10) < 3) {
          ns.add(j);
        }
      }
      needs.add(ns);
      conds.add(r.nextInt(10) < 3 ? Optional.empty() : Optional.of(randomCond(r, n, 3)));
      int k = r.nextInt(10);
      injected.add(k < 6 ? InjectedResult.SUCCESS : k < 9 ? InjectedResult.FAILURE : InjectedResult.CANCELLED);
      coe.add(r.nextInt(5) == 0);
    }
    return new Case(n, needs, conds, injected, coe, r.nextInt(8) == 0);
  }

  static Cond randomCond(Random r, int n, int depth) {
    int k = r.nextInt(depth <= 0 ? 3 : 7);
    return switch (k) {
      case 0 -> new Status(STATUS[r.nextInt(STATUS.length)]);
      case 1 -> new Result(r.nextInt(n), WORDS[r.nextInt(WORDS.length)], r.nextBoolean());
      case 2 -> new Literal(r.nextBoolean());
      case 3, 4 -> new And(randomCond(r, n, depth - 1), randomCond(r, n, depth - 1));
      case 5 -> new Or(randomCond(r, n, depth - 1), randomCond(r, n, depth - 1));
      default -> new Not(randomCond(r, n, depth - 1));
    };
  }

  static Workflow workflow(Case c) {
    List<Job> jobs = new ArrayList<>();
    for (int i = 0; i < c.n(); i++) {
      Job.Builder b = Job.builder("j" + i, new SourceLocation("random.yml", i + 1, 3)).continueOnError(c.continueOnError().get(i));
      for (int j : c.needs().get(i).stream().sorted().toList()) {
        b.needs("j" + j);
      }
      c.conds().get(i).ifPresent(cond -> b.condition(render(cond)));
      jobs.add(b.build());
    }
    return new Workflow("random.yml", Optional.empty(), List.of(), jobs);
  }

  static Scenario scenario(Case c) {
    Scenario s = Scenario.of(Event.named("push")).withRunCancelled(c.cancelled());
    for (int i = 0; i < c.n(); i++) {
      s = s.withResult("j" + i, c.injected().get(i));
    }
    return s;
  }

  // ---- the reference, as plain as possible

  static Set<Integer> ancestors(Case c, int job) {
    Set<Integer> all = new HashSet<>();
    for (int parent : c.needs().get(job)) {
      all.add(parent);
      all.addAll(ancestors(c, parent));
    }
    return all;
  }

  static boolean callsStatus(Cond c) {
    if (c instanceof Status) {
      return true;
    } else if (c instanceof And a) {
      return callsStatus(a.left()) || callsStatus(a.right());
    } else if (c instanceof Or o) {
      return callsStatus(o.left()) || callsStatus(o.right());
    } else if (c instanceof Not n) {
      return callsStatus(n.operand());
    }
    return false;
  }

  static boolean holds(Cond cond, Case c, int job, JobResult[] results) {
    if (cond instanceof Status s) {
      boolean success = !c.cancelled();
      boolean failure = false;
      for (int a : ancestors(c, job)) {
        if (results[a] != JobResult.SUCCESS) {
          success = false;
        }
        if (results[a] == JobResult.FAILURE) {
          failure = true;
        }
      }
      return switch (s.fn()) {
        case "success" -> success;
        case "failure" -> failure;
        case "cancelled" -> c.cancelled();
        default -> true;
      };
    } else if (cond instanceof Result r) {
      // needs.X is null unless X is a direct dependency; null == 'word' is false
      boolean direct = c.needs().get(job).contains(r.job());
      boolean same = direct && results[r.job()].word().equals(r.word());
      return r.equal() == same;
    } else if (cond instanceof Literal l) {
      return l.value();
    } else if (cond instanceof And a) {
      return holds(a.left(), c, job, results) && holds(a.right(), c, job, results);
    } else if (cond instanceof Or o) {
      return holds(o.left(), c, job, results) || holds(o.right(), c, job, results);
    }
    return !holds(((Not) cond).operand(), c, job, results);
  }

  static JobResult[] reference(Case c) {
    JobResult[] results = new JobResult[c.n()];
    for (int i = 0; i < c.n(); i++) { // needs point to lower indices, so this order is topological
      Cond success = new Status("success");
      Cond effective = c.conds().get(i).orElse(success);
      if (!callsStatus(effective)) {
        effective = new And(success, effective);
      }
      if (!holds(effective, c, i, results)) {
        results[i] = JobResult.SKIPPED;
      } else if (c.injected().get(i) == InjectedResult.FAILURE) {
        results[i] = c.continueOnError().get(i) ? JobResult.SUCCESS : JobResult.FAILURE;
      } else if (c.injected().get(i) == InjectedResult.CANCELLED) {
        results[i] = JobResult.CANCELLED;
      } else {
        results[i] = JobResult.SUCCESS;
      }
    }
    return results;
  }

  @Test
  void theSimulatorAgreesWithTheBruteForceReference() {
    qt().withExamples(2000).forAll(longs().all()).checkAssert(seed -> {
      Case c = randomCase(seed);
      Simulation s = WorkflowSimulator.of(workflow(c)).simulate(scenario(c));
      JobResult[] expected = reference(c);
      for (int i = 0; i < c.n(); i++) {
        assertThat(s.result("j" + i)).as("job j%d of %s (seed %d): %s", i, c, seed, s.jobs().get(i).reason())
            .isEqualTo(expected[i]);
      }
    });
  }

  @Test
  void exhaustiveModeIsEveryDistinctFailureSubset() {
    qt().withExamples(300).forAll(longs().all()).checkAssert(seed -> {
      Case c = randomCase(seed);
      Workflow w = workflow(c);
      WorkflowSimulator sim = WorkflowSimulator.of(w);
      Scenario base = Scenario.of(Event.named("push"));
      List<Simulation> exhaustive = sim.exhaustive(base);
      Set<List<JobOutcome>> fromExhaustive = new HashSet<>();
      for (Simulation s : exhaustive) {
        List<JobOutcome> results = s.jobs();
        assertThat(fromExhaustive.add(results)).as("a duplicate combination (seed %d)", seed).isTrue();
        assertThat(sim.simulate(s.scenario()).jobs()).isEqualTo(s.jobs());
      }
      Set<List<JobOutcome>> bruteForce = new HashSet<>();
      for (int mask = 0; mask < (1 << c.n()); mask++) {
        Scenario s = base;
        for (int i = 0; i < c.n(); i++) {
          if ((mask & (1 << i)) != 0) {
            s = s.withResult("j" + i, InjectedResult.FAILURE);
          }
        }
        bruteForce.add(sim.simulate(s).jobs());
      }
      assertThat(fromExhaustive).as("seed %d", seed).isEqualTo(bruteForce);
    });
  }
}
