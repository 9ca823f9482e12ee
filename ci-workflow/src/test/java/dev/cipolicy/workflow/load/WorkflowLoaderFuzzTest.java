package dev.cipolicy.workflow.load;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.workflow.Event;
import dev.cipolicy.workflow.Scenario;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.WorkflowSimulator;
import dev.cipolicy.workflow.lint.WorkflowLint;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The coverage-guided fuzz target of the workflow loader (Jazzer). Without {@code JAZZER_FUZZ=1} it runs its
 * committed seed corpus under {@code WorkflowLoaderFuzzTestInputs/workflowYaml/} as a plain test; with it, it
 * fuzzes (see docs/limits.md). Only our exception types may escape, with a single-line message.
 */
class WorkflowLoaderFuzzTest {
  /**
   * A workflow file: loaded (with every local call answered by the file itself), simulated on a push and a
   * closed pull request, exhaustively on a push, and linted without a policy. Its seeds are the hostile
   * workflows: a {@code format} bomb, long and reversed {@code needs} chains, a cycle, many independent jobs for
   * exhaustive mode, a file calling itself many times per level, a tall {@code ||} chain.
   */
  @FuzzTest(maxDuration = "90s")
  void workflowYaml(byte[] data) {
    String text = new String(data, StandardCharsets.UTF_8);
    load(() -> {
      Workflow w = WorkflowLoader.load("fuzz.yml", text, uses -> Optional.of(text));
      WorkflowSimulator sim = WorkflowSimulator.of(w);
      sim.simulate(Scenario.of(new Event("push", Optional.empty(), Optional.empty(), Map.of(), List.of(),
          Optional.empty())));
      sim.simulate(Scenario.of(new Event("pull_request", Optional.of("closed"), Optional.empty(), Map.of(), List.of(),
          Optional.empty())));
      sim.exhaustive(Scenario.of(new Event("push", Optional.empty(), Optional.empty(), Map.of(), List.of(),
          Optional.empty())));
      WorkflowLint.withoutPolicy().lint(List.of(w));
    });
  }

  /** Runs a load; our exception is an expected outcome, anything else escapes and fails the target. */
  static void load(Runnable load) {
    try {
      load.run();
    } catch (CiPolicyException e) {
      String m = String.valueOf(e.getMessage());
      if (m.contains("\n") || m.contains("\r")) {
        throw new AssertionError("a multi-line message: " + m, e);
      }
    }
  }
}
