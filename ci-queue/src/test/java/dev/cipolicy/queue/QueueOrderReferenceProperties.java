package dev.cipolicy.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.cipolicy.queue.QueueOrder.Basis;
import dev.cipolicy.queue.QueueOrder.Placed;
import dev.cipolicy.queue.QueueOrder.Section;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * {@link QueueOrder} against a reference written straight from the documented rules (quadratic, no indexes, no
 * arrays): random request sets with master chains, try requests on random parents, unknown parents (fallbacks),
 * parent cycles, repeated tags, ties on PR number, kind and creation time, requests in progress, waiting
 * and closed. Levels wider than the sorter's insertion-sort cutoff occur, so its merge path is covered.
 */
class QueueOrderReferenceProperties {
  private static final Instant T0 = Instant.parse("2026-01-05T09:00:00Z");

  @Test
  void theOrderIsTheReferenceOrder() {
    qt().withExamples(600).forAll(longs().all(), integers().between(0, 160), integers().between(0, 3))
        .checkAssert((seed, size, shape) -> {
          List<Request> requests = requests(new Random(seed), size, shape);
          QueueOrder order = QueueOrder.of(requests);
          Reference expected = new Reference(requests);
          assertThat(order.placed()).as("placed, %d requests, shape %d", size, shape).isEqualTo(expected.placed);
          assertThat(order.waiting()).as("waiting").isEqualTo(expected.waiting);
        });
  }

  @Test
  void theReferenceSeesWhatTheGeneratorMeansToProduce() {
    // Guards the property above against a generator that drifted into trivial inputs.
    Set<Basis> bases = new HashSet<>();
    int maxLevel = 0;
    int maxLevelWidth = 0;
    Random random = new Random(7);
    for (int i = 0; i < 200; i++) {
      Reference reference = new Reference(requests(random, 20 + random.nextInt(140), i % 4));
      Map<Integer, Integer> width = new HashMap<>();
      for (Placed p : reference.placed) {
        bases.add(p.basis());
        if (p.section() == Section.READY) {
          maxLevel = Math.max(maxLevel, p.level());
          maxLevelWidth = Math.max(maxLevelWidth, width.merge(p.level(), 1, Integer::sum));
        }
      }
      reference.waiting.forEach(p -> bases.add(p.basis()));
    }
    assertThat(bases).containsExactlyInAnyOrder(Basis.values());
    assertThat(maxLevel).isGreaterThan(10);
    assertThat(maxLevelWidth).isGreaterThan(40);
  }

  /**
   * Random requests. Shape 0: mostly one master chain with try requests on it; 1: mostly roots, completed
   * parents (one wide level) and unknown parents; 2: parents anywhere, cycles likely; 3: a mix with repeated tags.
   */
  private static List<Request> requests(Random random, int size, int shape) {
    List<Request> out = new ArrayList<>(size);
    List<String> tags = new ArrayList<>();
    Set<String> doneParents = new java.util.TreeSet<>();
    String lastMaster = null;
    // Ids in random order, so that the id tie-break differs from the input order.
    List<Long> ids = new ArrayList<>();
    for (long id = 1; id <= size; id++) {
      ids.add(id);
    }
    Collections.shuffle(ids, random);
    for (int i = 0; i < size; i++) {
      String tag = shape == 3 && !tags.isEmpty() && random.nextInt(8) == 0 ? pick(random, tags) : "s" + i;
      String parent = switch (shape) {
        case 0 -> random.nextInt(10) < 7 ? lastMaster : random.nextInt(3) == 0 ? null : "gone" + random.nextInt(5);
        case 1 -> random.nextInt(4) == 0 ? null : random.nextInt(2) == 0 && !tags.isEmpty() ? pick(random, tags)
            : random.nextInt(4) == 0 ? "gone" + random.nextInt(50) : "done" + random.nextInt(50);
        case 2 -> "s" + random.nextInt(size + 3);
        default -> random.nextInt(5) == 0 ? null : tags.isEmpty() || random.nextInt(4) == 0 ? "gone" + i
            : pick(random, tags);
      };
      if (tag.equals(parent)) {
        parent = null;
      }
      long pr = 1 + random.nextInt(shape == 1 ? 3 : 6);
      int what = random.nextInt(20);
      NewRequest request;
      if (what < 2) {
        request = NewRequest.release("r" + i);
      } else if (what < 4) {
        request = NewRequest.tryAwaitingArtifacts(pr);
      } else if (what < 11) {
        request = NewRequest.master(tag, parent);
        if (random.nextInt(5) > 0) {
          request = NewRequest.master(tag, parent).withPr(pr);
        }
        lastMaster = tag;
        tags.add(tag);
      } else {
        request = NewRequest.tryWithArtifacts(pr, tag, parent == null ? "gone" : parent);
        tags.add(tag);
      }
      Instant created = T0.plusSeconds(random.nextInt(3)).plusNanos(random.nextInt(2) * 500);
      Request r = Request.created(RequestId.of(ids.get(i)), request, created);
      if (r.state() == RequestState.ARTIFACTS_READY) {
        int fate = random.nextInt(30);
        Instant later = T0.plusSeconds(random.nextInt(4));
        if (fate < 3) {
          r = r.started(later, null);
        } else if (fate == 3) {
          r = r.started(later, null).completed(Outcome.SUCCESS, later.plusSeconds(9));
        } else if (fate == 4) {
          r = r.cancelled("closed", later);
        }
      }
      out.add(r);
      r.parentSha().filter(p -> p.startsWith("done")).ifPresent(doneParents::add);
    }
    // The "done" parents are completed requests, so their children are roots of one wide level.
    long id = size;
    for (String tag : doneParents) {
      out.add(Request.created(RequestId.of(++id), NewRequest.master(tag, null), T0).started(T0, null)
          .completed(Outcome.SUCCESS, T0.plusSeconds(1)));
    }
    return out;
  }

