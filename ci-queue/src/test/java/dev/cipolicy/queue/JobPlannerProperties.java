package dev.cipolicy.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Whatever a host's planner plans, the tick creates exactly those jobs, and backfill gives the parent exactly
 * the planned jobs it lacks (the others count as existing), on the in-memory store.
 */
class JobPlannerProperties {

  private static final List<String> GROUPS = List.of("compile", "runtime", "rustc", "doc");
  private static final List<String> TAGS = List.of("x86-0", "x86-1", "arm-0");

  /** A random plan: a random subset of groups × tags, each optional or not, in a random order. */
  private static List<JobSpec> plan(Random rnd) {
    List<JobSpec> specs = new ArrayList<>();
    for (String g : GROUPS) {
      for (String t : TAGS) {
        if (rnd.nextInt(3) == 0) {
          specs.add(rnd.nextBoolean() ? JobSpec.optionalJob(g, t) : JobSpec.required(g, t));
        }
      }
    }
    Collections.shuffle(specs, rnd);
    return specs;
  }

  @Test
  void theTickCreatesThePlannedJobsAndBackfillsTheParentWithThoseItLacks() {
    qt().withExamples(200).forAll(longs().all()).checkAssert(seed -> {
      Random rnd = new Random(seed);
      Map<String, List<JobSpec>> plans = Map.of("m1", plan(rnd), "t1", plan(rnd));
      JobQueue queue = JobQueue.inMemory(Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC),
          QueueSettings.builder().planner(r -> plans.get(r.tag().orElseThrow())).build());
      TAGS.forEach(t -> queue.registerCollector("c-" + t, t, true));

      Request parent = queue.submit(NewRequest.master("m1", null)).request();
      StartResult first = queue.tick().started().get(0);
      assertThat(first.jobs()).extracting(Job::spec).containsExactlyElementsOf(plans.get("m1"));
      for (String t : TAGS) {
        for (int i = 0; i < 10; i++) {
          ClaimResult claims = queue.claim("c-" + t, 20);
          if (claims.claims().isEmpty()) {
            break;
          }
          for (Claim c : claims.claims()) {
            assertThat(queue.complete(c.lease()).status()).isEqualTo(LeaseStatus.OK);
          }
        }
      }
      if (!first.jobs().isEmpty()) {
        assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(parent.id());
      }

      queue.submit(NewRequest.tryWithArtifacts(7, "t1", "m1"));
      StartResult child = queue.tick().started().get(0);
      List<JobSpec> planned = plans.get("t1");
      assertThat(child.jobs()).extracting(Job::spec).containsExactlyElementsOf(planned);
      if (planned.isEmpty()) {
        assertThat(child.backfill().status()).isEqualTo(Backfill.Status.NOT_REQUESTED);
        return;
      }
      List<JobSpec> lacking = planned.stream()
          .filter(s -> plans.get("m1").stream().noneMatch(s::sameJobAs)).toList();
      assertThat(child.backfill().status()).isEqualTo(Backfill.Status.ENQUEUED);
      assertThat(child.backfill().created()).extracting(Job::spec).containsExactlyElementsOf(lacking);
      assertThat(child.backfill().created()).allSatisfy(j -> assertThat(j.requestId()).isEqualTo(parent.id()));
      assertThat(child.backfill().existing()).isEqualTo(planned.size() - lacking.size());
    });
  }
}
