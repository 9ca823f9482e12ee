package dev.cipolicy.api.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.UnknownWorkflowException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The concurrency values: defaults, key suffixes, normalization and the checks of their builders. */
class ConcurrencyValuesTest {

  private static ConcurrencyEvent.Builder event(ConcurrencyEventType type) {
    return ConcurrencyEvent.builder().type(type).workflow("pr-test").runId("42");
  }

  @Test
  void defaultActionsCancelExceptDispatchWhichQueues() {
    WorkflowConcurrency w = WorkflowConcurrency.builder().name("pr-test").groupPrefix("pr-test-").build();
    assertThat(w.action(ConcurrencyEventType.SUPERSEDED)).isEqualTo(ConcurrencyAction.CANCEL);
    assertThat(w.action(ConcurrencyEventType.CLOSED)).isEqualTo(ConcurrencyAction.CANCEL);
    assertThat(w.action(ConcurrencyEventType.MERGED)).isEqualTo(ConcurrencyAction.CANCEL);
    assertThat(w.action(ConcurrencyEventType.SCHEDULED)).isEqualTo(ConcurrencyAction.CANCEL);
    assertThat(w.action(ConcurrencyEventType.DISPATCHED)).isEqualTo(ConcurrencyAction.QUEUE);
    WorkflowConcurrency q = WorkflowConcurrency.builder().from(w)
        .actions(java.util.Map.of(ConcurrencyEventType.SUPERSEDED, ConcurrencyAction.QUEUE)).build();
    assertThat(q.action(ConcurrencyEventType.SUPERSEDED)).isEqualTo(ConcurrencyAction.QUEUE);
  }

  @Test
  void documentNamesRoundTrip() {
    assertThat(ConcurrencyEventType.documentNames()).isEqualTo("[closed, dispatched, merged, scheduled, superseded]");
    assertThat(ConcurrencyAction.documentNames()).isEqualTo("[cancel, ignore, queue]");
    for (ConcurrencyEventType t : ConcurrencyEventType.values()) {
      assertThat(ConcurrencyEventType.fromDocumentName(t.documentName())).contains(t);
    }
    for (ConcurrencyAction a : ConcurrencyAction.values()) {
      assertThat(ConcurrencyAction.fromDocumentName(a.documentName())).contains(a);
    }
    assertThat(ConcurrencyEventType.fromDocumentName("CLOSED")).isEmpty();
    assertThat(ConcurrencyDecision.NewRun.CANCELLATION_ONLY.documentName()).isEqualTo("cancellation_only");
    assertThat(RunDecision.Action.CANCEL.documentName()).isEqualTo("cancel");
  }

  @Test
  void theKeySuffixIsTheFirstPresentOfPrNumberCronReleaseRefAndRunId() {
    assertThat(event(ConcurrencyEventType.CLOSED).prNumber(123).build().keySuffix()).isEqualTo("123");
    ConcurrencyEvent nightly = event(ConcurrencyEventType.SCHEDULED).cron("0 15 * * 0-5").build();
    assertThat(nightly.keySuffix()).isEqualTo("0 15 * * 0-5");
    assertThat(nightly.keySource()).isEqualTo(GroupKeySource.CRON);
    ConcurrencyEvent release = event(ConcurrencyEventType.DISPATCHED).releaseRef("refs/tags/v0.5.0").build();
    assertThat(release.keySuffix()).isEqualTo("refs/tags/v0.5.0");
    ConcurrencyEvent manual = event(ConcurrencyEventType.DISPATCHED).build();
    assertThat(manual.keySuffix()).isEqualTo("42");
    assertThat(manual.keySource()).isEqualTo(GroupKeySource.RUN_ID);
    InFlightRun run = InFlightRun.builder().runId("7").workflow("w").prNumber(5).cron("x").releaseRef("refs/heads/a")
        .build();
    assertThat(run.keySource()).isEqualTo(GroupKeySource.PR_NUMBER);
    assertThat(run.keySuffix()).isEqualTo("5");
  }

