package dev.cipolicy.api.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.policy.Suite;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A {@link PlannedJob} is valid when built. */
class PlannedJobTest {
  @Test
  void aPlannedJobIsValidWhenBuilt() {
    assertThatThrownBy(() -> new PlannedJob("cuda", "s", 3, 3, List.of("tests/a.py"), 2, Optional.of("h200"), 1, 1800))
        .isInstanceOf(InvalidValueException.class)
        .hasMessage("PlannedJob.shardIndex: must be 0 to 2 (shard count 3), got 3");
    assertThatThrownBy(() -> new PlannedJob("cuda", "s t", 0, 1, List.of(), -1, Optional.of("h 200"), -1, 0))
        .isInstanceOf(InvalidValueException.class)
        .hasMessage("PlannedJob.suite: must match " + Suite.NAME_GRAMMAR + ", got 's t'; PlannedJob.tests: must list at"
            + " least one test file; PlannedJob.gpus: must be at least 0, got -1; PlannedJob.pool: must match "
            + Suite.RUNNER_LABEL_GRAMMAR + ", got 'h 200'; PlannedJob.estimatedSeconds: must be a finite number of"
            + " seconds, at least 0; got -1.0; PlannedJob.timeoutSeconds: must be at least 1, got 0");
    assertThatThrownBy(() -> new PlannedJob("cuda", "s", 0, 1, List.of("tests/a.py", "tests/a.py"), 0,
        Optional.empty(), 1, 1800)).isInstanceOf(InvalidValueException.class)
        .hasMessage("PlannedJob.tests[1]: lists tests/a.py twice; expected each test file once");
  }

  @Test
  void theTestsAreCopied() {
    List<String> tests = new ArrayList<>(List.of("tests/a.py"));
    PlannedJob job = new PlannedJob("cpu", "stage-a-cpu", 1, 4, tests, 0, Optional.empty(), 30, 1800);
    tests.add("tests/b.py");
    assertThat(job.tests()).containsExactly("tests/a.py");
    assertThat(job.sharded()).isTrue();
    assertThat(new PlannedJob("cpu", "stage-b-cpu", 0, 1, tests, 0, Optional.empty(), 30, 1800).sharded()).isFalse();
  }
}
