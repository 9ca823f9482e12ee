package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.UnknownScheduleException;
import dev.cipolicy.api.UnknownWorkflowException;
import dev.cipolicy.api.concurrency.ConcurrencyAction;
import dev.cipolicy.api.concurrency.ConcurrencyDecision.NewRun;
import dev.cipolicy.api.concurrency.ConcurrencyDecision;
import dev.cipolicy.api.concurrency.ConcurrencyEvent;
import dev.cipolicy.api.concurrency.ConcurrencyEventType;
import dev.cipolicy.api.concurrency.InFlightRun;
import dev.cipolicy.api.concurrency.RunDecision;
import dev.cipolicy.api.concurrency.WorkflowConcurrency;
import dev.cipolicy.api.policy.Policy;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Example tests for every rule on the reference policy's two workflows. */
class ConcurrencyPolicyTest {
  private static final String CUDA = "pr-test";
  private static final String ROCM = "pr-test-rocm";
  private static final String NIGHTLY = "0 15 * * 0-5";
  private static final String WEEKLY = "0 15 * * 6";
  private static final String RELEASE = "refs/heads/release/v0.5";
  private static final String NEW_RUN = "9000";

  private final ConcurrencyPolicy concurrency = ConcurrencyPolicy.of(ReferencePolicy.resolver());

  // The in-flight runs of a busy afternoon, in the order the host lists them.
  private static final InFlightRun CUDA_PR_123 = pr("1001", CUDA, 123);
  private static final InFlightRun ROCM_PR_123 = pr("1002", ROCM, 123);
  private static final InFlightRun CUDA_PR_124 = pr("1003", CUDA, 124);
  private static final InFlightRun CUDA_NIGHTLY = InFlightRun.builder().runId("1004").workflow(CUDA).cron(NIGHTLY)
      .build();
  private static final InFlightRun CUDA_RELEASE = InFlightRun.builder().runId("1005").workflow(CUDA)
      .releaseRef(RELEASE).build();
  private static final InFlightRun CUDA_MANUAL = InFlightRun.builder().runId("1006").workflow(CUDA).build();
  private static final InFlightRun ROCM_NIGHTLY = InFlightRun.builder().runId("1007").workflow(ROCM).cron(NIGHTLY)
      .build();
  private static final InFlightRun ROCM_RELEASE = InFlightRun.builder().runId("1008").workflow(ROCM)
      .releaseRef(RELEASE).build();
  private static final List<InFlightRun> BUSY = List.of(CUDA_PR_123, ROCM_PR_123, CUDA_PR_124, CUDA_NIGHTLY,
      CUDA_RELEASE, CUDA_MANUAL, ROCM_NIGHTLY, ROCM_RELEASE);

  private static InFlightRun pr(String runId, String workflow, long pr) {
    return InFlightRun.builder().runId(runId).workflow(workflow).prNumber(pr).build();
  }

  private static ConcurrencyEvent prEvent(ConcurrencyEventType type, String workflow, long pr) {
    return ConcurrencyEvent.builder().type(type).workflow(workflow).prNumber(pr).runId(NEW_RUN).build();
  }

  private static ConcurrencyEvent labeled(String label) {
    return ConcurrencyEvent.builder().type(ConcurrencyEventType.SUPERSEDED).workflow(CUDA).prNumber(123)
        .label(label).runId(NEW_RUN).build();
  }

  private static ConcurrencyEvent scheduled(String workflow, String cron) {
    return ConcurrencyEvent.builder().type(ConcurrencyEventType.SCHEDULED).workflow(workflow).cron(cron)
        .runId(NEW_RUN).build();
  }

  private static ConcurrencyEvent dispatched(String workflow, Optional<String> ref) {
    return ConcurrencyEvent.builder().type(ConcurrencyEventType.DISPATCHED).workflow(workflow).releaseRef(ref)
        .runId(NEW_RUN).build();
  }