  private static String pick(Random random, List<String> from) {
    return from.get(random.nextInt(from.size()));
  }

  /** The documented order spelled out directly: filter, sort and search lists again and again. */
  private static final class Reference {
    final List<Placed> placed = new ArrayList<>();
    final List<Placed> waiting = new ArrayList<>();

    Reference(List<Request> requests) {
      Comparator<Request> byCreation = Comparator.comparing(Request::createdAt).thenComparing(Request::id);
      Comparator<Request> inLevel = Comparator.comparingLong((Request r) -> r.pr().orElse(0))
          .thenComparingInt(r -> r.kind() == RequestKind.MASTER ? 0 : 1).thenComparing(byCreation);
      List<Request> running = requests.stream().filter(r -> r.state() == RequestState.IN_PROGRESS)
          .sorted(Comparator.comparing((Request r) -> r.startedAt().orElseThrow()).thenComparing(Request::id))
          .toList();
      running.forEach(r -> placed.add(new Placed(r, Section.IN_PROGRESS, 0, Basis.IN_PROGRESS)));
      requests.stream().filter(r -> r.state() == RequestState.ARTIFACTS_READY && r.kind() == RequestKind.RELEASE)
          .sorted(byCreation).forEach(r -> placed.add(new Placed(r, Section.RELEASE, 0, Basis.RELEASE)));
      requests.stream().filter(r -> r.state() == RequestState.WAITING_FOR_ARTIFACTS).sorted(byCreation)
          .forEach(r -> waiting.add(new Placed(r, Section.WAITING_FOR_ARTIFACTS, 0, Basis.WAITING_FOR_ARTIFACTS)));

      List<Request> ready = requests.stream()
          .filter(r -> r.state() == RequestState.ARTIFACTS_READY && r.kind() != RequestKind.RELEASE).toList();
      // A request's parent is the ready request with its parent SHA as tag; of several, the last given.
      Map<String, Request> readyByTag = new HashMap<>();
      ready.forEach(r -> readyByTag.put(r.tag().orElseThrow(), r));
      Map<Request, @Nullable Request> parentOf = new IdentityHashMap<>();
      ready.forEach(r -> parentOf.put(r, r.parentSha().map(readyByTag::get).orElse(null)));
      Set<String> runningTags = new HashSet<>();
      running.forEach(r -> r.tag().ifPresent(runningTags::add));
      // A parent SHA is unknown when no given request (of any state) has it as its tag.
      Set<String> allTags = new HashSet<>();
      requests.forEach(r -> r.tag().ifPresent(allTags::add));
      List<Request> fallbacks = ready.stream().filter(r -> r.parentSha().isPresent()
          && !allTags.contains(r.parentSha().get())).toList();

      List<Request> unplaced = new ArrayList<>(ready);
      List<Request> level = unplaced.stream().filter(r -> parentOf.get(r) == null && !fallbacks.contains(r))
          .toList();
      int depth = 0;
      while (!unplaced.isEmpty()) {
        Optional<Request> fallback = unplaced.stream().filter(fallbacks::contains).min(inLevel);
        if (level.isEmpty() && fallback.isPresent()) {
          // No request with a done or placed parent is left: the least one with an unknown parent goes next.
          Request least = fallback.get();
          placed.add(new Placed(least, Section.READY, depth, Basis.PARENT_UNKNOWN));
          unplaced.remove(least);
          level = unplaced.stream().filter(r -> parentOf.get(r) == least).toList();
          depth++;
          continue;
        }
        if (level.isEmpty()) {
          // Only parent cycles are left: the least request in level order goes next.
          Request least = unplaced.stream().min(inLevel).orElseThrow();
          placed.add(new Placed(least, Section.READY, depth, Basis.CYCLE_PROMOTED));
          unplaced.remove(least);
          level = unplaced.stream().filter(r -> parentOf.get(r) == least).toList();
          depth++;
          continue;
        }
        List<Request> sorted = level.stream().sorted(inLevel).toList();
        for (Request r : sorted) {
          placed.add(new Placed(r, Section.READY, depth, basis(r, depth, runningTags)));
          unplaced.remove(r);
        }
        level = unplaced.stream().filter(r -> sorted.stream().anyMatch(p -> p == parentOf.get(r))).toList();
        depth++;
      }
    }

    private static Basis basis(Request r, int depth, Set<String> runningTags) {
      if (r.parentSha().isEmpty()) {
        return Basis.NO_PARENT;
      }
      if (depth > 0) {
        return Basis.AFTER_PARENT;
      }
      return runningTags.contains(r.parentSha().get()) ? Basis.PARENT_IN_PROGRESS : Basis.PARENT_DONE;
    }
  }
}
