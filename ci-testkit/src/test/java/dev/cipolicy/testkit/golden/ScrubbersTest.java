package dev.cipolicy.testkit.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ScrubbersTest {

  @Test
  void theSandboxIsScrubbedBeforeTheRepositoryItLiesIn() {
    Path repo = Path.of("/work/repo");
    Path sandbox = repo.resolve("target/sandbox-1");

    String text = Scrubbers.standard(sandbox, repo)
        .apply("/work/repo/target/sandbox-1/out /work/repo/examples/p.yaml /work/repo");

    assertThat(text).isEqualTo("<SANDBOX>/out <REPO_ROOT>/examples/p.yaml <REPO_ROOT>");
  }

  @Test
  void aPathMatchesOnlyAsAWholePathPrefix() {
    Scrubbers s = Scrubbers.standard(Path.of("/tmp/sb"), Path.of("/work/repo"));

    assertThat(s.apply("/work/repo-old/x /work/repo.bak /tmp/sb2 /work/repo/x '/work/repo'"))
        .isEqualTo("/work/repo-old/x /work/repo.bak /tmp/sb2 <REPO_ROOT>/x '<REPO_ROOT>'");
  }

  @Test
  void userRulesRunInOrderAfterTheStandardOnesAndNamesAreUnique() {
    Scrubbers s = Scrubbers.standard(Path.of("/tmp/sb"), Path.of("/work/repo"))
        .then(Scrubber.regex("timestamps", "\\d{4}-\\d{2}-\\d{2}T[0-9:]+Z", "<TIME>"))
        .then(Scrubber.literal("time placeholder", "<TIME>", "<WHEN>"));

    assertThat(s.names()).containsExactly("sandbox", "repository root", "timestamps", "time placeholder");
    assertThat(s.apply("at 2026-11-29T18:00:00Z in /tmp/sb")).isEqualTo("at <WHEN> in <SANDBOX>");
    assertThatThrownBy(() -> s.then(Scrubber.literal("sandbox", "x", "y")))
        .isInstanceOf(SnapshotConfigurationException.class)
        .hasMessage("a scrubber named 'sandbox' is already in [sandbox, repository root, timestamps, time placeholder]");
    assertThatThrownBy(() -> Scrubber.regex("broken", "(", "x"))
        .isInstanceOf(SnapshotConfigurationException.class)
        .hasMessageStartingWith("scrubber 'broken': bad regular expression");
  }
}
