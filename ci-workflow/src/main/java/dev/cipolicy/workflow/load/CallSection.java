package dev.cipolicy.workflow.load;

import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.core.load.Node;
import dev.cipolicy.core.load.TreeParser;
import dev.cipolicy.workflow.InvalidWorkflowException;
import dev.cipolicy.workflow.JobCall;
import dev.cipolicy.workflow.Trigger;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.WorkflowInput;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a job's {@code uses:} and {@code with:}: a call of a reusable workflow. A local one
 * ({@code ./.github/workflows/x.yml}) has the called workflow read when the host supplies its text, at most
 * {@link WorkflowLoader#MAX_CALL_DEPTH} levels deep, and its inputs checked; a remote one, or a local one the
 * host cannot supply, is one opaque job with a warning.
 */
final class CallSection {
  /** The local reusable workflow references GitHub accepts. */
  private static final Pattern LOCAL_USES = Pattern.compile("\\./\\.github/workflows/[^/\\\\]+\\.ya?ml");

  static final String TOO_DEEP = " levels deep; GitHub follows at most ";

  private final WorkflowReader r;
  private final LoadRun run;
  private final int depth;

  CallSection(WorkflowReader r, LoadRun run, int depth) {
    this.r = r;
    this.run = run;
    this.depth = depth;
  }

  /** The call of a job mapping; empty when the job calls nothing or the call is malformed. */
  Optional<JobCall> read(Node.MapNode m, String id, String path) {
    Node.Entry uses = m.entries().get("uses");
    if (uses == null) {
      return Optional.empty();
    }
    Optional<String> u = r.text(uses.value(), path + ".uses");
    if (u.isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> with = with(m, path);
    SourceLocation at = uses.value().location();
    if (u.get().isEmpty()) {
      r.problem(at, path + ".uses", "expected a reusable workflow, found an empty string");
      return Optional.empty();
    }
    JobCall call = new JobCall(u.get(), with, at);
    if (call.local() && !LOCAL_USES.matcher(u.get()).matches()) {
      r.problem(at, path + ".uses", "calls the local reusable workflow '" + TreeParser.shown(u.get())
          + "'; expected ./.github/workflows/<file>.yml or .yaml, the only local path GitHub reads");
      return Optional.empty();
    }
    if (!call.local()) {
      r.warn(at, id, "calls the remote reusable workflow '" + TreeParser.shown(u.get())
          + "'; the simulation treats it as one opaque job");
      return Optional.of(call);
    }
    return Optional.of(called(call, id, path + ".uses"));
  }

  private Map<String, String> with(Node.MapNode m, String path) {
    Map<String, String> with = new LinkedHashMap<>();
    Node.Entry w = m.entries().get("with");
    if (w == null) {
      return with;
    }
    if (w.value() instanceof Node.MapNode wm) {
      for (Node.Entry x : wm.entries().values()) {
        r.text(x.value(), path + ".with." + x.key()).ifPresent(t -> with.put(x.key(), t));
      }
    } else {
      r.problem(w.value().location(), path + ".with", "expected a mapping of inputs, found " + w.value().describe());
    }
    return with;
  }

  /** A local call with its called workflow read and its inputs checked, when the host has the file. */
  private JobCall called(JobCall call, String job, String path) {
    SourceLocation at = call.location();
    if (depth + 1 >= WorkflowLoader.MAX_CALL_DEPTH) {
      r.problem(at, path, "calls '" + TreeParser.shown(call.uses()) + "' more than " + WorkflowLoader.MAX_CALL_DEPTH
          + TOO_DEEP + WorkflowLoader.MAX_CALL_DEPTH);
      return call;
    }
    Optional<String> text = run.text(call.uses());
    if (text.isEmpty()) {
      r.warn(at, job, "calls the local reusable workflow '" + TreeParser.shown(call.uses())
          + "', which is not there to read; the simulation treats it as one opaque job");
      return call;
    }
    String name = call.uses().substring(call.uses().lastIndexOf('/') + 1);
    LoadRun.Called loaded = load(call, name, text.get());
    if (loaded.workflow().isEmpty() && !loaded.tooDeep().isEmpty()) {
      // the called file is a workflow whose own calls nest too deep: our message, which quotes only a reference
      r.problems(loaded.tooDeep());
      return call;
    }
    if (loaded.workflow().isEmpty()) {
      // the problems are not quoted: the text the host gave may be any file
      r.problem(at, path, "calls '" + TreeParser.shown(call.uses()) + "', which does not load as a workflow ("
          + loaded.problems() + (loaded.problems() == 1 ? " problem" : " problems")
          + loaded.failedAt().map(l -> ", the first at line " + l.line() + ", column " + l.column()).orElse("")
          + "); expected a valid reusable workflow (lint it on its own to see the problems)");
      return call;
    }
    Workflow callee = loaded.workflow().get();
    return checkInputs(call, callee, name, path) ? call.withCallee(callee) : call;
  }

  /** The called workflow as loaded once per load and depth. */
  private LoadRun.Called load(JobCall call, String name, String text) {
    String key = (depth + 1) + " " + call.uses();
    LoadRun.Called loaded = run.called().get(key);
    if (loaded == null) {
      try {
        loaded = new LoadRun.Called(Optional.of(WorkflowLoader.load(name, text, run, depth + 1)), Optional.empty(),
            0, List.of());
      } catch (InvalidWorkflowException e) {
        boolean depthOnly = e.problems().stream().allMatch(x -> x.message().contains(TOO_DEEP));
        List<PolicyProblem> problems = e.problems();
        loaded = new LoadRun.Called(Optional.empty(), problems.get(0).location(), problems.size(),
            depthOnly ? problems : List.of());
      }
      run.called().put(key, loaded);
    }
    return loaded;
  }

  /** Whether the callee declares {@code workflow_call} and takes the inputs given; a problem where it does not. */
  private boolean checkInputs(JobCall call, Workflow callee, String name, String path) {
    SourceLocation at = call.location();
    Optional<Trigger> trigger = callee.trigger("workflow_call");
    if (trigger.isEmpty()) {
      r.problem(at, path, "calls '" + TreeParser.shown(call.uses()) + "', which has no on.workflow_call; a reusable"
          + " workflow must declare it");
      return false;
    }
    Set<String> declared = new LinkedHashSet<>();
    trigger.get().inputs().forEach(i -> declared.add(i.name()));
    for (String given : call.with().keySet()) {
      if (!declared.contains(given)) {
        r.problem(at, path, "passes input '" + TreeParser.shown(given) + "', which " + name + " does not declare;"
            + " expected one of " + declared);
      }
    }
    for (WorkflowInput i : trigger.get().inputs()) {
      if (i.required() && i.defaultValue().isEmpty() && !call.with().containsKey(i.name())) {
        r.problem(at, path, "does not pass the required input '" + i.name() + "' of " + name);
      }
    }
    return true;
  }
}
