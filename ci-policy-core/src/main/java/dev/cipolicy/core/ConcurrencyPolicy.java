package dev.cipolicy.core;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.UnknownScheduleException;
import dev.cipolicy.api.UnknownWorkflowException;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The concurrency engine: group keys, and what an event does to the runs in flight. Built from
 * a checked policy; immutable and thread-safe; every method is a pure function of its arguments.
 *
 * <p>A group key is the workflow's literal prefix followed by the first present of PR number, schedule
 * cron, release ref and run id. Runs are matched by typed key (workflow, key source, value), never by the
 * key string alone, so a release ref that happens to read like a PR number never cancels that PR's run.
 *
 * <pre>{@code
 * ConcurrencyPolicy concurrency = ConcurrencyPolicy.of(loaded.resolver());
 * ConcurrencyDecision d = concurrency.decide(ConcurrencyEvent.builder()
 *     .type(ConcurrencyEventType.CLOSED).workflow("pr-test").prNumber(123).runId("9000003").build(),
 *     inFlightRuns);
 * d.cancelledRunIds();      // every in-flight run of PR 123 in every declared workflow
 * d.cancellationOnly();     // true: no policy resolved, no image built, no test run
 * }</pre>
 */
public final class ConcurrencyPolicy {
  private final PolicyResolver resolver;
  private final Map<String, WorkflowConcurrency> workflows = new LinkedHashMap<>();

  private ConcurrencyPolicy(PolicyResolver resolver) {
    this.resolver = resolver;
    resolver.policy().workflows().forEach(w -> workflows.put(w.name(), w));
  }

  /**
   * The concurrency engine of a checked policy.
   *
   * @param resolver the resolver of the policy; its static checks have passed
   * @return the engine
   */
  public static ConcurrencyPolicy of(PolicyResolver resolver) {
    return new ConcurrencyPolicy(resolver);
  }

  /**
   * Checks a policy built in code and returns its concurrency engine.
   *
   * @param policy the policy
   * @return the engine
   * @throws InvalidPolicyException listing every failed static check
   */
  public static ConcurrencyPolicy of(Policy policy) {
    return of(PolicyResolver.of(policy));
  }

  /**
   * The declared workflows, in declaration order.
   *
   * @return the workflows
   */
  public List<WorkflowConcurrency> workflows() {
    return List.copyOf(workflows.values());
  }

  /**
   * Looks up a declared workflow.
   *
   * @param name the workflow name
   * @return its concurrency declaration
   * @throws UnknownWorkflowException when the policy does not declare it
   */
  public WorkflowConcurrency workflow(String name) {
    WorkflowConcurrency w = workflows.get(name);
    if (w == null) {
      throw new UnknownWorkflowException(name, List.copyOf(workflows.keySet()));
    }
    return w;
  }

  /**
   * The group key of a run: the workflow's literal prefix followed by the first non-empty of PR number,
   * schedule cron, release ref and run id.
   *
   * @param workflow a declared workflow name
   * @param prNumber the PR number, if any
   * @param cron the schedule cron, if any; empty counts as absent
   * @param releaseRef the release ref, if any; empty counts as absent
   * @param runId the run id, used when nothing else is present
   * @return e.g. {@code pr-test-123}
   * @throws UnknownWorkflowException when the workflow is not declared
   * @throws InvalidInputException when the PR number is not positive or every value is empty
   */
  public String groupKey(String workflow, OptionalLong prNumber, Optional<String> cron,
      Optional<String> releaseRef, String runId) {
    String prefix = workflow(workflow).groupPrefix();
    if (prNumber.isPresent()) {
      if (prNumber.getAsLong() < 1) {
        throw new InvalidInputException("PR number " + prNumber.getAsLong() + " must be positive");
      }
      return prefix + prNumber.getAsLong();
    }
    for (Optional<String> value : List.of(cron, releaseRef)) {
      if (value.isPresent() && !value.get().isEmpty()) {
        return prefix + value.get();
      }
    }
    if (runId.isEmpty()) {
      throw new InvalidInputException("a group key needs a PR number, a cron, a release ref or a run id");
    }
    return prefix + runId;
  }

  /**
   * The group key of the run an event starts.
   *
   * @param event the event
   * @return the workflow's prefix and the event's key suffix
   * @throws UnknownWorkflowException when the event names an undeclared workflow
   */
  public String groupKey(ConcurrencyEvent event) {
    return workflow(event.workflow()).groupPrefix() + event.keySuffix();
  }

  /**
   * The group key of an in-flight run.
   *
   * @param run the run
   * @return the workflow's prefix and the run's key suffix
   * @throws UnknownWorkflowException when the run belongs to an undeclared workflow
   */
  public String groupKey(InFlightRun run) {
    return workflow(run.workflow()).groupPrefix() + run.keySuffix();
  }

