package dev.cipolicy.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.workflow.lint.LintFinding;
import dev.cipolicy.workflow.lint.WorkflowLint;
import dev.cipolicy.workflow.load.WorkflowLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Hostile workflows end in our exception or a result within seconds, never in an OutOfMemoryError or a
 * StackOverflowError: huge computed strings, very long {@code needs} chains (in order, reversed, as a cycle),
 * exhaustive mode over many independent jobs, very tall expressions. The time guards are generous: they only
 * tell "seconds" from the minutes or the crash the inputs used to cause.
 */
class WorkflowHostileInputTest {
  private static final Duration GUARD = Duration.ofSeconds(30);

  /** Eight nested {@code format}s, each repeating its argument 16 times: 16^8 characters unbounded. */
  static String formatBomb() {
    String e = "'x'";
    for (int i = 0; i < 8; i++) {
      e = "format('" + "{0}".repeat(16) + "', " + e + ")";
    }
    return e;
  }

  /** A workflow of {@code n} jobs, {@code j<i>} needing {@code j<i-1>}, written in file order or reversed. */
  static String chain(int n, boolean reverse, boolean cycle) {
    StringBuilder sb = new StringBuilder("on:\n  push:\n  pull_request:\n    types: [opened, closed]\njobs:\n");
    for (int k = 0; k < n; k++) {
      int i = reverse ? n - 1 - k : k;
      if (i == 0 && !cycle) {
        sb.append("  j0: {if: \"github.event.action != 'closed'\", runs-on: x}\n");
      } else {
        sb.append("  j").append(i).append(": {needs: j").append(i == 0 ? n - 1 : i - 1).append(", runs-on: x}\n");
      }
    }
    return sb.toString();
  }

  private static Event push() {
    return new Event("push", Optional.empty(), Optional.empty(), Map.of(), List.of(), Optional.empty());
  }

  @Test
  void aFormatBombEndsInTheStringLimit() {
    Expression e = Expression.parse(formatBomb());
    assertTimeoutPreemptively(GUARD, () -> assertThatThrownBy(() -> e.evaluate(new ExpressionEnvironment() {
      @Override
      public ExprValue context(String name) {
        return new ExprValue.Unknown(name, Tri.UNKNOWN);
      }

      @Override
      public StatusCheck status(StatusFunction f) {
        return new StatusCheck(Tri.TRUE, "");
      }
    })).isInstanceOf(ExpressionLimitException.class)
        .hasMessageContaining("format() makes a string, longer than the limit of 1048576 characters"));
    Workflow w = WorkflowLoader.load("w.yml", "on: push\njobs:\n  a:\n    if: ${{ " + formatBomb() + " == 'y' }}\n"
        + "    runs-on: x\n");
    assertTimeoutPreemptively(GUARD, () -> assertThatThrownBy(() -> WorkflowSimulator.of(w)
        .simulate(Scenario.of(push())))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("workflow w.yml, the if of job a at w.yml:4:")
        .hasMessageContaining("format(")
        .hasMessageContaining("longer than the limit of 1048576 characters")
        .satisfies(t -> assertThat(t.getMessage()).doesNotContain("\n")));
  }

  @Test
  void joinTemplatesAndToJsonAreBoundedToo() {
    String big = "format('" + "{0}".repeat(16) + "', format('" + "{0}".repeat(16) + "', format('" + "{0}".repeat(16)
        + "', format('" + "{0}".repeat(16) + "', format('" + "{0}".repeat(16) + "', 'x')))))"; // 2^20 characters
    ExpressionEnvironment env = new ExpressionEnvironment() {
      @Override
      public ExprValue context(String name) {
        return ExprValue.NULL;
      }

      @Override
      public StatusCheck status(StatusFunction f) {
        return new StatusCheck(Tri.TRUE, "");
      }
    };
    assertThat(((ExprValue.Str) Expression.parse(big).evaluate(env)).value()).hasSize(Expression.MAX_STRING_LENGTH);
    for (String e : List.of("join(fromJSON('[1, 2]'), " + big + ")", "toJSON(" + big + ")")) {
      assertThatThrownBy(() -> Expression.parse(e).evaluate(env)).as(e).isInstanceOf(ExpressionLimitException.class);
    }
    assertThatThrownBy(() -> Expression.parseTemplate("a${{ " + big + " }}").evaluate(env))
        .isInstanceOf(ExpressionLimitException.class).hasMessageContaining("the template makes a string");
  }

  @Test
  void aVeryTallExpressionIsASyntaxErrorNotAStackOverflow() {
    String chain = String.join(" || ", java.util.Collections.nCopies(100_000, "false"));
    assertThatThrownBy(() -> Expression.parse(chain)).isInstanceOf(InvalidExpressionException.class)
        .hasMessageContaining("more than 400 levels of operators");
    String props = "github" + ".a".repeat(50_000);
    assertThatThrownBy(() -> Expression.parse(props)).isInstanceOf(InvalidExpressionException.class);
    assertThat(Expression.parse(String.join(" && ", java.util.Collections.nCopies(300, "true")))
        .callsStatusFunction()).isFalse();
  }

