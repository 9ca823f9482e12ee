package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.CollectorStatus;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.StartCommand;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for clocks: a store measures lease expiry, heartbeat age and collector liveness on its
 * own clock, so no caller can bring its own time. The store's interface takes no instant, and engines on
 * many hosts (sites ticking, collectors claiming as fast as they can) neither expire a live lease, nor spend
 * a crash budget, nor take a live collector's jobs before the store's clock says so.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Caller clocks" group.
 */
abstract class CallerClocksContract extends KitGroup {

  CallerClocksContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  private static boolean isTime(Class<?> type) {
    return Instant.class.isAssignableFrom(type) || InstantSource.class.isAssignableFrom(type)
        || Clock.class.isAssignableFrom(type);
  }

  @Test
  @DisplayName("no store operation and no command takes an instant or a clock from its caller")
  void noCallerTime() {
    List<String> offending = new ArrayList<>();
    for (Method method : QueueStore.class.getMethods()) {
      if (java.lang.reflect.Modifier.isStatic(method.getModifiers())) {
        continue; // QueueStore.truncate, a helper that changes nothing
      }
      for (Class<?> type : method.getParameterTypes()) {
        if (isTime(type)) {
          offending.add(method.toString());
        }
      }
    }
    for (Class<?> command : List.of(ClaimCommand.class, StartCommand.class)) {
      // The fields of a command are its public accessors.
      for (Method field : command.getDeclaredMethods()) {
        if (java.lang.reflect.Modifier.isPublic(field.getModifiers()) && field.getParameterCount() == 0
            && isTime(field.getReturnType())) {
          offending.add(command.getSimpleName() + "." + field.getName());
        }
      }
    }
    for (Method method : JobQueue.class.getMethods()) {
      for (Class<?> type : method.getParameterTypes()) {
        if (isTime(type) && !method.getName().equals("inMemory")) {
          offending.add(method.toString());
        }
      }
    }
    assertThat(offending).isEmpty();
  }

  @Test
  @DisplayName("sites and collectors hammering the store before expiry neither expire a live lease, nor spend"
      + " a crash budget, nor take the holder's jobs")
  void busyCallersCannotExpireLiveLeases() {
    register("c1", "x86");
    register("c2", "x86");
    running(NewRequest.master("m1", null));
    List<Claim> held = queue.claim("c1", 2).claims();
    assertThat(held).hasSize(2);
    // Three engines: two sites and a fast collector, as if on hosts whose clocks run three leases ahead; they
    // bring no time of their own, so only the store's clock counts.
    List<JobQueue> others = List.of(JobQueue.of(store, settings()), JobQueue.of(store, settings()),
        JobQueue.of(store, settings()));
    clock.advance(LEASE.minus(Duration.ofNanos(1_000)));
    for (int round = 0; round < 30; round++) {
      for (JobQueue other : others) {
        assertThat(other.tick().expired().isEmpty()).as("round %s: the tick expired nothing", round).isTrue();
        assertThat(other.claim("c2", 4).claims()).as("round %s: c2 takes none of c1's jobs", round).isEmpty();
        assertThat(store.expireLeases(0).isEmpty()).as("round %s: nothing is expired", round).isTrue();
      }
    }
    for (Claim claim : held) {
      Job job = reload(claim.job());
      assertThat(job.crashRescues()).isZero();
      assertThat(job.lease()).contains(claim.lease());
    }
    assertThat(queue.complete(held.get(0).lease()).status()).isEqualTo(LeaseStatus.OK);
    clock.advance(Duration.ofNanos(1_000));
    assertThat(queue.tick().expired().rescued()).extracting(Job::id).containsExactly(held.get(1).job().id());
    assertThat(queue.complete(held.get(1).lease()).status()).isEqualTo(LeaseStatus.STALE_LEASE);
  }

  @Test
  @DisplayName("a collector's online status and its affinity are judged on the store's clock")
  void livenessOnTheStoreClock() {
    register("c1", "x86");
    register("c2", "x86");
    clock.advance(LEASE.minusSeconds(1));
    assertThat(queue.collectors()).allSatisfy(c -> assertThat(c.state()).isEqualTo(CollectorStatus.State.ONLINE));
    assertThat(store.now()).isEqualTo(QueueStore.truncate(clock.instant()));
    clock.advance(Duration.ofSeconds(2));
    assertThat(queue.collectors()).allSatisfy(c -> assertThat(c.state()).isEqualTo(CollectorStatus.State.OFFLINE));
  }
}
