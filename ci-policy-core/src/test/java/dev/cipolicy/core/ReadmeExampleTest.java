package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Java example of README.md, kept compiling and true. */
class ReadmeExampleTest {
  @Test
  void theReadmeExampleWorksAsWritten() throws Exception {
    LoadedPolicy loaded = PolicyLoader.load("miles.yaml", Files.readString(ReferencePolicy.path()));
    PolicyResolver resolver = loaded.resolver();

    TriggerResolution r = resolver.resolve(TriggerInput.builder()
        .eventName("pull_request")
        .prLabels(List.of("run-ci-megatron", "bypass-fastfail"))
        .build());

    RunPolicy run = r.runPolicy();
    assertThat(run.cadence()).isEqualTo("regular");
    assertThat(run.includeLabels()).containsExactly("megatron");
    assertThat(run.bypassFastfail()).isTrue();
    assertThat(r.explanation().sentence()).startsWith("cadence=regular scope=none included 1 of 19 labels because ");
  }
}
