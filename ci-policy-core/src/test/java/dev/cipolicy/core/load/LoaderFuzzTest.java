package dev.cipolicy.core.load;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.core.ReferencePolicy;
import java.nio.charset.StandardCharsets;

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
