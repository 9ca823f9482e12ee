package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import dev.cipolicy.api.concurrency.ConcurrencyAction;
import dev.cipolicy.api.concurrency.ConcurrencyDecision.NewRun;
import dev.cipolicy.api.concurrency.ConcurrencyDecision;
import dev.cipolicy.api.concurrency.ConcurrencyEvent;
import dev.cipolicy.api.concurrency.ConcurrencyEventType;
import dev.cipolicy.api.concurrency.GroupKeySource;
import dev.cipolicy.api.concurrency.InFlightRun;
import dev.cipolicy.api.concurrency.RunDecision;
import dev.cipolicy.api.concurrency.WorkflowConcurrency;
import dev.cipolicy.api.policy.Policy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * The invariants for any in-flight runs and any event, on the reference policy and on variants
 * whose workflows queue or ignore every event type they may.
 */
class ConcurrencyPolicyProperties {
  private static final List<String> DECLARED = List.of("pr-test", "pr-test-rocm");
  private static final List<String> CRONS = List.of("0 15 * * 0-5", "0 15 * * 6");
  private static final List<String> REFS = List.of("refs/heads/release/v0.5", "refs/tags/v0.5.0");
  private static final List<ConcurrencyPolicy> POLICIES = List.of(
      ConcurrencyPolicy.of(ReferencePolicy.resolver()),
      variant(ConcurrencyAction.QUEUE, ConcurrencyAction.IGNORE),
      variant(ConcurrencyAction.IGNORE, ConcurrencyAction.IGNORE),
      variant(ConcurrencyAction.CANCEL, ConcurrencyAction.CANCEL));

  /** Both workflows with {@code others} for every type but closed and merged, and {@code merged}. */
  private static ConcurrencyPolicy variant(ConcurrencyAction others, ConcurrencyAction merged) {
    List<WorkflowConcurrency> ws = new ArrayList<>();
    for (String name : DECLARED) {
      ws.add(WorkflowConcurrency.builder().name(name).groupPrefix(name + "-")
          .putActions(ConcurrencyEventType.SUPERSEDED, others)
          .putActions(ConcurrencyEventType.SCHEDULED, others)
          .putActions(ConcurrencyEventType.DISPATCHED, others)
          .putActions(ConcurrencyEventType.MERGED, merged)
          .build());
    }
    return ConcurrencyPolicy.of(Policy.builder().from(ReferencePolicy.loaded().policy()).workflows(ws).build());
  }

  private static Gen<ConcurrencyPolicy> policies() {
    return Generate.pick(POLICIES);
  }

  private static Gen<String> runIds() {
    return integers().between(1, 40).map(i -> Integer.toString(i));
  }

  private static Gen<InFlightRun> run() {
    Gen<String> workflow = Generate.pick(List.of("pr-test", "pr-test-rocm", "docs"));
    Gen<Integer> kind = integers().between(0, 3);
    Gen<Integer> pr = integers().between(1, 4);
    Gen<Integer> which = integers().between(0, 1);
    return runIds().zip(workflow, kind, pr, which, (id, w, k, n, i) -> {
      InFlightRun.Builder b = InFlightRun.builder().runId(id).workflow(w);
      switch (k) {
        case 0 -> b.prNumber(n);
        case 1 -> b.cron(CRONS.get(i));
        case 2 -> b.releaseRef(REFS.get(i));
        default -> { }
      }
      return b.build();
    });
  }

  /** In-flight runs with distinct run ids, in generated order. */
  private static Gen<List<InFlightRun>> runs() {
    return lists().of(run()).ofSizeBetween(0, 12).map(l -> {
      Set<String> seen = new HashSet<>();
      return l.stream().filter(r -> seen.add(r.runId())).toList();
    });
  }

  private static Gen<ConcurrencyEvent> prEvent(List<ConcurrencyEventType> types) {
    return Generate.pick(types).zip(Generate.pick(DECLARED), integers().between(1, 4), runIds(),
        (t, w, n, id) -> ConcurrencyEvent.builder().type(t).workflow(w).prNumber(n).runId(id).build());
  }

  private static Gen<ConcurrencyEvent> anyEvent() {
    Gen<ConcurrencyEvent> schedule = Generate.pick(DECLARED).zip(Generate.pick(CRONS), runIds(),
        (w, c, id) -> ConcurrencyEvent.builder().type(ConcurrencyEventType.SCHEDULED).workflow(w).cron(c).runId(id)
            .build());
    Gen<ConcurrencyEvent> release = Generate.pick(DECLARED).zip(Generate.pick(REFS), runIds(),
        (w, ref, id) -> ConcurrencyEvent.builder().type(ConcurrencyEventType.DISPATCHED).workflow(w).releaseRef(ref)
            .runId(id).build());
    Gen<ConcurrencyEvent> manual = Generate.pick(DECLARED).zip(runIds(),
        (w, id) -> ConcurrencyEvent.builder().type(ConcurrencyEventType.DISPATCHED).workflow(w).runId(id).build());
    Gen<ConcurrencyEvent> labeled = prEvent(List.of(ConcurrencyEventType.SUPERSEDED))
        .zip(labels(), (e, l) -> ConcurrencyEvent.builder().from(e).label(l).build());
    return prEvent(List.of(ConcurrencyEventType.values()).subList(0, 3))
        .mix(schedule, 20).mix(release, 20).mix(manual, 20).mix(labeled, 25);
  }