  /**
   * Decides what an event does: for each in-flight run, keep or cancel with the reason, and what happens
   * to the run the event asks for.
   *
   * <ul>
   *   <li>A PR label event whose label is not canonical ({@link PolicyResolver#canonicalPrLabels}) starts
   *       no run and cancels nothing: labels irrelevant to CI do not restart runs.
   *   <li>{@code closed}, and {@code merged} when it cancels, ends every in-flight run of the PR in every
   *       declared workflow whose action for the event is cancel; the new run is cancellation-only.
   *   <li>Otherwise {@code cancel} cancels the runs of the same workflow with the same typed group key;
   *       {@code queue} cancels nothing and the new run waits when its group is busy; {@code ignore} starts
   *       no run and cancels nothing.
   *   <li>The new run itself (same run id) and runs of undeclared workflows are always kept.
   * </ul>
   *
   * @param event the event
   * @param inFlight the runs queued or running, in any order; the decisions keep this order
   * @return the decision with per-run reasons and an explanation
   * @throws UnknownWorkflowException when the event names an undeclared workflow
   * @throws UnknownScheduleException when a scheduled event's cron has no entry in the schedule table
   * @throws InvalidInputException when two in-flight runs have the same run id
   */
  public ConcurrencyDecision decide(ConcurrencyEvent event, List<InFlightRun> inFlight) {
    WorkflowConcurrency w = workflow(event.workflow());
    if (event.type() == ConcurrencyEventType.SCHEDULED) {
      resolver.schedule(event.cron().orElseThrow());
    }
    Set<String> ids = new HashSet<>();
    for (InFlightRun r : inFlight) {
      if (!ids.add(r.runId())) {
        throw new InvalidInputException("in-flight run " + r.runId() + " is listed twice");
      }
    }
    String key = w.groupPrefix() + event.keySuffix();
    String subject = event.keySource().describe(event.keySuffix());
    ConcurrencyEventType type = event.type();
    ConcurrencyAction action = w.action(type);
    String declared = w.actions().containsKey(type) ? "declares" : "takes the default";

    List<Explanation.Reason> reasons = new ArrayList<>();
    List<String> hints = new ArrayList<>();
    reasons.add(new Explanation.Reason("concurrency.group", "group key '" + key + "' is prefix '"
        + w.groupPrefix() + "' of workflow " + w.name() + " followed by the " + sourceName(event.keySource())
        + " " + event.keySuffix()));

    Optional<String> irrelevantLabel = event.label()
        .filter(l -> resolver.canonicalPrLabels(List.of(l)).isEmpty());
    List<RunDecision> runs = new ArrayList<>();
    NewRun newRun;
    if (irrelevantLabel.isPresent()) {
      String why = "label '" + irrelevantLabel.get() + "' is not a canonical CI label, so the label event"
          + " starts no run and cancels nothing";
      reasons.add(new Explanation.Reason("concurrency.label.irrelevant", why));
      hints.add("a canonical label (" + resolver.policy().labelPrefix() + "<label> or a workflow label)"
          + " would restart the run");
      for (InFlightRun r : inFlight) {
        runs.add(keep(r, self(event, r).orElse(why)));
      }
      newRun = NewRun.IGNORED;
    } else if (action == ConcurrencyAction.IGNORE) {
      String why = "workflow " + w.name() + " ignores " + type.documentName() + " events, so the event starts"
          + " no run and cancels nothing";
      reasons.add(new Explanation.Reason("concurrency." + type.documentName() + ".ignore", why));
      for (InFlightRun r : inFlight) {
        runs.add(keep(r, self(event, r).orElse(why)));
      }
      newRun = NewRun.IGNORED;
    } else if (type.endsPullRequest()) {
      long pr = event.prNumber().orElseThrow();
      reasons.add(new Explanation.Reason("concurrency." + type.documentName(), "pull request #" + pr + " was "
          + type.documentName() + ": the event ends every in-flight run of the PR in every declared workflow"
          + " that cancels on " + type.documentName() + ", and its own run is cancellation-only (no policy"
          + " resolved, no image built, no test run)"));
      for (InFlightRun r : inFlight) {
        runs.add(endingPr(event, pr, r));
      }
      newRun = NewRun.CANCELLATION_ONLY;
    } else {
      boolean busy = false;
      for (InFlightRun r : inFlight) {
        Optional<String> self = self(event, r);
        Optional<String> other = otherGroup(event, w, key, r);
        if (self.isPresent() || other.isPresent()) {
          runs.add(keep(r, self.orElseGet(other::orElseThrow)));
        } else if (action == ConcurrencyAction.CANCEL) {
          runs.add(cancel(r, "same group '" + key + "': workflow " + w.name() + " cancels in-progress"
              + " runs of the same group on " + type.documentName() + " events"));
        } else {
          busy = true;
          runs.add(keep(r, "workflow " + w.name() + " queues on " + type.documentName() + " events, so the"
              + " new run waits for this run of group '" + key + "'"));
        }
      }
      String verb = action == ConcurrencyAction.CANCEL ? "cancels in-progress runs of the same group"
          : "queues the new run behind the runs of the same group";
      reasons.add(new Explanation.Reason("concurrency." + type.documentName() + "." + action.documentName(),
          "workflow " + w.name() + " " + declared + " '" + type.documentName() + ": " + action.documentName()
              + "', so a " + type.documentName() + " event for " + subject + " " + verb));
      if (action == ConcurrencyAction.QUEUE && busy) {
        hints.add("declaring " + type.documentName() + ": cancel for workflow " + w.name()
            + " would cancel the busy runs instead of waiting");
      }
      if (type == ConcurrencyEventType.DISPATCHED && event.keySource() == GroupKeySource.RUN_ID) {
        reasons.add(new Explanation.Reason("concurrency.dispatched.run-id", "a manual dispatch is keyed by its"
            + " own run id, which no other run shares, so it never cancels anything"));
      }
      newRun = action == ConcurrencyAction.QUEUE && busy ? NewRun.QUEUED : NewRun.START;
    }
    long cancelled = runs.stream().filter(r -> r.action() == RunDecision.Action.CANCEL).count();
    String decision = "new run " + newRun.documentName() + " in group '" + key + "', cancel " + cancelled + " of "
        + runs.size() + " in-flight run" + (runs.size() == 1 ? "" : "s");
    return ConcurrencyDecision.builder()
        .groupKey(key)
        .newRun(newRun)
        .addAllRuns(runs)
        .explanation(new Explanation(decision, reasons, hints))
        .build();
  }

