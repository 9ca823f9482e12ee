package dev.cipolicy.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/** Properties of the queue order over random request sets with random parents (cycles included). */
class QueueOrderProperties {
  private static final Instant T0 = Instant.parse("2026-01-05T09:00:00Z");

  /** Random open requests: each int list element describes one request. */
  private static Gen<List<Request>> requests() {
    return lists().of(integers().between(0, 1_000_000)).ofSizeBetween(0, 40).map(seeds -> {
      List<Request> out = new ArrayList<>();
      for (int i = 0; i < seeds.size(); i++) {
        int s = seeds.get(i);
        String parent = s % 7 == 0 ? null : "s" + (s / 7) % (seeds.size() + 2);
        String tag = "s" + i;
        if (tag.equals(parent)) {
          parent = null;
        }
        NewRequest n = switch (s % 5) {
          case 0 -> NewRequest.release("r" + i);
          case 1 -> NewRequest.tryWithArtifacts(1 + s % 4, tag, parent == null ? "none" : parent);
          case 2 -> NewRequest.tryAwaitingArtifacts(1 + s % 4);
          default -> NewRequest.master(tag, parent).withPr(1 + s % 6);
        };
        Request r = Request.created(RequestId.of(i + 1), n, T0.plusSeconds(s % 3));
        if (s % 11 == 0 && r.state() == RequestState.ARTIFACTS_READY) {
          r = r.started(T0.plusSeconds(s % 5), null);
        }
        out.add(r);
      }
      return out;
    });
  }

  @Test
  void everyOpenRequestIsPlacedOnceWhateverTheInputOrder() {
    qt().forAll(requests(), integers().all()).checkAssert((requests, shuffle) -> {
      QueueOrder order = QueueOrder.of(requests);
      List<Request> shuffled = new ArrayList<>(requests);
      Collections.shuffle(shuffled, new Random(shuffle));
      assertThat(QueueOrder.of(shuffled).placed()).isEqualTo(order.placed());
      List<Request> placed = new ArrayList<>(order.requests());
      order.waiting().forEach(p -> placed.add(p.request()));
      assertThat(placed).containsExactlyInAnyOrderElementsOf(requests);
    });
  }

  @Test
  void aReadyRequestComesAfterItsReadyParentUnlessACycleIsBroken() {
    qt().forAll(requests()).checkAssert(requests -> {
      QueueOrder order = QueueOrder.of(requests);
      Map<String, Integer> position = new java.util.HashMap<>();
      List<Request> ordered = order.requests();
      for (int i = 0; i < ordered.size(); i++) {
        int index = i;
        ordered.get(i).tag().ifPresent(t -> position.put(t, index));
      }
      Set<String> promoted = order.placed().stream().filter(p -> p.reason().contains("promoted"))
          .map(p -> p.request().tag().orElseThrow()).collect(Collectors.toCollection(HashSet::new));
      for (int i = 0; i < ordered.size(); i++) {
        Request r = ordered.get(i);
        if (r.state() == RequestState.ARTIFACTS_READY && r.parentSha().isPresent()
            && !promoted.contains(r.tag().orElseThrow())) {
          Integer parent = position.get(r.parentSha().get());
          if (parent != null) {
            assertThat(parent).as("parent of %s", r.label()).isLessThan(i);
          }
        }
      }
    });
  }

  @Test
  void aRequestWithAnUnknownParentComesAfterEveryRequestWithADoneParent() {
    qt().forAll(requests()).checkAssert(requests -> {
      List<QueueOrder.Placed> placed = order(requests).placed();
      Map<String, Integer> position = new java.util.HashMap<>();
      for (int i = 0; i < placed.size(); i++) {
        int index = i;
        placed.get(i).request().tag().ifPresent(t -> position.put(t, index));
      }
      int firstFallback = -1;
      for (int i = 0; i < placed.size(); i++) {
        QueueOrder.Placed p = placed.get(i);
        if (p.basis() == QueueOrder.Basis.PARENT_UNKNOWN) {
          if (firstFallback < 0) {
            firstFallback = i;
          }
          continue;
        }
        if (firstFallback >= 0 && p.basis() != QueueOrder.Basis.CYCLE_PROMOTED) {
          // After a fallback, only descendants of fallbacks (or of cycles) are placed: their parent is a
          // ready request placed at or after the first fallback.
          assertThat(p.basis()).as("basis of %s after a fallback", p.request().label())
              .isEqualTo(QueueOrder.Basis.AFTER_PARENT);
          assertThat(position.get(p.request().parentSha().orElseThrow())).as("parent of %s", p.request().label())
              .isGreaterThanOrEqualTo(firstFallback);
        }
      }
    });
  }

  @Test
  void knownTagsMeanTheSameAsTheClosedRequestsThatHaveThem() {
    qt().forAll(requests()).checkAssert(requests -> {
      List<Request> open = requests.stream().filter(r -> r.state().isOpen()).toList();
      Set<String> closedTags = requests.stream().filter(r -> !r.state().isOpen())
          .flatMap(r -> r.tag().stream()).collect(Collectors.toSet());
      assertThat(QueueOrder.of(open, closedTags).placed()).isEqualTo(QueueOrder.of(requests).placed());
      Set<String> outside = QueueOrder.parentTagsOutside(open);
      Set<String> relevant = closedTags.stream().filter(outside::contains).collect(Collectors.toSet());
      assertThat(QueueOrder.of(open, relevant).placed()).isEqualTo(QueueOrder.of(requests).placed());
    });
  }

  private static QueueOrder order(List<Request> requests) {
    return QueueOrder.of(requests);
  }

  @Test
  void theReadyOrderDoesNotChangeWhenARequestInProgressCompletes() {
    qt().forAll(requests()).checkAssert(requests -> {
      QueueOrder order = QueueOrder.of(requests);
      for (Request r : requests) {
        if (r.state() == RequestState.IN_PROGRESS) {
          List<Request> after = new ArrayList<>(requests);
          after.set(after.indexOf(r), r.completed(Outcome.SUCCESS, T0.plusSeconds(60)));
          assertThat(QueueOrder.of(after).ready()).isEqualTo(order.ready());
        }
      }
    });
  }

  @Test
  void statusListsEveryRequestWithNonDecreasingEtas() {
    qt().forAll(requests(), integers().between(1, 4)).checkAssert((requests, k) -> {
      QueueStatus status = QueueOrder.of(requests).status(T0.plusSeconds(600), java.time.Duration.ofMinutes(30), k);
      assertThat(status.entries()).hasSize((int) requests.stream().filter(r -> r.state().isOpen()).count());
      List<java.time.Duration> etas = status.entries().stream()
          .filter(e -> e.placed().section() != QueueOrder.Section.IN_PROGRESS && e.eta().isPresent())
          .map(e -> e.eta().get()).toList();
      assertThat(etas).isSortedAccordingTo(java.util.Comparator.naturalOrder());
      assertThat(status.lines()).allSatisfy(line -> assertThat(line).isNotBlank());
      Function<QueueStatus.Entry, Integer> ahead = QueueStatus.Entry::ahead;
      assertThat(status.entries().stream().filter(e -> e.position() > 0).map(ahead).toList()).isSorted();
    });
  }
}