  private static String reasonOf(ConcurrencyDecision d, InFlightRun run) {
    return d.runs().stream().filter(r -> r.runId().equals(run.runId())).findFirst().orElseThrow().reason();
  }

  /** The reference policy with the given workflows instead of its own. */
  private static ConcurrencyPolicy with(WorkflowConcurrency... workflows) {
    Policy p = Policy.builder().from(ReferencePolicy.loaded().policy()).workflows(List.of(workflows)).build();
    return ConcurrencyPolicy.of(p);
  }

  @Nested
  @DisplayName("group keys")
  class GroupKeys {
    @Test
    void thePrefixFollowedByTheFirstPresentOfPrNumberCronReleaseRefAndRunId() {
      assertThat(concurrency.groupKey(CUDA, OptionalLong.of(123), Optional.of(NIGHTLY), Optional.of(RELEASE), "77"))
          .isEqualTo("pr-test-123");
      assertThat(concurrency.groupKey(ROCM, OptionalLong.of(123), Optional.empty(), Optional.empty(), "77"))
          .isEqualTo("pr-test-rocm-123");
      assertThat(concurrency.groupKey(CUDA, OptionalLong.empty(), Optional.of(WEEKLY), Optional.of(RELEASE), "77"))
          .isEqualTo("pr-test-0 15 * * 6");
      assertThat(concurrency.groupKey(CUDA, OptionalLong.empty(), Optional.empty(), Optional.of(RELEASE), "77"))
          .isEqualTo("pr-test-refs/heads/release/v0.5");
      assertThat(concurrency.groupKey(CUDA, OptionalLong.empty(), Optional.empty(), Optional.empty(), "77"))
          .isEqualTo("pr-test-77");
    }

    @Test
    void emptyValuesCountAsAbsentLikeUnsetWorkflowExpressions() {
      assertThat(concurrency.groupKey(CUDA, OptionalLong.empty(), Optional.of(""), Optional.of(""), "77"))
          .isEqualTo("pr-test-77");
      assertThat(concurrency.groupKey(dispatched(CUDA, Optional.of("")))).isEqualTo("pr-test-9000");
    }

    @Test
    void eventsAndInFlightRunsUseTheSameRule() {
      assertThat(concurrency.groupKey(prEvent(ConcurrencyEventType.CLOSED, ROCM, 123))).isEqualTo("pr-test-rocm-123");
      assertThat(concurrency.groupKey(CUDA_NIGHTLY)).isEqualTo("pr-test-0 15 * * 0-5");
      assertThat(concurrency.groupKey(ROCM_RELEASE)).isEqualTo("pr-test-rocm-refs/heads/release/v0.5");
      assertThat(concurrency.decide(scheduled(CUDA, WEEKLY), List.of()).groupKey()).isEqualTo("pr-test-0 15 * * 6");
    }

    @Test
    void anUndeclaredWorkflowIsAnErrorNamingTheDeclaredOnes() {
      assertThatThrownBy(() -> concurrency.groupKey("pr-test-cpu", OptionalLong.of(1), Optional.empty(),
          Optional.empty(), "1"))
          .isInstanceOf(UnknownWorkflowException.class)
          .hasMessage("Unknown CI workflow 'pr-test-cpu'; expected one of [pr-test, pr-test-rocm]");
    }