  @Test
  void aChainOf5000JobsSimulatesInLinearTimeWithShortenedPaths() {
    Workflow w = WorkflowLoader.load("w.yml", chain(5_000, false, false));
    Simulation s = assertTimeoutPreemptively(GUARD, () -> WorkflowSimulator.of(w)
        .simulate(Scenario.of(push()).withResult("j0", InjectedResult.FAILURE)));
    assertThat(s.jobs().get(4_999).reason()).isEqualTo("skipped: implicit success() is false: ancestor j0 failed"
        + " (via j4998, j4997, j4996, j4995, j4994, j4993, j4992, j4991, j4990, ... 4988 more, j1)");
    assertThat(s.jobs().get(2).reason()).isEqualTo("skipped: implicit success() is false: ancestor j0 failed (via j1)");
    assertThat(s.jobs().get(1).reason()).isEqualTo("skipped: implicit success() is false: ancestor j0 failed");
    Simulation ok = WorkflowSimulator.of(w).simulate(Scenario.of(push()));
    assertThat(ok.jobs().get(1).reason()).isEqualTo("success: ran (implicit success() is true: ancestor j0 succeeded)");
    assertThat(ok.jobs().get(2).reason())
        .isEqualTo("success: ran (implicit success() is true: ancestor j1 and its ancestors succeeded)");
  }

  @Test
  void aChainOf20000JobsInReverseOrderLoadsAndSimulates() {
    String text = chain(20_000, true, false);
    assertThat(text.length()).isLessThan(1 << 20);
    Simulation s = assertTimeoutPreemptively(GUARD, () -> WorkflowSimulator.of(WorkflowLoader.load("w.yml", text))
        .simulate(Scenario.of(push())));
    assertThat(s.jobs()).hasSize(20_000).allMatch(o -> o.result() == JobResult.SUCCESS);
    assertThat(WorkflowSimulator.of(WorkflowLoader.load("w.yml", text)).ancestors("j19999")).hasSize(19_999)
        .startsWith("j0", "j1");
  }

  @Test
  void aCycleOf20000JobsIsFoundWithoutRecursion() {
    List<Job> jobs = new ArrayList<>();
    dev.cipolicy.api.SourceLocation at = new dev.cipolicy.api.SourceLocation("w.yml", 1, 1);
    for (int i = 0; i < 20_000; i++) {
      jobs.add(Job.builder("j" + i, at).needs("j" + (i == 0 ? 19_999 : i - 1)).build());
    }
    assertTimeoutPreemptively(GUARD, () -> assertThatThrownBy(() -> new Workflow("w.yml", Optional.empty(),
        List.of(), jobs)).isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("the needs form a cycle j0 -> j19999 -> j19998")
        .hasMessageContaining("... 19981 more -> j1 -> j0; expected an acyclic graph"));
  }

  @Test
  void exhaustiveRefusesPastItsCapInsteadOfRunningForMinutes() {
    StringBuilder text = new StringBuilder("on: push\njobs:\n");
    for (int i = 0; i < 20; i++) {
      text.append("  j").append(i).append(":\n    runs-on: x\n");
    }
    WorkflowSimulator sim = WorkflowSimulator.of(WorkflowLoader.load("w.yml", text.toString()));
    assertTimeoutPreemptively(GUARD, () -> assertThatThrownBy(() -> sim.exhaustive(Scenario.of(push())))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("exhaustive simulation of w.yml stops at 250000 job outcomes")
        .hasMessageContaining("pin the results of the jobs that need not vary"));
    // pinning all but 12 jobs leaves 4,096 simulations
    Scenario pinned = Scenario.of(push());
    for (int i = 12; i < 20; i++) {
      pinned = pinned.withResult("j" + i, InjectedResult.SUCCESS);
    }
    assertThat(sim.exhaustive(pinned)).hasSize(4_096);
  }

  @Test
  void aChainOf5000JobsLintsInLinearTime() throws IOException {
    Path examples = Files.isDirectory(Path.of("../examples")) ? Path.of("../examples") : Path.of("../../examples");
    LoadedPolicy miles = PolicyLoader.load("miles.yaml",
        Files.readString(examples.resolve("policies/miles.yaml"), StandardCharsets.UTF_8));
    // the fixed pr-test.yml with 5,000 more jobs between the gate and the image build
    String fixed = Files.readString(examples.resolve("workflows/model/fixed/pr-test.yml"), StandardCharsets.UTF_8);
    StringBuilder more = new StringBuilder();
    for (int i = 0; i < 5_000; i++) {
      more.append("  link-").append(i).append(": {needs: ").append(i == 0 ? "stage-a-cpu" : "link-" + (i - 1))
          .append(", runs-on: x}\n");
    }
    String text = fixed + more;
    List<Workflow> set = List.of(WorkflowLoader.load("pr-test.yml", text), WorkflowLoader.load("pr-test-rocm.yml",
        Files.readString(examples.resolve("workflows/model/fixed/pr-test-rocm.yml"), StandardCharsets.UTF_8)));
    List<LintFinding> findings = assertTimeoutPreemptively(GUARD,
        () -> WorkflowLint.of(miles.policy(), miles.locator()).lint(set));
    assertThat(findings).isEmpty();
  }
}
