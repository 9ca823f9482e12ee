package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.RegistrationException;
import dev.cipolicy.core.ReferencePolicy;
import dev.cipolicy.core.SuiteRegistry;
import org.junit.jupiter.api.Test;

/** Loading registration manifests with located, per-file errors. */
class RegistrationLoaderTest {
  private static RegistrationException fail(String name, String text) {
    try {
      RegistrationLoader.load(name, text, ReferencePolicy.resolver());
    } catch (RegistrationException e) {
      return e;
    }
    throw new AssertionError("expected rejection of\n" + text);
  }

  @Test
  void theReferenceManifestLoads() {
    SuiteRegistry r = ReferencePolicy.registry();
    assertThat(r.registrations()).hasSize(25);
    assertThat(r.registrationsOf("tests/e2e/test_megatron_short.py")).extracting(x -> x.backend())
        .containsExactly("cuda", "rocm");
  }

  @Test
  void jsonManifestsLoadToo() {
    SuiteRegistry r = RegistrationLoader.load("r.json", "[{\"file\": \"tests/fast/test_a.py\", \"backend\": \"cpu\","
        + " \"suite\": \"stage-a-cpu\", \"est_time\": 12.5, \"labels\": [], \"nightly\": false, \"disabled\": null}]",
        ReferencePolicy.resolver());
    assertThat(r.registrations()).singleElement().satisfies(x -> {
      assertThat(x.estTimeSeconds()).isEqualTo(12.5);
      assertThat(x.disabled()).isEmpty();
    });
  }

  @Test
  void estTimeIsANumberNotABoolean() {
    PolicyProblem p = fail("r.yaml", "- {file: tests/fast/test_a.py, backend: cpu, suite: stage-a-cpu, est_time: true}\n")
        .problems().get(0);
    assertThat(p.toString()).isEqualTo("r.yaml:1:76: [0].est_time: test file 'tests/fast/test_a.py': expected a"
        + " number, found a boolean (true)");
  }

  @Test
  void missingFieldsAndUnknownKeysNameTheFile() {
    RegistrationException e = fail("r.yaml", "- file: tests/fast/test_a.py\n  backend: cpu\n  est_time: 3\n  lables: [x]\n");
    assertThat(e.problems()).extracting(PolicyProblem::toString).containsExactly(
        "r.yaml:4:3: [0].lables: test file 'tests/fast/test_a.py': unknown field 'lables'; expected one of [backend,"
            + " disabled, est_time, file, labels, nightly, suite]",
        "r.yaml:1:3: [0]: test file 'tests/fast/test_a.py': missing required field 'suite'");
  }

  @Test
  void unknownLabelListsTheValidOnes() {
    PolicyProblem p = fail("r.yaml", "- {file: tests/e2e/test_a.py, backend: cuda, suite: stage-c-4-gpu-h200,"
        + " est_time: 3, labels: [fsdp, megatorn]}\n").problems().get(0);
    assertThat(p.location().orElseThrow().column()).isEqualTo(101);
    assertThat(p.message()).startsWith("test file 'tests/e2e/test_a.py': unknown label 'megatorn'; expected one of [amd,");
  }

  @Test
  void aSuiteNotDeclaredForTheBackendIsAnError() {
    PolicyProblem p = fail("r.yaml", "- {file: tests/e2e/test_a.py, backend: rocm, suite: stage-c-8-gpu-b200,"
        + " est_time: 3, labels: [amd]}\n").problems().get(0);
    assertThat(p.message()).isEqualTo("test file 'tests/e2e/test_a.py': suite 'stage-c-8-gpu-b200' is not declared"
        + " for backend 'rocm' (it belongs to backend 'cuda'); its suites are [stage-c-4-gpu-mi350,"
        + " nightly-stage-c-8-gpu-mi350, nightly-stage-c-4-gpu-mi350, nightly-stage-c-2-gpu-mi350]");
  }

  @Test
  void theManifestMustBeAList() {
    assertThat(fail("r.yaml", "file: x\n").problems().get(0).message()).isEqualTo("expected a list, found a mapping");
    assertThat(fail("r.json", "[{]").problems().get(0).message()).startsWith("malformed JSON");
  }

  @Test
  void duplicateRegistrations() {
    String entry = "- {file: tests/fast/test_a.py, backend: cpu, suite: stage-a-cpu, est_time: 3}\n";
    assertThat(fail("r.yaml", entry + entry).problems().get(0).toString())
        .isEqualTo("r.yaml:2:3: [1]: test file 'tests/fast/test_a.py': registered twice for cpu/stage-a-cpu (first at [0])");
  }
}
