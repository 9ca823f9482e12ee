package dev.cipolicy.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.WaitReason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueueOrderTest {
  private static final Instant T0 = Instant.parse("2026-01-05T09:00:00Z");
  private long nextId = 1;

  private Request ready(NewRequest r, int secondsAfterT0) {
    return Request.created(RequestId.of(nextId++), r, T0.plusSeconds(secondsAfterT0));
  }

  private Request started(NewRequest r, int secondsAfterT0) {
    return ready(r, 0).started(T0.plusSeconds(secondsAfterT0), null);
  }

  @Test
  void inProgressByStartThenReleasesByCreationThenLevels() {
    Request late = started(NewRequest.master("a", null), 20);
    Request early = started(NewRequest.master("b", null).withPr(1), 10);
    Request r2 = ready(NewRequest.release("2.0"), 5);
    Request r1 = ready(NewRequest.release("1.0"), 1);
    Request child = ready(NewRequest.tryWithArtifacts(1, "t", "m"), 0);
    Request parent = ready(NewRequest.master("m", "a").withPr(50), 9);
    QueueOrder order = QueueOrder.of(List.of(child, r2, parent, late, r1, early));
    assertThat(order.requests()).containsExactly(early, late, r1, r2, parent, child);
    assertThat(order.head()).contains(r1);
    assertThat(order.placed()).extracting(QueueOrder.Placed::reason).containsExactly(
        "in progress since 2026-01-05T09:00:10Z", "in progress since 2026-01-05T09:00:20Z",
        "release, by creation time", "release, by creation time", "parent a in progress (counts as done)",
        "after parent m (level 1)");
  }

  @Test
  void levelsAreBreadthFirstAndSortedWithinALevel() {
    // m1 <- m2 <- m3 and m1 <- t(pr 1); t is at level 1 with m2, and PR 1 sorts before PR 7.
    Request m1 = ready(NewRequest.master("m1", "m0").withPr(5), 0);
    Request m2 = ready(NewRequest.master("m2", "m1").withPr(7), 0);
    Request m3 = ready(NewRequest.master("m3", "m2").withPr(2), 0);
    Request t = ready(NewRequest.tryWithArtifacts(1, "t1", "m1"), 0);
    assertThat(QueueOrder.of(List.of(m3, t, m2, m1)).requests()).containsExactly(m1, t, m2, m3);
  }

  @Test
  void masterBeforeTryThenCreationTimeThenIdBreakTies() {
    Request tryEarly = ready(NewRequest.tryWithArtifacts(4, "t1", "base"), 0);
    Request masterLate = ready(NewRequest.master("m1", "base").withPr(4), 9);
    Request tryLate = ready(NewRequest.tryWithArtifacts(3, "t2", "base"), 9);
    Request noPr = ready(NewRequest.master("m2", "base"), 30);
    assertThat(QueueOrder.of(List.of(tryEarly, masterLate, tryLate, noPr)).requests())
        .containsExactly(noPr, tryLate, masterLate, tryEarly);
  }

  @Test
  void aRequestWithADoneParentGoesBeforeOneWithAnUnknownParentWhateverThePr() {
    Request parent = started(NewRequest.master("p", null), 0).completed(dev.cipolicy.queue.model.Outcome.SUCCESS, T0);
    Request a = ready(NewRequest.master("a", "p").withPr(5), 0);
    Request b = ready(NewRequest.master("b", "nobody").withPr(1), 0);
    assertThat(QueueOrder.of(List.of(b, a, parent)).requests()).containsExactly(a, b);
    // The same with only the open requests and the completed parent's tag known beside them.
    QueueOrder order = QueueOrder.of(List.of(b, a), java.util.Set.of("p"));
    assertThat(order.requests()).containsExactly(a, b);
    assertThat(order.placed()).extracting(QueueOrder.Placed::reason).containsExactly("parent p done",
        "parent nobody unknown: after every request with a done parent");
    assertThat(QueueOrder.parentTagsOutside(List.of(b, a))).containsExactlyInAnyOrder("p", "nobody");
    // Without the known tag, both parents are unknown: the lower PR goes first.
    assertThat(QueueOrder.of(List.of(b, a)).requests()).containsExactly(b, a);
  }

  @Test
  void parentCyclesArePromotedLeastFirst() {
    Request a = ready(NewRequest.master("a", "b").withPr(2), 0);
    Request b = ready(NewRequest.master("b", "a").withPr(1), 0);
    Request c = ready(NewRequest.master("c", "a").withPr(0 + 3), 0);
    QueueOrder order = QueueOrder.of(List.of(a, b, c));
    assertThat(order.requests()).containsExactly(b, a, c);
    assertThat(order.placed().get(0).reason()).isEqualTo("parent cycle through a: promoted");
  }

  @Test
  void waitingAndTerminalRequestsAreNotOrdered() {
    Request waiting = ready(NewRequest.tryAwaitingArtifacts(3), 0);
    Request done = started(NewRequest.master("d", null), 1).completed(dev.cipolicy.queue.model.Outcome.SUCCESS, T0);
    QueueOrder order = QueueOrder.of(List.of(waiting, done));
    assertThat(order.requests()).isEmpty();
    assertThat(order.head()).isEmpty();
    assertThat(order.waiting()).extracting(QueueOrder.Placed::request).containsExactly(waiting);
    assertThat(order.status(T0, Duration.ofHours(1), 1).lines()).containsExactly("try #3 (awaiting artifacts): waiting"
        + " for artifacts");
  }

  @Test
  void etaDividesTheWorkAheadByTheCap() {
    Request running = started(NewRequest.master("a", null), 0);
    List<Request> all = new ArrayList<>(List.of(running));
    for (int i = 0; i < 3; i++) {
      all.add(ready(NewRequest.master("m" + i, "a").withPr(i + 1), 0));
    }
    QueueStatus status = QueueOrder.of(all).status(T0.plus(Duration.ofMinutes(90)), Duration.ofHours(1), 2);
    assertThat(status.entries()).extracting(e -> e.eta().orElseThrow()).containsExactly(Duration.ZERO,
        Duration.ofMinutes(30), Duration.ofMinutes(60), Duration.ofMinutes(90));
    assertThat(status.entries().get(3).summary()).isEqualTo("master m2 (PR #3): 3 ahead, done in about 1 h 30 min"
        + " (parent a in progress (counts as done))");
    assertThat(QueueStatus.human(Duration.ofSeconds(59))).isEqualTo("less than a minute");
    assertThat(QueueStatus.human(Duration.ofMinutes(120))).isEqualTo("2 h");
  }

  @Test
  void waitReasonsNameTheCapTheParentAndTheRequestsAhead() {
    Request running = started(NewRequest.master("m0", null), 5);
    Request release = ready(NewRequest.release("1.0"), 1);
    Request m1 = ready(NewRequest.master("m1", "m0"), 2);
    Request m2 = ready(NewRequest.master("m2", "m1"), 3);
    Request waiting = ready(NewRequest.tryAwaitingArtifacts(3), 4);
    QueueOrder order = QueueOrder.of(List.of(waiting, m2, m1, release, running));
    List<RequestWait> capped = order.waitReasons(1);
    assertThat(capped).extracting(RequestWait::request).containsExactly(release, m1, m2, waiting);
    assertThat(capped).extracting(w -> w.reason().kind()).containsExactly(WaitReason.Kind.CAP_REACHED,
        WaitReason.Kind.BEHIND_OLDER_REQUEST, WaitReason.Kind.WAITING_FOR_PARENT,
        WaitReason.Kind.WAITING_FOR_ARTIFACTS);
    assertThat(capped).extracting(RequestWait::reason).containsExactly(
        WaitReason.builder().kind(WaitReason.Kind.CAP_REACHED).cap(1).addInProgress(running.label()).build(),
        WaitReason.builder().kind(WaitReason.Kind.BEHIND_OLDER_REQUEST).ahead(1).nextToStart(release.label())
            .build(),
        WaitReason.builder().kind(WaitReason.Kind.WAITING_FOR_PARENT).parentSha("m1").level(1).ahead(2).build(),
        WaitReason.builder().kind(WaitReason.Kind.WAITING_FOR_ARTIFACTS).label(waiting.label()).build());
    assertThat(order.waitReasons(2).get(0).reason())
        .isEqualTo(WaitReason.builder().kind(WaitReason.Kind.NEXT_TO_START).build());
  }
}