  @Test
  void emptyStringsCountAsAbsent() {
    ConcurrencyEvent e = event(ConcurrencyEventType.DISPATCHED).releaseRef("").cron("").label("").build();
    assertThat(e.releaseRef()).isEmpty();
    assertThat(e.cron()).isEmpty();
    assertThat(e.label()).isEmpty();
    assertThat(e).isEqualTo(event(ConcurrencyEventType.DISPATCHED).build());
    InFlightRun r = InFlightRun.builder().runId("7").workflow("w").cron("").releaseRef("").build();
    assertThat(r.keySource()).isEqualTo(GroupKeySource.RUN_ID);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "CLOSED|a closed event needs a PR number",
      "MERGED|a merged event needs a PR number",
      "SUPERSEDED|a superseded event needs a PR number",
      "SCHEDULED|a scheduled event needs a cron"})
  void requiredValuesPerType(ConcurrencyEventType type, String message) {
    assertThatThrownBy(() -> event(type).build()).isInstanceOf(InvalidInputException.class).hasMessage(message);
  }

  @Test
  void valuesThatDoNotFitTheTypeAreRejected() {
    assertThatThrownBy(() -> event(ConcurrencyEventType.SCHEDULED).cron("0 15 * * 6").prNumber(3).build())
        .isInstanceOf(InvalidInputException.class).hasMessage("a scheduled event has no PR number; got 3");
    assertThatThrownBy(() -> event(ConcurrencyEventType.CLOSED).prNumber(3).cron("0 15 * * 6").build())
        .hasMessage("a closed event has no cron; got '0 15 * * 6'");
    assertThatThrownBy(() -> event(ConcurrencyEventType.SUPERSEDED).prNumber(3).releaseRef("refs/heads/main").build())
        .hasMessage("a superseded event has no release ref; got 'refs/heads/main' (only dispatched events carry one)");
    assertThatThrownBy(() -> event(ConcurrencyEventType.CLOSED).prNumber(3).label("run-ci-all").build())
        .hasMessage("a closed event has no label; got 'run-ci-all' (only superseded events, from labeling or"
            + " unlabeling, carry one)");
  }

  @Test
  void missingIdentityIsRejected() {
    assertThatThrownBy(() -> ConcurrencyEvent.builder().workflow("w").runId("1").build())
        .isInstanceOf(InvalidValueException.class)
        .hasMessage("ConcurrencyEvent: required field 'type' is not set");
    assertThatThrownBy(() -> ConcurrencyEvent.builder().type(ConcurrencyEventType.DISPATCHED).runId("1").build())
        .isInstanceOf(InvalidValueException.class)
        .hasMessage("ConcurrencyEvent: required field 'workflow' is not set");
    assertThatThrownBy(() -> ConcurrencyEvent.builder().type(ConcurrencyEventType.DISPATCHED).workflow("w").build())
        .hasMessage("ConcurrencyEvent: required field 'runId' is not set");
    assertThatThrownBy(() -> ConcurrencyEvent.builder().type(ConcurrencyEventType.DISPATCHED).workflow("").runId("1")
        .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("a dispatched event needs a workflow name");
    assertThatThrownBy(() -> InFlightRun.builder().runId("1").workflow("").build())
        .hasMessage("an in-flight run needs a workflow name");
  }

  @ParameterizedTest
  @ValueSource(strings = {"abc", "0", "012", "-5", "1 2"})
  void runIdsAreGithubRunIds(String runId) {
    assertThatThrownBy(() -> InFlightRun.builder().runId(runId).workflow("w").build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("an in-flight run: run id '" + runId
            + "' is not a GitHub Actions run id; expected a positive decimal number");
  }

  @Test
  void prNumbersArePositive() {
    assertThatThrownBy(() -> event(ConcurrencyEventType.CLOSED).prNumber(0).build())
        .hasMessage("a closed event: PR number 0 must be positive");
    assertThatThrownBy(() -> InFlightRun.builder().runId("1").workflow("w").prNumber(-3).build())
        .hasMessage("an in-flight run: PR number -3 must be positive");
  }

  @ParameterizedTest
  @ValueSource(strings = {"release/v0.5", "refs/", "refs/heads/a..b", "refs/heads/x y", "refs//heads", "refs/heads/",
      "refs/heads/.hidden", "refs/heads/a;rm"})
  void releaseRefsAreFullGitRefs(String ref) {
    assertThatThrownBy(() -> event(ConcurrencyEventType.DISPATCHED).releaseRef(ref).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("a dispatched event: release ref '" + ref
            + "' is not a full git ref; expected e.g. refs/heads/release/v0.5 or refs/tags/v0.5.0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"refs/heads/release/v0.5", "refs/tags/v0.5.0", "refs/heads/release-1.x_rc+2@x"})
  void validReleaseRefs(String ref) {
    assertThat(GroupKeySource.RELEASE_REF.accepts(ref)).isTrue();
    assertThat(event(ConcurrencyEventType.DISPATCHED).releaseRef(ref).build().keySuffix()).isEqualTo(ref);
  }

  @Test
  void cronsMayNotBePaddedWithWhiteSpace() {
    assertThatThrownBy(() -> event(ConcurrencyEventType.SCHEDULED).cron(" 0 15 * * 6").build())
        .hasMessage("a scheduled event: cron ' 0 15 * * 6' must not start or end with white space");
  }

  @Test
  void decisionsListTheCancelledRunsInOrder() {
    ConcurrencyDecision d = ConcurrencyDecision.builder().groupKey("k").newRun(ConcurrencyDecision.NewRun.START)
        .addRuns(RunDecision.builder().runId("2").action(RunDecision.Action.CANCEL).reason("r").build(),
            RunDecision.builder().runId("1").action(RunDecision.Action.KEEP).reason("r").build(),
            RunDecision.builder().runId("3").action(RunDecision.Action.CANCEL).reason("r").build())
        .explanation(new dev.cipolicy.api.Explanation("d", List.of(), List.of()))
        .build();
    assertThat(d.cancelledRunIds()).containsExactly("2", "3");
    assertThat(d.cancellationOnly()).isFalse();
  }

  @Test
  void unknownWorkflowMessages() {
    assertThat(new UnknownWorkflowException("x", List.of("b", "a"))).hasMessage(
        "Unknown CI workflow 'x'; expected one of [a, b]");
    assertThat(new UnknownWorkflowException("x", List.of()).workflow()).isEqualTo("x");
  }

  @Test
  void optionalSettersAcceptAbsentValues() {
    ConcurrencyEvent e = event(ConcurrencyEventType.DISPATCHED).prNumber(OptionalLong.empty())
        .releaseRef(Optional.empty()).build();
    assertThat(e.prNumber()).isEmpty();
  }
}
