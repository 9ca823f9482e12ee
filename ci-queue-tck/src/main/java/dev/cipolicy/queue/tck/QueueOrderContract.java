package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.QueueOrder;
import dev.cipolicy.queue.QueueStatus;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.RequestScan;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for the queue order and the status view over a store's open requests, and for the scans
 * that read them.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Queue order" group.
 */
abstract class QueueOrderContract extends KitGroup {

  QueueOrderContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("in progress first, then releases, then ready requests with their parents first")
  void sections() {
    Request head = running(NewRequest.master("m1", "m0"));
    Request child = submit(NewRequest.tryWithArtifacts(1, "t2", "m2"));
    Request parent = submit(NewRequest.master("m2", "m1").withPr(9));
    Request release = submit(NewRequest.release("1.0.0"));
    assertThat(queue.order().requests()).extracting(Request::id)
        .containsExactly(head.id(), release.id(), parent.id(), child.id());
  }

  @Test
  @DisplayName("within a level: lower PR number first, master before try, then creation time")
  void ties() {
    Request t5 = submit(NewRequest.tryWithArtifacts(5, "t5", "base"));
    clock.advance(Duration.ofSeconds(1));
    Request m5 = submit(NewRequest.master("m5", "base").withPr(5));
    Request t3 = submit(NewRequest.tryWithArtifacts(3, "t3", "base"));
    assertThat(queue.order().requests()).containsExactly(t3, m5, t5);
  }

  @Test
  @DisplayName("a request whose parent is unknown is placed when nothing else is; waiting try requests are listed last")
  void unknownParentAndWaiting() {
    Request waiting = submit(NewRequest.tryAwaitingArtifacts(1));
    Request orphan = submit(NewRequest.master("m7", "gone").withPr(70));
    QueueOrder order = queue.order();
    assertThat(order.head()).contains(orphan);
    assertThat(order.placed().get(0).basis()).isEqualTo(QueueOrder.Basis.PARENT_UNKNOWN);
    assertThat(order.placed().get(0).reason()).isEqualTo("parent gone unknown: after every request with a done parent");
    assertThat(order.waiting()).extracting(QueueOrder.Placed::request).containsExactly(waiting);
  }

  @Test
  @DisplayName("a request with a completed parent goes before one with an unknown parent, whatever their PR numbers")
  void unknownParentIsAFallback() {
    register("c1", "x86");
    Request done = running(NewRequest.master("m1", null));
    completeAll("c1");
    assertThat(store.completeIfDone(done.id()).status()).isEqualTo(CompletionResult.Status.COMPLETED);
    Request b = submit(NewRequest.master("b", "unknown").withPr(1));
    Request a = submit(NewRequest.master("a", "m1").withPr(5));
    Request childOfA = submit(NewRequest.tryWithArtifacts(9, "a-try", "a"));
    Request childOfB = submit(NewRequest.tryWithArtifacts(2, "b-try", "b"));
    QueueOrder order = queue.order();
    assertThat(order.ready()).containsExactly(a, childOfA, b, childOfB);
    assertThat(order.placed()).extracting(QueueOrder.Placed::basis).containsExactly(QueueOrder.Basis.PARENT_DONE,
        QueueOrder.Basis.AFTER_PARENT, QueueOrder.Basis.PARENT_UNKNOWN, QueueOrder.Basis.AFTER_PARENT);
    assertThat(order.placed().get(0).reason()).isEqualTo("parent m1 done");
    assertThat(queue.status().entries().get(2).ahead()).as("requests ahead of the fallback").isEqualTo(2);
    TickResult tick = queue.tick();
    assertThat(tick.started()).extracting(s -> s.request().orElseThrow().id()).containsExactly(a.id());
  }

  @Test
  @DisplayName("requests with unknown parents are placed one at a time, least first, each before the next fallback")
  void fallbacksOneAtATime() {
    Request late = submit(NewRequest.master("x2", "gone-2").withPr(2));
    Request early = submit(NewRequest.master("x1", "gone-1").withPr(1));
    Request childOfEarly = submit(NewRequest.master("x1-child", "x1").withPr(8));
    assertThat(queue.order().ready()).containsExactly(early, childOfEarly, late);
  }

