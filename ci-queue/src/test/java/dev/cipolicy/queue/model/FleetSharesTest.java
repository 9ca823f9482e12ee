package dev.cipolicy.queue.model;

import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.queue.model.FleetShares.Share;
import dev.cipolicy.queue.placement.ShareLedger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FleetSharesTest {

  private static JobSpec job(String cadence) {
    return JobSpec.required("j", "r").withCadence(cadence);
  }

  @Test
  void policySharesConvertAsTheyAre() {
    FleetShares shares = FleetShares.fromPolicy(List.of(FleetShare.runners("weekly", "h200", 1),
        FleetShare.builder().cadence("nightly").pool("b200").unit(FleetShare.Unit.GPUS).amount(8).borrow(true)
            .build()));
    assertThat(shares.shares()).containsExactly(new Share("nightly", "b200", FleetShares.Unit.GPUS, 8, true),
        Share.runners("weekly", "h200", 1));
    assertThat(shares.share("weekly", "h200")).contains(Share.runners("weekly", "h200", 1));
    assertThat(shares.share("weekly", "b200")).isEmpty();
    assertThat(shares.covers("b200")).isTrue();
    assertThat(shares.covers("cpu")).isFalse();
  }

  @Test
  void limitsAreChecked() {
    List<Share> many = new ArrayList<>();
    for (int i = 0; i <= FleetShares.MAX_SHARES; i++) {
      many.add(Share.runners("c" + i, "r", 1));
    }
    assertThatThrownBy(() -> new FleetShares(many)).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("fleet shares list 1001 shares; expected at most 1000");
    assertThatThrownBy(() -> Share.gpus("weekly", "r", FleetShares.MAX_AMOUNT + 1))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("expected 1 to 1000000");
    assertThat(JobSpec.required("j", "r").cadence()).isEmpty();
    assertThat(JobSpec.required("j", "r").withGpus(2, Duration.ZERO).hasCadence()).isFalse();
    assertThat(job("weekly").withGpus(2, Duration.ofSeconds(5)).cadence()).isEqualTo("weekly");
  }

  @Test
  void ledgerAdmitsWithinTheAmountAndBorrowsOnlyWhileNobodyElseWaits() {
    FleetShares shares = FleetShares.of(Share.runners("weekly", "r", 1).borrowing(), Share.runners("nightly", "r", 1));
    ShareLedger ledger = new ShareLedger("r");
    ledger.queued(job("weekly"));
    ledger.queued(job("weekly"));
    assertThat(ledger.admits(shares, job("weekly"))).isTrue();
    ledger.claimed(job("weekly"));
    // Over its amount, but nobody else waits: it borrows.
    assertThat(ledger.admits(shares, job("weekly"))).isTrue();
    ledger.queued(job(""));
    WaitReason refused = ledger.refusal(shares, job("weekly")).orElseThrow();
    assertThat(refused.kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    assertThat(refused.share()).contains(shares.share("weekly", "r").orElseThrow());
    assertThat(refused.held()).hasValue(1);
    ledger.unqueued(job(""));
    ledger.queued(job("nightly"));
    assertThat(ledger.admits(shares, job("weekly"))).as("nightly waits, under its share").isFalse();
    ledger.claimed(job("nightly"));
    ledger.queued(job("nightly"));
    assertThat(ledger.admits(shares, job("nightly"))).as("nightly is full and does not borrow").isFalse();
    assertThat(ledger.admits(shares, job("weekly"))).as("a full nightly waits for nothing").isTrue();
    assertThat(ledger.admits(shares, job(""))).as("no cadence, no cap").isTrue();
    ledger.unleased(job("weekly"));
    assertThat(ledger.held("weekly", FleetShares.Unit.RUNNERS)).isZero();
  }

  @Test
  void gpuSharesCountBudgets() {
    FleetShares shares = FleetShares.of(Share.gpus("weekly", "g", 4));
    ShareLedger ledger = ShareLedger.of("g", List.of(JobSpec.required("a", "g").withGpus(3, Duration.ZERO)
        .withCadence("weekly"), JobSpec.required("b", "g").withCadence("weekly")), List.of());
    assertThat(ledger.held("weekly", FleetShares.Unit.GPUS)).isEqualTo(3);
    assertThat(ledger.held("weekly", FleetShares.Unit.RUNNERS)).isEqualTo(2);
    assertThat(ledger.admits(shares, JobSpec.required("c", "g").withGpus(1, Duration.ZERO).withCadence("weekly")))
        .isTrue();
    assertThat(ledger.refusal(shares, JobSpec.required("c", "g").withGpus(2, Duration.ZERO).withCadence("weekly"))
        .orElseThrow()).isEqualTo(WaitReason.of(WaitReason.Kind.SHARE_FULL, "g", 2)
            .share(Share.gpus("weekly", "g", 4)).held(3).build());
    assertThat(ledger.admits(shares, JobSpec.required("d", "g").withCadence("weekly"))).as("no GPU, no cost")
        .isTrue();
  }
}
