package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.run.RunPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The exact output lines and log line. */
class GithubOutputsTest {
  @Test
  void writesExactlyFourLinesInOrder() {
    RunPolicy p = ReferencePolicy.resolver().resolve("regular", List.of("run-ci-megatron", "bypass-fastfail"));
    assertThat(GithubOutputs.outputLines(p, List.of("stage-c-8-gpu-h100", "stage-b-2-gpu-h200")))
        .isEqualTo("cadence=regular\nraw_labels=run-ci-megatron bypass-fastfail\nbypass_fastfail=true\n"
            + "skipped_stages=[\"stage-b-2-gpu-h200\",\"stage-c-8-gpu-h100\"]\n");
  }

  @Test
  void emptyLabelsAndStages() {
    RunPolicy p = ReferencePolicy.resolver().resolve("weekly", List.of());
    assertThat(GithubOutputs.outputLines(p, List.of()))
        .isEqualTo("cadence=weekly\nraw_labels=\nbypass_fastfail=true\nskipped_stages=[]\n");
    assertThat(GithubOutputs.summaryLine(p, List.of()))
        .isEqualTo("Resolved CI policy: cadence=weekly labels=[] bypass_fastfail=true skipped_stages=[]");
  }
}