  @Test
  @DisplayName("knownTags: the tags some request has, of any kind and state; a cancelled parent counts as done")
  void knownTags() {
    register("c1", "x86");
    Request finished = running(NewRequest.master("k1", null));
    completeAll("c1");
    store.completeIfDone(finished.id());
    Request dropped = submit(NewRequest.master("k2", "k1"));
    queue.cancel(dropped.id(), "superseded");
    submit(NewRequest.release("v1"));
    Request open = submit(NewRequest.tryWithArtifacts(3, "k3", "k2"));
    assertThat(store.knownTags(List.of("k1", "k2", "v1", "k3", "nobody"))).containsExactlyInAnyOrder("k1", "k2", "v1",
        "k3");
    assertThat(store.knownTags(List.of())).isEmpty();
    assertThat(queue.order().placed()).filteredOn(p -> p.request().id().equals(open.id()))
        .extracting(QueueOrder.Placed::basis).containsExactly(QueueOrder.Basis.PARENT_DONE);
  }

  @Test
  @DisplayName("the order of the rest does not change when the head completes")
  void stableWhenHeadCompletes() {
    register("c1", "x86");
    Request head = running(NewRequest.master("m1", "m0"));
    submit(NewRequest.tryWithArtifacts(3, "t1", "m1"));
    submit(NewRequest.master("m2", "m1").withPr(8));
    submit(NewRequest.tryWithArtifacts(4, "t2", "m2"));
    List<Request> before = queue.order().ready();
    completeAll("c1");
    clock.advance(Duration.ofSeconds(1));
    assertThat(store.completeIfDone(head.id()).status())
        .isEqualTo(CompletionResult.Status.COMPLETED);
    assertThat(queue.order().ready()).isEqualTo(before);
  }

  @Test
  @DisplayName("the status view says how many are ahead and about when each completes")
  void status() {
    Request head = running(NewRequest.master("m1", "m0"));
    Request next = submit(NewRequest.master("m2", "m1"));
    clock.advance(Duration.ofMinutes(20));
    QueueStatus status = queue.status();
    assertThat(status.entries()).hasSize(2);
    assertThat(status.entries().get(0).placed().request().id()).isEqualTo(head.id());
    assertThat(status.entries().get(0).eta()).contains(Duration.ofMinutes(40));
    assertThat(status.entries().get(1).ahead()).isEqualTo(1);
    assertThat(status.entries().get(1).eta()).contains(Duration.ofMinutes(100));
    assertThat(status.entries().get(1).summary())
        .isEqualTo("master m2: 1 ahead, done in about 1 h 40 min (parent m1 in progress (counts as done))");
    assertThat(next.state()).isEqualTo(RequestState.ARTIFACTS_READY);
  }

  @Test
  @DisplayName("the scans read what the lists read, and legal rows are never impossible")
  void scans() {
    register("c1", "x86");
    Request head = running(NewRequest.master("m1", "m0"));
    submit(NewRequest.master("m2", "m1"));
    submit(NewRequest.tryAwaitingArtifacts(4));
    RequestScan open = store.scanOpenRequests();
    assertThat(open.requests()).isEqualTo(store.openRequests()).hasSize(3);
    assertThat(open.impossibleRows()).isEmpty();
    RequestScan running = store.scanInProgressRequests();
    assertThat(running.requests()).isEqualTo(store.inProgressRequests()).extracting(Request::id)
        .containsExactly(head.id());
    assertThat(running.impossibleRows()).isEmpty();
    assertThat(queue.status().impossibleRows()).isEmpty();
    completeAll("c1");
    clock.advance(LEASE.multipliedBy(2));
    TickResult tick = queue.tick();
    assertThat(tick.impossibleRows()).isEmpty();
    assertThat(tick.expired().impossibleRows()).isEmpty();
  }
}
