package dev.cipolicy.queue.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A job's own timeout: none by default, kept by the other withers, checked, in whole microseconds. */
class JobSpecTimeoutTest {

  @Test
  void aJobHasNoTimeoutUnlessGivenOne() {
    JobSpec plain = JobSpec.required("g", "h200").withGpus(4, Duration.ofMinutes(20));
    assertThat(plain.timeout()).isZero();
    assertThat(plain.hasTimeout()).isFalse();
    JobSpec limited = plain.withTimeout(Duration.ofMinutes(45));
    assertThat(limited.hasTimeout()).isTrue();
    assertThat(limited.timeout()).isEqualTo(Duration.ofMinutes(45));
    assertThat(limited.withCadence("nightly").timeout()).isEqualTo(Duration.ofMinutes(45));
    assertThat(limited.withGpus(8, Duration.ofMinutes(30)).timeout()).isEqualTo(Duration.ofMinutes(45));
    assertThat(limited.withTimeout(Duration.ZERO)).isEqualTo(plain);
    assertThat(limited).isNotEqualTo(plain);
  }

  @Test
  void aTimeoutKeepsWholeMicroseconds() {
    assertThat(JobSpec.required("g", "x").withTimeout(Duration.ofNanos(1_500_999)).timeout())
        .isEqualTo(Duration.ofNanos(1_500_000));
  }

  @Test
  void aNegativeOrTooLongTimeoutIsRefused() {
    JobSpec spec = JobSpec.required("g", "x");
    assertThatThrownBy(() -> spec.withTimeout(Duration.ofSeconds(-1))).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("timeout of job g@x is PT-1S; expected zero (none) to PT8784H");
    assertThatThrownBy(() -> spec.withTimeout(JobSpec.MAX_TIMEOUT.plusNanos(1000)))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageStartingWith("timeout of job g@x is PT8784H0.000001S");
    assertThat(spec.withTimeout(JobSpec.MAX_TIMEOUT).timeout()).isEqualTo(JobSpec.MAX_TIMEOUT);
  }
}
