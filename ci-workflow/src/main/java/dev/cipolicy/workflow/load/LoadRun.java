package dev.cipolicy.workflow.load;

import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.JobCall;
import dev.cipolicy.workflow.Workflow;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/** What one load shares between the workflow and the workflows it calls: each called file once. */
final class LoadRun {
  private final Function<String, Optional<String>> locals;
  private final Map<String, Optional<String>> texts = new HashMap<>();
  private final Map<String, Called> called = new HashMap<>();
  private final IdentityHashMap<Workflow, Long> expanded = new IdentityHashMap<>();

  /**
   * A called workflow as loaded at one depth: the workflow, or the first problem's location and the count of
   * problems when it failed, with the problems themselves when they are all about calls nesting too deep.
   */
  record Called(Optional<Workflow> workflow, Optional<SourceLocation> failedAt, int problems,
      List<PolicyProblem> tooDeep) {}

  LoadRun(Function<String, Optional<String>> locals) {
    this.locals = locals;
  }

  /** The called workflows loaded so far, by depth and reference. */
  Map<String, Called> called() {
    return called;
  }

  /** The text of a local reusable workflow, asked of the host once per load. */
  Optional<String> text(String uses) {
    Optional<String> t = texts.get(uses);
    if (t == null) {
      t = locals.apply(uses);
      texts.put(uses, t);
    }
    return t;
  }

  /** The jobs a workflow runs, its called workflows' counted once per call; saturates past the limit. */
  long expanded(Workflow w) {
    Long known = expanded.get(w);
    if (known != null) {
      return known;
    }
    long n = 0;
    for (Job j : w.jobs()) {
      n += 1 + j.call().flatMap(JobCall::callee).map(this::expanded).orElse(0L);
      n = Math.min(n, (long) WorkflowLoader.MAX_EXPANDED_JOBS + 1);
    }
    expanded.put(w, n);
    return n;
  }
}