  private static Gen<String> labels() {
    return Generate.pick(List.of("run-ci-megatron", "run-ci-x", "nightly", "bypass-fastfail", "documentation",
        "megatron", "RUN-CI-megatron", "run-ci-", "run-ci-a b", "good first issue", "run-ci-$(id)"))
        .mix(strings().allPossible().ofLengthBetween(1, 12), 40);
  }

  private static boolean managed(InFlightRun r) {
    return DECLARED.contains(r.workflow());
  }

  @Test
  void aCloseAlwaysEndsEveryRunOfThatPrInEveryWorkflow() {
    qt().forAll(policies(), prEvent(List.of(ConcurrencyEventType.CLOSED)), runs()).checkAssert((p, e, runs) -> {
      ConcurrencyDecision d = p.decide(e, runs);
      assertThat(d.newRun()).isEqualTo(NewRun.CANCELLATION_ONLY);
      for (int i = 0; i < runs.size(); i++) {
        InFlightRun r = runs.get(i);
        boolean ofThePr = r.prNumber().isPresent() && r.prNumber().getAsLong() == e.prNumber().getAsLong();
        boolean expectCancel = ofThePr && managed(r) && !r.runId().equals(e.runId());
        assertThat(d.runs().get(i).action()).as(d.runs().get(i).reason())
            .isEqualTo(expectCancel ? RunDecision.Action.CANCEL : RunDecision.Action.KEEP);
      }
    });
  }

  @Test
  void aPrEventNeverCancelsAScheduledReleaseManualOrOtherPrsRun() {
    qt().forAll(policies(), prEvent(List.of(ConcurrencyEventType.SUPERSEDED, ConcurrencyEventType.CLOSED,
        ConcurrencyEventType.MERGED)), runs()).checkAssert((p, e, runs) -> {
          ConcurrencyDecision d = p.decide(e, runs);
          for (int i = 0; i < runs.size(); i++) {
            if (d.runs().get(i).action() == RunDecision.Action.CANCEL) {
              InFlightRun r = runs.get(i);
              assertThat(r.keySource()).isEqualTo(GroupKeySource.PR_NUMBER);
              assertThat(r.prNumber()).isEqualTo(e.prNumber());
              if (e.type() == ConcurrencyEventType.SUPERSEDED) {
                assertThat(r.workflow()).isEqualTo(e.workflow());
              }
            }
          }
        });
  }

  @Test
  void aManualDispatchNeverCancelsAnything() {
    qt().forAll(policies(), Generate.pick(DECLARED), runIds(), runs()).checkAssert((p, w, id, runs) -> {
      ConcurrencyDecision d = p.decide(ConcurrencyEvent.builder().type(ConcurrencyEventType.DISPATCHED).workflow(w)
          .runId(id).build(), runs);
      assertThat(d.cancelledRunIds()).isEmpty();
      assertThat(d.newRun()).isIn(NewRun.START, NewRun.IGNORED);
    });
  }

  @Test
  void aNonCanonicalLabelEventNeverCancelsNorStartsARun() {
    PolicyResolver resolver = ReferencePolicy.resolver();
    qt().forAll(policies(), prEvent(List.of(ConcurrencyEventType.SUPERSEDED)), labels(), runs())
        .assuming((p, e, label, runs) -> resolver.canonicalPrLabels(List.of(label)).isEmpty())
        .checkAssert((p, e, label, runs) -> {
          ConcurrencyDecision d = p.decide(
              ConcurrencyEvent.builder().from(e).label(label).build(), runs);
          assertThat(d.newRun()).isEqualTo(NewRun.IGNORED);
          assertThat(d.cancelledRunIds()).isEmpty();
        });
  }

  @Test
  void onlyRunsOfTheSameWorkflowAndTypedKeyAreCancelledOutsideCloseAndMerge() {
    qt().forAll(policies(), anyEvent(), runs())
        .assuming((p, e, runs) -> !e.type().endsPullRequest())
        .checkAssert((p, e, runs) -> {
          ConcurrencyDecision d = p.decide(e, runs);
          for (int i = 0; i < runs.size(); i++) {
            if (d.runs().get(i).action() == RunDecision.Action.CANCEL) {
              InFlightRun r = runs.get(i);
              assertThat(r.workflow()).isEqualTo(e.workflow());
              assertThat(r.keySource()).isEqualTo(e.keySource());
              assertThat(r.keySuffix()).isEqualTo(e.keySuffix());
              assertThat(r.runId()).isNotEqualTo(e.runId());
            }
          }
        });
  }

  @Test
  void decisionsAreDeterministicAndKeepTheInputOrder() {
    qt().forAll(policies(), anyEvent(), runs()).checkAssert((p, e, runs) -> {
      ConcurrencyDecision a = p.decide(e, runs);
      ConcurrencyDecision b = p.decide(e, new ArrayList<>(runs));
      assertThat(a).isEqualTo(b);
      assertThat(a.explanation().toJson()).isEqualTo(b.explanation().toJson());
      assertThat(a.runs()).extracting(RunDecision::runId)
          .containsExactlyElementsOf(runs.stream().map(InFlightRun::runId).toList());
      assertThat(a.runs()).allSatisfy(r -> assertThat(r.reason()).isNotBlank());
      assertThat(a.groupKey()).isEqualTo(p.groupKey(e));
    });
  }
}