  private RunDecision endingPr(ConcurrencyEvent event, long pr, InFlightRun r) {
    Optional<String> self = self(event, r);
    if (self.isPresent()) {
      return keep(r, self.get());
    }
    WorkflowConcurrency rw = workflows.get(r.workflow());
    if (rw == null) {
      return keep(r, undeclared(r));
    }
    if (r.keySource() != GroupKeySource.PR_NUMBER || r.prNumber().getAsLong() != pr) {
      return keep(r, describe(rw, r) + ", not of PR #" + pr);
    }
    String type = event.type().documentName();
    if (rw.action(event.type()) != ConcurrencyAction.CANCEL) {
      return keep(r, "workflow " + rw.name() + " " + rw.action(event.type()).documentName() + "s " + type
          + " events, so its run of PR #" + pr + " goes on");
    }
    return cancel(r, "pull request #" + pr + " was " + type + ": " + type + " ends every in-flight run of the PR"
        + " in every declared workflow (group '" + rw.groupPrefix() + r.keySuffix() + "')");
  }

  /** Why a run is outside the event's group, if it is. */
  private Optional<String> otherGroup(ConcurrencyEvent event, WorkflowConcurrency w, String key, InFlightRun r) {
    WorkflowConcurrency rw = workflows.get(r.workflow());
    if (rw == null) {
      return Optional.of(undeclared(r));
    }
    if (!rw.name().equals(w.name())) {
      return Optional.of(describe(rw, r) + "; a workflow's events only touch its own groups");
    }
    if (r.keySource() != event.keySource() || !r.keySuffix().equals(event.keySuffix())) {
      String runKey = rw.groupPrefix() + r.keySuffix();
      String note = runKey.equals(key) ? " (its key string equals the new run's, but it is keyed by "
          + sourceName(r.keySource()) + ", not " + sourceName(event.keySource()) + ")" : "";
      return Optional.of(describe(rw, r) + ", not in group '" + key + "'" + note);
    }
    return Optional.empty();
  }

  private static Optional<String> self(ConcurrencyEvent event, InFlightRun r) {
    return r.runId().equals(event.runId()) ? Optional.of("this is the new run itself") : Optional.empty();
  }

  private String undeclared(InFlightRun r) {
    return "workflow '" + r.workflow() + "' is not declared in policy " + resolver.policy().name()
        + ", so its runs are not managed";
  }

  private static String describe(WorkflowConcurrency rw, InFlightRun r) {
    return "a run of workflow " + rw.name() + " for " + r.keySource().describe(r.keySuffix()) + " in group '"
        + rw.groupPrefix() + r.keySuffix() + "'";
  }

  private static String sourceName(GroupKeySource s) {
    return switch (s) {
      case PR_NUMBER -> "PR number";
      case CRON -> "schedule cron";
      case RELEASE_REF -> "release ref";
      case RUN_ID -> "run id";
    };
  }

  private static RunDecision keep(InFlightRun r, String reason) {
    return RunDecision.builder().runId(r.runId()).action(RunDecision.Action.KEEP).reason(reason).build();
  }

  private static RunDecision cancel(InFlightRun r, String reason) {
    return RunDecision.builder().runId(r.runId()).action(RunDecision.Action.CANCEL).reason(reason).build();
  }
}