    @Test
    void theReferencePolicyDeclaresTheCudaAndRocmWorkflows() {
      assertThat(concurrency.workflows()).extracting(WorkflowConcurrency::name, WorkflowConcurrency::groupPrefix)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(CUDA, "pr-test-"),
              org.assertj.core.groups.Tuple.tuple(ROCM, "pr-test-rocm-"));
      for (ConcurrencyEventType t : ConcurrencyEventType.values()) {
        assertThat(concurrency.workflow(CUDA).action(t)).isEqualTo(ConcurrencyAction.CANCEL);
        assertThat(concurrency.workflow(ROCM).action(t)).isEqualTo(t.defaultAction());
      }
    }
  }

  @Nested
  @DisplayName("a newer event on the same pull request")
  class Superseded {
    @Test
    void cancelsTheOlderRunOfThatPrInTheSameWorkflowOnly() {
      ConcurrencyDecision d = concurrency.decide(prEvent(ConcurrencyEventType.SUPERSEDED, CUDA, 123), BUSY);
      assertThat(d.groupKey()).isEqualTo("pr-test-123");
      assertThat(d.newRun()).isEqualTo(NewRun.START);
      assertThat(d.cancelledRunIds()).containsExactly("1001");
      assertThat(reasonOf(d, CUDA_PR_123)).isEqualTo("same group 'pr-test-123': workflow pr-test cancels"
          + " in-progress runs of the same group on superseded events");
      assertThat(reasonOf(d, ROCM_PR_123)).isEqualTo("a run of workflow pr-test-rocm for PR #123 in group"
          + " 'pr-test-rocm-123'; a workflow's events only touch its own groups");
      assertThat(reasonOf(d, CUDA_PR_124)).isEqualTo("a run of workflow pr-test for PR #124 in group 'pr-test-124',"
          + " not in group 'pr-test-123'");
      assertThat(reasonOf(d, CUDA_NIGHTLY)).isEqualTo("a run of workflow pr-test for schedule '0 15 * * 0-5' in"
          + " group 'pr-test-0 15 * * 0-5', not in group 'pr-test-123'");
    }

    @Test
    void theRocmWorkflowKeepsItsOwnGroups() {
      ConcurrencyDecision d = concurrency.decide(prEvent(ConcurrencyEventType.SUPERSEDED, ROCM, 123), BUSY);
      assertThat(d.groupKey()).isEqualTo("pr-test-rocm-123");
      assertThat(d.cancelledRunIds()).containsExactly("1002");
    }

    @Test
    void decisionsKeepTheInputOrderAndCoverEveryRun() {
      ConcurrencyDecision d = concurrency.decide(prEvent(ConcurrencyEventType.SUPERSEDED, CUDA, 124), BUSY);
      assertThat(d.runs()).extracting(RunDecision::runId)
          .containsExactly("1001", "1002", "1003", "1004", "1005", "1006", "1007", "1008");
    }

    @Test
    void theNewRunItselfIsNeverCancelled() {
      InFlightRun itself = pr(NEW_RUN, CUDA, 123);
      ConcurrencyDecision d = concurrency.decide(prEvent(ConcurrencyEventType.SUPERSEDED, CUDA, 123),
          List.of(CUDA_PR_123, itself));
      assertThat(d.cancelledRunIds()).containsExactly("1001");
      assertThat(reasonOf(d, itself)).isEqualTo("this is the new run itself");
    }

    @Test
    void runsAreMatchedByTypedKeyNotByKeyString() {
      // A manual dispatch whose run id reads like the PR number has the same key string, 'pr-test-123'.
      InFlightRun dispatch123 = InFlightRun.builder().runId("123").workflow(CUDA).build();
      ConcurrencyDecision d = concurrency.decide(prEvent(ConcurrencyEventType.SUPERSEDED, CUDA, 123),
          List.of(dispatch123));
      assertThat(d.cancelledRunIds()).isEmpty();
      assertThat(reasonOf(d, dispatch123)).isEqualTo("a run of workflow pr-test for run id 123 in group"
          + " 'pr-test-123', not in group 'pr-test-123' (its key string equals the new run's, but it is keyed by"
          + " run id, not PR number)");
    }
  }

  @Nested
  @DisplayName("PR label events")
  class Labels {
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"documentation", "megatron", "RUN-CI-megatron",
        "run-ci-$(id)", "good first issue"})
    void aLabelIrrelevantToCiStartsNoRunAndCancelsNothing(String label) {
      ConcurrencyDecision d = concurrency.decide(labeled(label), BUSY);
      assertThat(d.newRun()).isEqualTo(NewRun.IGNORED);
      assertThat(d.cancelledRunIds()).isEmpty();
      assertThat(reasonOf(d, CUDA_PR_123)).isEqualTo("label '" + label + "' is not a canonical CI label, so the"
          + " label event starts no run and cancels nothing");
      assertThat(d.explanation().hints())
          .containsExactly("a canonical label (run-ci-<label> or a workflow label) would restart the run");
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"run-ci-megatron", "run-ci-unknown", "nightly",
        "bypass-fastfail"})
    void aCanonicalLabelSupersedesTheRun(String label) {
      ConcurrencyDecision d = concurrency.decide(labeled(label), BUSY);
      assertThat(d.newRun()).isEqualTo(NewRun.START);
      assertThat(d.cancelledRunIds()).containsExactly("1001");
    }
  }

  @Nested
  @DisplayName("scheduled runs")
  class Scheduled {
    @Test
    void twoCronsNeverCollide() {
      ConcurrencyDecision d = concurrency.decide(scheduled(CUDA, WEEKLY), BUSY);
      assertThat(d.newRun()).isEqualTo(NewRun.START);
      assertThat(d.cancelledRunIds()).isEmpty();
      assertThat(reasonOf(d, CUDA_NIGHTLY)).isEqualTo("a run of workflow pr-test for schedule '0 15 * * 0-5' in"
          + " group 'pr-test-0 15 * * 0-5', not in group 'pr-test-0 15 * * 6'");
    }

    @Test
    void aCronsNextFiringCancelsItsStaleRunInTheSameWorkflow() {
      ConcurrencyDecision d = concurrency.decide(scheduled(CUDA, NIGHTLY), BUSY);
      assertThat(d.cancelledRunIds()).containsExactly("1004");
    }

    @Test
    void aCronWithoutAPolicyIsAnErrorNeverADefault() {
      assertThatThrownBy(() -> concurrency.decide(scheduled(CUDA, "0 3 * * *"), BUSY))
          .isInstanceOf(UnknownScheduleException.class)
          .hasMessageStartingWith("No CI policy is defined for schedule: 0 3 * * *; the schedule table has");
    }
  }

  @Nested
  @DisplayName("dispatches")
  class Dispatched {
    @Test
    void reDispatchingTheSameReleaseRefCancelsTheStaleRun() {
      ConcurrencyDecision d = concurrency.decide(dispatched(CUDA, Optional.of(RELEASE)), BUSY);
      assertThat(d.groupKey()).isEqualTo("pr-test-refs/heads/release/v0.5");
      assertThat(d.newRun()).isEqualTo(NewRun.START);
      assertThat(d.cancelledRunIds()).containsExactly("1005");
    }

    @Test
    void anotherReleaseRefIsAnotherGroup() {
      ConcurrencyDecision d = concurrency.decide(dispatched(CUDA, Optional.of("refs/heads/release/v0.6")), BUSY);
      assertThat(d.cancelledRunIds()).isEmpty();
    }

    @Test
    void theRocmWorkflowQueuesAReleaseReDispatchByDefault() {
      ConcurrencyDecision d = concurrency.decide(dispatched(ROCM, Optional.of(RELEASE)), BUSY);
      assertThat(d.newRun()).isEqualTo(NewRun.QUEUED);
      assertThat(d.cancelledRunIds()).isEmpty();
      assertThat(reasonOf(d, ROCM_RELEASE)).isEqualTo("workflow pr-test-rocm queues on dispatched events, so the"
          + " new run waits for this run of group 'pr-test-rocm-refs/heads/release/v0.5'");
      assertThat(d.explanation().hints()).containsExactly(
          "declaring dispatched: cancel for workflow pr-test-rocm would cancel the busy runs instead of waiting");
    }

    @Test
    void aManualDispatchNeverCancelsAnything() {
      for (String workflow : List.of(CUDA, ROCM)) {
        ConcurrencyDecision d = concurrency.decide(dispatched(workflow, Optional.empty()), BUSY);
        assertThat(d.groupKey()).isEqualTo(workflow + "-9000");
        assertThat(d.newRun()).isEqualTo(NewRun.START);
        assertThat(d.cancelledRunIds()).isEmpty();
        assertThat(d.explanation().reasons()).extracting(r -> r.rule()).contains("concurrency.dispatched.run-id");
      }
    }
  }

  @Nested
  @DisplayName("closing and merging a pull request")
  class Closed {
    @ParameterizedTest
    @EnumSource(value = ConcurrencyEventType.class, names = {"CLOSED", "MERGED"})
    void endsEveryRunOfThePrInEveryWorkflowAndStartsACancellationOnlyRun(ConcurrencyEventType type) {
      for (String workflow : List.of(CUDA, ROCM)) {
        ConcurrencyDecision d = concurrency.decide(prEvent(type, workflow, 123), BUSY);
        assertThat(d.newRun()).isEqualTo(NewRun.CANCELLATION_ONLY);
        assertThat(d.cancellationOnly()).isTrue();
        assertThat(d.cancelledRunIds()).containsExactly("1001", "1002");
        assertThat(reasonOf(d, ROCM_PR_123)).isEqualTo("pull request #123 was " + type.documentName() + ": "
            + type.documentName() + " ends every in-flight run of the PR in every declared workflow (group"
            + " 'pr-test-rocm-123')");
        assertThat(reasonOf(d, CUDA_PR_124)).isEqualTo(
            "a run of workflow pr-test for PR #124 in group 'pr-test-124', not of PR #123");
      }
    }

    @Test
    void theExplanationSaysWhyInOneSentence() {
      ConcurrencyDecision d = concurrency.decide(prEvent(ConcurrencyEventType.CLOSED, CUDA, 123), BUSY);
      assertThat(d.explanation().sentence()).isEqualTo("new run cancellation_only in group 'pr-test-123', cancel 2"
          + " of 8 in-flight runs because group key 'pr-test-123' is prefix 'pr-test-' of workflow pr-test followed"
          + " by the PR number 123; pull request #123 was closed: the event ends every in-flight run of the PR in"
          + " every declared workflow that cancels on closed, and its own run is cancellation-only (no policy"
          + " resolved, no image built, no test run).");
      assertThat(d.explanation().toJson()).startsWith("{\"decision\":\"new run cancellation_only in group"
          + " 'pr-test-123', cancel 2 of 8 in-flight runs\",\"reasons\":[{\"rule\":\"concurrency.group\",");
    }

    @Test
    void aMergeThatAWorkflowIgnoresStartsNoRunThere() {
      ConcurrencyPolicy ignoring = with(
          WorkflowConcurrency.builder().name(CUDA).groupPrefix("pr-test-").build(),
          WorkflowConcurrency.builder().name(ROCM).groupPrefix("pr-test-rocm-")
              .putActions(ConcurrencyEventType.MERGED, ConcurrencyAction.IGNORE).build());
      ConcurrencyDecision inRocm = ignoring.decide(prEvent(ConcurrencyEventType.MERGED, ROCM, 123), BUSY);
      assertThat(inRocm.newRun()).isEqualTo(NewRun.IGNORED);
      assertThat(inRocm.cancelledRunIds()).isEmpty();
      ConcurrencyDecision inCuda = ignoring.decide(prEvent(ConcurrencyEventType.MERGED, CUDA, 123), BUSY);
      assertThat(inCuda.newRun()).isEqualTo(NewRun.CANCELLATION_ONLY);
      assertThat(inCuda.cancelledRunIds()).containsExactly("1001");
      assertThat(reasonOf(inCuda, ROCM_PR_123))
          .isEqualTo("workflow pr-test-rocm ignores merged events, so its run of PR #123 goes on");
      // A close still ends both.
      assertThat(ignoring.decide(prEvent(ConcurrencyEventType.CLOSED, ROCM, 123), BUSY).cancelledRunIds())
          .containsExactly("1001", "1002");
    }
  }

  @Nested
  @DisplayName("queue and ignore")
  class QueueAndIgnore {
    private final ConcurrencyPolicy queueing = with(WorkflowConcurrency.builder().name(CUDA).groupPrefix("pr-test-")
        .putActions(ConcurrencyEventType.SUPERSEDED, ConcurrencyAction.QUEUE)
        .putActions(ConcurrencyEventType.SCHEDULED, ConcurrencyAction.IGNORE)
        .build());

    @Test
    void queueWaitsForABusyGroupAndCancelsNothing() {
      ConcurrencyDecision d = queueing.decide(prEvent(ConcurrencyEventType.SUPERSEDED, CUDA, 123), BUSY);
      assertThat(d.newRun()).isEqualTo(NewRun.QUEUED);
      assertThat(d.cancelledRunIds()).isEmpty();
    }

    @Test
    void queueStartsAtOnceWhenTheGroupIsFree() {
      ConcurrencyDecision d = queueing.decide(prEvent(ConcurrencyEventType.SUPERSEDED, CUDA, 999), BUSY);
      assertThat(d.newRun()).isEqualTo(NewRun.START);
      assertThat(d.explanation().hints()).isEmpty();
    }

    @Test
    void ignoreStartsNoRunAndCancelsNothing() {
      ConcurrencyDecision d = queueing.decide(scheduled(CUDA, NIGHTLY), BUSY);
      assertThat(d.newRun()).isEqualTo(NewRun.IGNORED);
      assertThat(d.cancelledRunIds()).isEmpty();
      assertThat(reasonOf(d, CUDA_NIGHTLY))
          .isEqualTo("workflow pr-test ignores scheduled events, so the event starts no run and cancels nothing");
    }
  }

  @Nested
  @DisplayName("undeclared workflows and bad input")
  class Errors {
    @Test
    void anEventOfAnUndeclaredWorkflowIsAnError() {
      assertThatThrownBy(() -> concurrency.decide(prEvent(ConcurrencyEventType.CLOSED, "docs", 123), BUSY))
          .isInstanceOf(UnknownWorkflowException.class)
          .hasMessage("Unknown CI workflow 'docs'; expected one of [pr-test, pr-test-rocm]");
    }

    @Test
    void aPolicyWithoutWorkflowsSaysSo() {
      assertThatThrownBy(() -> with().decide(prEvent(ConcurrencyEventType.CLOSED, CUDA, 1), List.of()))
          .isInstanceOf(UnknownWorkflowException.class)
          .hasMessage("Unknown CI workflow 'pr-test': the policy declares no workflows");
    }

    @Test
    void anInFlightRunOfAnUndeclaredWorkflowIsKept() {
      InFlightRun docs = pr("1100", "docs", 123);
      ConcurrencyDecision d = concurrency.decide(prEvent(ConcurrencyEventType.CLOSED, CUDA, 123),
          List.of(docs, CUDA_PR_123));
      assertThat(d.runs()).extracting(RunDecision::action)
          .containsExactly(RunDecision.Action.KEEP, RunDecision.Action.CANCEL);
      assertThat(reasonOf(d, docs)).isEqualTo("workflow 'docs' is not declared in policy miles, so its runs are"
          + " not managed");
    }

    @Test
    void aRunListedTwiceIsAnError() {
      assertThatThrownBy(() -> concurrency.decide(prEvent(ConcurrencyEventType.CLOSED, CUDA, 123),
          List.of(CUDA_PR_123, CUDA_PR_123)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("in-flight run 1001 is listed twice");
    }
  }
}
