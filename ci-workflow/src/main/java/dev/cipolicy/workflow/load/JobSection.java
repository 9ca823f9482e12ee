package dev.cipolicy.workflow.load;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.core.load.Node;
import dev.cipolicy.core.load.TreeParser;
import dev.cipolicy.workflow.Condition;
import dev.cipolicy.workflow.InvalidExpressionException;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.Step;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads {@code jobs:}: for each job in file order {@code needs}, {@code if}, {@code continue-on-error},
 * {@code strategy} ({@link StrategySection}), {@code runs-on}, {@code outputs}, {@code concurrency}
 * ({@link ConcurrencySection}), {@code env}, {@code steps} and {@code uses}/{@code with} ({@link CallSection});
 * then checks that every need names a job of the workflow.
 */
final class JobSection {
  private static final Pattern JOB_ID =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_-]{0," + (WorkflowLoader.MAX_JOB_ID - 1) + "}");

  private final WorkflowReader r;
  private final CallSection calls;

  JobSection(WorkflowReader r, CallSection calls) {
    this.r = r;
    this.calls = calls;
  }

  /** The jobs of the workflow mapping; a missing, empty or malformed {@code jobs:} is a problem. */
  List<Job> read(Node.MapNode root) {
    List<Job> jobs = new ArrayList<>();
    Node.Entry jobsEntry = root.entries().get("jobs");
    if (jobsEntry == null) {
      r.problem(root.location(), "", "missing 'jobs:'; expected a mapping of job ids");
    } else if (jobsEntry.value() instanceof Node.MapNode jm && !jm.entries().isEmpty()) {
      for (Node.Entry j : jm.entries().values()) {
        job(j).ifPresent(jobs::add);
      }
      checkNeeds(jm, jobs);
    } else if (jobsEntry.value() instanceof Node.MapNode) {
      r.problem(jobsEntry.value().location(), "jobs", "the workflow has no job; expected at least one under 'jobs:'");
    } else {
      r.problem(jobsEntry.value().location(), "jobs",
          "expected a mapping of job ids, found " + jobsEntry.value().describe());
    }
    return jobs;
  }

  private Optional<Job> job(Node.Entry e) {
    String id = e.key();
    String path = "jobs." + id;
    if (!validId(e)) {
      return Optional.empty();
    }
    if (!(e.value() instanceof Node.MapNode m)) {
      r.problem(e.value().location(), path, "expected a job mapping, found " + e.value().describe());
      return Optional.empty();
    }
    Job.Builder b = Job.builder(id, e.keyLocation());
    int before = r.problemCount();
    needs(m, id, path, b);
    condition(m, path, b);
    continueOnError(m, id, path, b);
    Node.Entry strategy = m.entries().get("strategy");
    if (strategy != null) {
      new StrategySection(r).read(strategy, path + ".strategy").ifPresent(b::matrix);
    }
    runsOn(m, path, b);
    outputs(m, path, b);
    new ConcurrencySection(r).read(m, path + ".concurrency").ifPresent(b::concurrency);
    r.textMap(m, "env", path + ".env").forEach(b::env);
    steps(m, path, b);
    calls.read(m, id, path).ifPresent(b::call);
    if (r.problemCount() > before) {
      return Optional.empty();
    }
    try {
      return Optional.of(b.build());
    } catch (InvalidValueException x) {
      for (InvalidValueException.Problem p : x.problems()) {
        r.problem(e.keyLocation(), path, p.message());
      }
      return Optional.empty();
    }
  }

  private boolean validId(Node.Entry e) {
    String id = e.key();
    if (id.isEmpty()) {
      r.problem(e.keyLocation(), "jobs", "a job id must not be empty");
      return false;
    }
    if (!JOB_ID.matcher(id).matches()) {
      r.problem(e.keyLocation(), "jobs", "job id '" + TreeParser.shown(id) + "' must start with a letter or _ and"
          + " hold only letters, digits, - and _ (at most " + WorkflowLoader.MAX_JOB_ID + " characters), as GitHub"
          + " requires");
      return false;
    }
    return true;
  }

  private void needs(Node.MapNode m, String id, String path, Job.Builder b) {
    Node.Entry needs = m.entries().get("needs");
    if (needs == null) {
      return;
    }
    Set<String> seen = new HashSet<>();
    for (String n : r.strings(needs.value(), path + ".needs")) {
      if (n.equals(id)) {
        r.problem(needs.value().location(), path + ".needs", "job '" + id + "' cannot need itself");
      } else if (!seen.add(n)) {
        r.problem(needs.value().location(), path + ".needs", "lists '" + n + "' twice; expected each job once");
      } else {
        b.needs(n);
      }
    }
  }

  private void condition(Node.MapNode m, String path, Job.Builder b) {
    Node.Entry cond = m.entries().get("if");
    if (cond == null) {
      return;
    }
    r.text(cond.value(), path + ".if").ifPresent(t -> {
      try {
        b.condition(Condition.parse(t, cond.value().location()));
      } catch (InvalidExpressionException x) {
        r.problem(cond.value().location(), path + ".if", x.getMessage());
      }
    });
  }

  private void continueOnError(Node.MapNode m, String id, String path, Job.Builder b) {
    Node.Entry coe = m.entries().get("continue-on-error");
    if (coe == null) {
      return;
    }
    if (WorkflowReader.isExpression(coe.value())) {
      Node.Scalar s = (Node.Scalar) coe.value();
      r.expression(s.text(), s.location(), path + ".continue-on-error");
      r.warn(s.location(), id, "continue-on-error is the expression '" + TreeParser.shown(s.text())
          + "'; the simulation treats it as false");
    } else {
      r.bool(coe.value(), path + ".continue-on-error").ifPresent(b::continueOnError);
    }
  }

  private void runsOn(Node.MapNode m, String path, Job.Builder b) {
    Node.Entry runsOn = m.entries().get("runs-on");
    if (runsOn == null) {
      return;
    }
    Node v = runsOn.value();
    if (v instanceof Node.MapNode rm) {
      Node.Entry g = rm.entries().get("group");
      Node.Entry labels = rm.entries().get("labels");
      if (g != null) {
        r.text(g.value(), path + ".runs-on.group").ifPresent(x -> b.runsOn("group:" + x));
      }
      if (labels != null) {
        b.runsOn(r.strings(labels.value(), path + ".runs-on.labels").toArray(String[]::new));
      }
    } else {
      b.runsOn(r.strings(v, path + ".runs-on").toArray(String[]::new));
    }
  }

  private void outputs(Node.MapNode m, String path, Job.Builder b) {
    Node.Entry outputs = m.entries().get("outputs");
    if (outputs == null) {
      return;
    }
    if (!(outputs.value() instanceof Node.MapNode om)) {
      r.problem(outputs.value().location(), path + ".outputs", "expected a mapping of outputs, found "
          + outputs.value().describe());
      return;
    }
    for (Node.Entry o : om.entries().values()) {
      String op = path + ".outputs." + o.key();
      r.text(o.value(), op).ifPresent(t -> {
        if (r.expression(t, o.value().location(), op)) {
          b.output(o.key(), t, o.keyLocation());
        }
      });
    }
  }

  private void steps(Node.MapNode m, String path, Job.Builder b) {
    Node.Entry steps = m.entries().get("steps");
    if (steps == null) {
      return;
    }
    if (!(steps.value() instanceof Node.ListNode sl)) {
      r.problem(steps.value().location(), path + ".steps", "expected a list of steps, found "
          + steps.value().describe());
      return;
    }
    for (int i = 0; i < sl.items().size(); i++) {
      step(sl.items().get(i), path + ".steps[" + i + "]").ifPresent(b::step);
    }
  }

  private Optional<Step> step(Node item, String path) {
    if (!(item instanceof Node.MapNode sm)) {
      r.problem(item.location(), path, "expected a step mapping (run or uses, with, env...), found "
          + item.describe());
      return Optional.empty();
    }
    Optional<String> id = sm.entries().containsKey("id") ? r.scalar(sm, "id", path + ".id") : Optional.empty();
    Optional<String> run = sm.entries().containsKey("run") ? r.scalar(sm, "run", path + ".run") : Optional.empty();
    Optional<String> uses = sm.entries().containsKey("uses") ? r.scalar(sm, "uses", path + ".uses")
        : Optional.empty();
    if (run.isEmpty() && uses.isEmpty()) {
      if (!sm.entries().containsKey("run") && !sm.entries().containsKey("uses")) {
        r.problem(item.location(), path, "a step needs 'run:' (a command) or 'uses:' (an action)");
      }
      return Optional.empty();
    }
    return Optional.of(new Step(id, run, uses, r.textMap(sm, "with", path + ".with"),
        r.textMap(sm, "env", path + ".env"), item.location()));
  }

  /** A need naming no job is reported where the need is written. */
  private void checkNeeds(Node.MapNode jobsMap, List<Job> jobs) {
    Set<String> ids = jobsMap.entries().keySet();
    for (Job j : jobs) {
      Node.Entry e = jobsMap.entries().get(j.id());
      Node.Entry needsEntry = e != null && e.value() instanceof Node.MapNode m ? m.entries().get("needs") : null;
      Node needsNode = needsEntry == null ? null : needsEntry.value();
      for (String n : j.needs()) {
        if (!ids.contains(n)) {
          SourceLocation at = needsNode == null ? j.location() : needsNode.location();
          if (needsNode instanceof Node.ListNode l) {
            for (Node item : l.items()) {
              if (item instanceof Node.Scalar s && s.text().equals(n)) {
                at = s.location();
              }
            }
          }
          r.problem(at, "jobs." + j.id() + ".needs", "needs '" + n + "', which is not a job of the workflow;"
              + " expected one of " + ids.stream().sorted().toList());
        }
      }
    }
  }
}
