package dev.cipolicy.core.load;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.core.ReferencePolicy;
import dev.cipolicy.core.workflow.Event;
import dev.cipolicy.core.workflow.Scenario;
import dev.cipolicy.core.workflow.Workflow;
import dev.cipolicy.core.workflow.WorkflowLint;
import dev.cipolicy.core.workflow.WorkflowSimulator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Coverage-guided fuzz targets for the document loaders (Jazzer). Without {@code JAZZER_FUZZ=1} each runs
 * its committed seed corpus under {@code LoaderFuzzTestInputs/<method>/} as a plain test; with it, one
 * target fuzzes (see docs/limits.md). Only our exception types may escape, with a single-line message.
 */
class LoaderFuzzTest {
  @FuzzTest(maxDuration = "90s")
  void policyYaml(byte[] data) {
    load(() -> PolicyLoader.load("fuzz.yaml", text(data)));
  }

  @FuzzTest(maxDuration = "90s")
  void policyJson(byte[] data) {
    load(() -> PolicyLoader.load("fuzz.json", text(data)));
  }

  @FuzzTest(maxDuration = "90s")
  void registrationsYaml(byte[] data) {
    load(() -> RegistrationLoader.load("fuzz.yaml", text(data), ReferencePolicy.resolver()));
  }

  @FuzzTest(maxDuration = "90s")
  void registrationsJson(byte[] data) {
    load(() -> RegistrationLoader.load("fuzz.json", text(data), ReferencePolicy.resolver()));
  }

  @FuzzTest(maxDuration = "90s")
  void gateDeclarationsYaml(byte[] data) {
    load(() -> GateDeclarationsLoader.load("fuzz.yaml", text(data)));
  }

  /**
   * A workflow file: loaded (with every local call answered by the file itself), simulated on a push and a
   * closed pull request, exhaustively on a push, and linted without a policy. Its seeds are the hostile
   * workflows: a {@code format} bomb, long and reversed {@code needs} chains, a cycle, many independent jobs for
   * exhaustive mode, a file calling itself many times per level, a tall {@code ||} chain.
   */
  @FuzzTest(maxDuration = "90s")
  void workflowYaml(byte[] data) {
    String text = text(data);
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

  static String text(byte[] data) {
    return new String(data, StandardCharsets.UTF_8);
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
