package dev.cipolicy.core.load;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.core.workflow.Concurrency;
import dev.cipolicy.core.workflow.Condition;
import dev.cipolicy.core.workflow.ExprValue;
import dev.cipolicy.core.workflow.Expression;
import dev.cipolicy.core.workflow.InvalidExpressionException;
import dev.cipolicy.core.workflow.InvalidWorkflowException;
import dev.cipolicy.core.workflow.Job;
import dev.cipolicy.core.workflow.JobCall;
import dev.cipolicy.core.workflow.Matrix;
import dev.cipolicy.core.workflow.Step;
import dev.cipolicy.core.workflow.Trigger;
import dev.cipolicy.core.workflow.Workflow;
import dev.cipolicy.core.workflow.WorkflowInput;
import dev.cipolicy.core.workflow.WorkflowWarning;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads a GitHub Actions workflow file into the job model of {@code dev.cipolicy.core.workflow}, with the
 * file, line and column of every construct. The text goes through the same reader as policy documents, so
 * the same {@link DocumentLimits} apply and YAML aliases and merge keys are rejected; {@code max-parallel}
 * must be a plain decimal integer or an expression.
 *
 * <p>Read: {@code name}, {@code on} (a string, a list or a mapping of events, with {@code types}, the
 * {@code schedule} crons and the {@code workflow_dispatch}/{@code workflow_call} inputs),
 * {@code concurrency}, and for each job in file order {@code needs}, {@code if}, {@code strategy}
 * ({@code matrix} — legs counted from a literal matrix with {@code include}/{@code exclude}, or dynamic
 * for a {@code ${{ }}} matrix — {@code fail-fast}, {@code max-parallel}), {@code continue-on-error},
 * {@code runs-on}, {@code outputs}, {@code concurrency}, {@code env}, {@code steps} ({@code id}, {@code run},
 * {@code uses}, {@code with}, {@code env}) and {@code uses}/{@code with}. Everything else (permissions,
 * services...) is accepted and ignored. {@code max-parallel} may be a {@code ${{ }}} expression, decided per run.
 *
 * <p>A job that calls a local reusable workflow ({@code uses: ./.github/workflows/x.yml}) has the called
 * workflow read too when the host supplies its text ({@link #load(String, String, Function)}): it must load,
 * declare {@code on.workflow_call}, and take the {@code with:} inputs the caller gives (no unknown input, every
 * required input without a default given). A local workflow the host cannot supply, or a remote one, is
 * simulated as one opaque job with a warning. Calls nest at most {@link #MAX_CALL_DEPTH} levels. A local
 * reference must be what GitHub accepts, {@code ./.github/workflows/<file>.yml} or {@code .yaml} (no other
 * directory, no {@code ..}). Each called file is asked of the host, parsed and checked once per load, however
 * many jobs call it; the jobs of the workflow and of every workflow it calls, counted once per call, are at
 * most {@link #MAX_EXPANDED_JOBS}. A called file that does not load is reported at the call by its first
 * problem's position, never by quoting its text (the host may have been handed a file that is no workflow).
 *
 * <pre>{@code
 * Workflow w = WorkflowLoader.load("pr-test.yml", text);
 * Simulation s = WorkflowSimulator.of(w).simulate(Scenario.of(Event.named("pull_request")));
 * }</pre>
 */
public final class WorkflowLoader {
  /** The most legs a literal matrix may have: GitHub's limit on the jobs of one matrix. */
  public static final int MAX_MATRIX_LEGS = 256;

  /** The longest job id read: 100 characters. */
  public static final int MAX_JOB_ID = 100;

  private static final Pattern JOB_ID = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]{0," + (MAX_JOB_ID - 1) + "}");

  /** How deep reusable workflow calls are followed: GitHub's limit of four levels. */
  public static final int MAX_CALL_DEPTH = 4;

  /**
   * The most jobs one load models: the workflow's own plus, for every call of a local reusable workflow, the
   * called workflow's (counted again for each call, as a run would run them): 25,000.
   */
  public static final int MAX_EXPANDED_JOBS = 25_000;

  /** The local reusable workflow references GitHub accepts. */
  private static final Pattern LOCAL_USES = Pattern.compile("\\./\\.github/workflows/[^/\\\\]+\\.ya?ml");

  private final String source;
  private final Run run;
  private final int depth;
  private final List<PolicyProblem> problems = new ArrayList<>();
  private final List<WorkflowWarning> warnings = new ArrayList<>();

  private WorkflowLoader(String source, Run run, int depth) {
    this.source = source;
    this.run = run;
    this.depth = depth;
  }

  /** What one load shares between the workflow and the workflows it calls: each called file once. */
  private static final class Run {
    final Function<String, Optional<String>> locals;
    final Map<String, Optional<String>> texts = new HashMap<>();
    final Map<String, Called> called = new HashMap<>();
    final IdentityHashMap<Workflow, Long> expanded = new IdentityHashMap<>();

    Run(Function<String, Optional<String>> locals) {
      this.locals = locals;
    }

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
        n = Math.min(n, (long) MAX_EXPANDED_JOBS + 1);
      }
      expanded.put(w, n);
      return n;
    }
  }

  /** A called workflow as loaded at one depth: the workflow, or the first problem's location when it failed. */
  private record Called(Optional<Workflow> workflow, Optional<SourceLocation> failedAt, int problems,
      List<PolicyProblem> tooDeep) {}

  private static final String TOO_DEEP = " levels deep; GitHub follows at most ";

  /**
   * Parses a workflow file and the local reusable workflows its jobs call.
   *
   * @param sourceName the file name, used in messages and as {@link Workflow#file()}
   * @param text the file's text
   * @param locals the text of a local reusable workflow by its {@code uses:} reference as written (e.g.
   *     {@code ./.github/workflows/build.yml}), empty when the host does not have it
   * @return the workflow, each local call with its called workflow when supplied
   * @throws InvalidWorkflowException as {@link #load(String, String)} does, and for a called workflow that does
   *     not load, declares no {@code workflow_call}, or does not take the inputs given
   */
  public static Workflow load(String sourceName, String text, Function<String, Optional<String>> locals) {
    Run run = new Run(locals);
    Workflow w = load(sourceName, text, run, 0);
    long jobs = run.expanded(w);
    if (jobs > MAX_EXPANDED_JOBS) {
      throw new InvalidWorkflowException(List.of(new PolicyProblem(Optional.of(new SourceLocation(sourceName, 1, 1)),
          "jobs", "the workflow and the reusable workflows it calls make more than " + MAX_EXPANDED_JOBS
              + " jobs (each call counts the called workflow's jobs again); expected at most " + MAX_EXPANDED_JOBS)));
    }
    return w;
  }

  private static Workflow load(String sourceName, String text, Run run, int depth) {
    Node root;
    try {
      root = TreeParser.parse(sourceName, text, DocumentFormat.YAML);
    } catch (InvalidPolicyException e) {
      throw new InvalidWorkflowException(e.problems());
    }
    return new WorkflowLoader(sourceName, run, depth).read(root);
  }

  /**
   * Parses a workflow file.
   *
   * @param sourceName the file name, used in messages and as {@link Workflow#file()}
   * @param text the file's text
   * @return the workflow
   * @throws InvalidWorkflowException listing every problem with its location, for malformed YAML, a
   *     construct of the wrong shape, a bad expression, a need naming no job or a cycle
   */
  public static Workflow load(String sourceName, String text) {
    return load(sourceName, text, uses -> Optional.empty());
  }

  private Workflow read(Node root) {
    if (!(root instanceof Node.MapNode map)) {
      throw new InvalidWorkflowException(List.of(new PolicyProblem(Optional.of(root.location()), "",
          "expected a workflow mapping (name, on, jobs), found " + root.describe())));
    }
    Optional<String> name = scalar(map, "name", "name");
    List<Trigger> triggers = new ArrayList<>();
    Node.Entry on = map.entries().get("on");
    if (on == null) {
      problem(root.location(), "", "missing 'on:'; expected the events the workflow runs on");
    } else {
      readOn(on.value(), triggers);
    }
    Optional<Concurrency> concurrency = concurrency(map, "concurrency");
    List<Job> jobs = new ArrayList<>();
    Node.Entry jobsEntry = map.entries().get("jobs");
    if (jobsEntry == null) {
      problem(root.location(), "", "missing 'jobs:'; expected a mapping of job ids");
    } else if (jobsEntry.value() instanceof Node.MapNode jm && !jm.entries().isEmpty()) {
      for (Node.Entry j : jm.entries().values()) {
        readJob(j).ifPresent(jobs::add);
      }
      checkNeeds(jm, jobs);
    } else if (jobsEntry.value() instanceof Node.MapNode) {
      problem(jobsEntry.value().location(), "jobs", "the workflow has no job; expected at least one under 'jobs:'");
    } else {
      problem(jobsEntry.value().location(), "jobs",
          "expected a mapping of job ids, found " + jobsEntry.value().describe());
    }
    failOnProblems();
    try {
      return new Workflow(source, name, triggers, jobs, concurrency, warnings);
    } catch (InvalidValueException e) {
      for (InvalidValueException.Problem p : e.problems()) {
        problem(jobsEntry == null ? root.location() : jobsEntry.keyLocation(), "jobs", p.message());
      }
      failOnProblems();
      throw e;
    }
  }

  private void failOnProblems() {
    if (!problems.isEmpty()) {
      throw new InvalidWorkflowException(problems);
    }
  }

  private void problem(SourceLocation at, String path, String message) {
    problems.add(new PolicyProblem(Optional.of(at), path, message));
  }

  // ---- on: ---------------------------------------------------------------------------------------

  private void readOn(Node on, List<Trigger> out) {
    if (on instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING) {
      out.add(new Trigger(s.text(), List.of(), s.location()));
    } else if (on instanceof Node.ListNode l) {
      for (int i = 0; i < l.items().size(); i++) {
        Node item = l.items().get(i);
        if (item instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && !s.text().isEmpty()) {
          out.add(new Trigger(s.text(), List.of(), s.location()));
        } else {
          problem(item.location(), "on[" + i + "]", "expected an event name, found " + item.describe());
        }
      }
    } else if (on instanceof Node.MapNode m) {
      for (Node.Entry e : m.entries().values()) {
        readTrigger(e).ifPresent(out::add);
      }
    } else {
      problem(on.location(), "on", "expected an event name, a list or a mapping of events, found " + on.describe());
    }
  }

  private Optional<Trigger> readTrigger(Node.Entry e) {
    String path = "on." + e.key();
    Node v = e.value();
    List<String> types = new ArrayList<>();
    List<String> crons = new ArrayList<>();
    List<WorkflowInput> inputs = new ArrayList<>();
    if (e.key().equals("schedule")) {
      if (v instanceof Node.ListNode l) {
        for (int i = 0; i < l.items().size(); i++) {
          Node item = l.items().get(i);
          Optional<String> cron = item instanceof Node.MapNode cm ? scalar(cm, "cron", path + "[" + i + "].cron")
              : Optional.empty();
          if (cron.isPresent()) {
            crons.add(cron.get());
          } else {
            problem(item.location(), path + "[" + i + "]", "expected {cron: '...'}, found " + item.describe());
          }
        }
      } else {
        problem(v.location(), path, "expected a list of {cron: '...'}, found " + v.describe());
      }
    } else if (v instanceof Node.MapNode m) {
      Node.Entry t = m.entries().get("types");
      if (t != null) {
        types.addAll(strings(t.value(), path + ".types"));
      }
      Node.Entry in = m.entries().get("inputs");
      if (in != null && (e.key().equals("workflow_dispatch") || e.key().equals("workflow_call"))) {
        if (in.value() instanceof Node.MapNode im) {
          for (Node.Entry i : im.entries().values()) {
            inputs.add(input(i, path + ".inputs." + i.key()));
          }
        } else if (!isNull(in.value())) {
          problem(in.value().location(), path + ".inputs", "expected a mapping of inputs, found "
              + in.value().describe());
        }
      }
    } else if (!isNull(v)) {
      problem(v.location(), path, "expected a mapping (types, branches, inputs...) or nothing, found "
          + v.describe());
    }
    if (e.key().isEmpty()) {
      problem(e.keyLocation(), "on", "an event name must not be empty");
      return Optional.empty();
    }
    return Optional.of(new Trigger(e.key(), types, crons, inputs, e.keyLocation()));
  }

  private WorkflowInput input(Node.Entry e, String path) {
    Optional<String> type = Optional.empty();
    boolean required = false;
    Optional<String> def = Optional.empty();
    if (e.value() instanceof Node.MapNode m) {
      type = scalar(m, "type", path + ".type");
      Node.Entry r = m.entries().get("required");
      if (r != null) {
        required = bool(r.value(), path + ".required").orElse(false);
      }
      Node.Entry d = m.entries().get("default");
      if (d != null) {
        def = text(d.value(), path + ".default");
      }
    } else if (!isNull(e.value())) {
      problem(e.value().location(), path, "expected a mapping (type, required, default...), found "
          + e.value().describe());
    }
    return new WorkflowInput(e.key(), type, required, def, e.keyLocation());
  }

  // ---- jobs --------------------------------------------------------------------------------------

  private Optional<Job> readJob(Node.Entry e) {
    String id = e.key();
    String path = "jobs." + id;
    if (id.isEmpty()) {
      problem(e.keyLocation(), "jobs", "a job id must not be empty");
      return Optional.empty();
    }
    if (!JOB_ID.matcher(id).matches()) {
      problem(e.keyLocation(), "jobs", "job id '" + TreeParser.shown(id) + "' must start with a letter or _ and"
          + " hold only letters, digits, - and _ (at most " + MAX_JOB_ID + " characters), as GitHub requires");
      return Optional.empty();
    }
    if (!(e.value() instanceof Node.MapNode m)) {
      problem(e.value().location(), path, "expected a job mapping, found " + e.value().describe());
      return Optional.empty();
    }
    Job.Builder b = Job.builder(id, e.keyLocation());
    int before = problems.size();
    Node.Entry needs = m.entries().get("needs");
    List<String> needed = new ArrayList<>();
    if (needs != null) {
      needed.addAll(strings(needs.value(), path + ".needs"));
      Set<String> seen = new HashSet<>();
      for (String n : needed) {
        if (n.equals(id)) {
          problem(needs.value().location(), path + ".needs", "job '" + id + "' cannot need itself");
        } else if (!seen.add(n)) {
          problem(needs.value().location(), path + ".needs", "lists '" + n + "' twice; expected each job once");
        } else {
          b.needs(n);
        }
      }
    }
    Node.Entry cond = m.entries().get("if");
    if (cond != null) {
      text(cond.value(), path + ".if").ifPresent(t -> {
        try {
          b.condition(Condition.parse(t, cond.value().location()));
        } catch (InvalidExpressionException x) {
          problem(cond.value().location(), path + ".if", x.getMessage());
        }
      });
    }
    Node.Entry coe = m.entries().get("continue-on-error");
    if (coe != null) {
      if (coe.value() instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && s.text().contains("${{")) {
        expression(s.text(), s.location(), path + ".continue-on-error");
        warnings.add(new WorkflowWarning(s.location(), id, "continue-on-error is the expression '"
            + TreeParser.shown(s.text()) + "'; the simulation treats it as false"));
      } else {
        bool(coe.value(), path + ".continue-on-error").ifPresent(b::continueOnError);
      }
    }
    Node.Entry strategy = m.entries().get("strategy");
    if (strategy != null) {
      strategy(strategy, path + ".strategy").ifPresent(b::matrix);
    }
    Node.Entry runsOn = m.entries().get("runs-on");
    if (runsOn != null) {
      Node v = runsOn.value();
      if (v instanceof Node.MapNode rm) {
        Node.Entry g = rm.entries().get("group");
        Node.Entry labels = rm.entries().get("labels");
        if (g != null) {
          text(g.value(), path + ".runs-on.group").ifPresent(x -> b.runsOn("group:" + x));
        }
        if (labels != null) {
          b.runsOn(strings(labels.value(), path + ".runs-on.labels").toArray(String[]::new));
        }
      } else {
        b.runsOn(strings(v, path + ".runs-on").toArray(String[]::new));
      }
    }
    Node.Entry outputs = m.entries().get("outputs");
    if (outputs != null) {
      if (outputs.value() instanceof Node.MapNode om) {
        for (Node.Entry o : om.entries().values()) {
          String op = path + ".outputs." + o.key();
          text(o.value(), op).ifPresent(t -> {
            if (expression(t, o.value().location(), op)) {
              b.output(o.key(), t, o.keyLocation());
            }
          });
        }
      } else {
        problem(outputs.value().location(), path + ".outputs", "expected a mapping of outputs, found "
            + outputs.value().describe());
      }
    }
    concurrency(m, path + ".concurrency").ifPresent(b::concurrency);
    textMap(m, "env", path + ".env").forEach(b::env);
    Node.Entry steps = m.entries().get("steps");
    if (steps != null) {
      if (steps.value() instanceof Node.ListNode sl) {
        for (int i = 0; i < sl.items().size(); i++) {
          step(sl.items().get(i), path + ".steps[" + i + "]").ifPresent(b::step);
        }
      } else {
        problem(steps.value().location(), path + ".steps", "expected a list of steps, found "
            + steps.value().describe());
      }
    }
    Node.Entry uses = m.entries().get("uses");
    if (uses != null) {
      text(uses.value(), path + ".uses").ifPresent(u -> {
        Map<String, String> with = new LinkedHashMap<>();
        Node.Entry w = m.entries().get("with");
        if (w != null) {
          if (w.value() instanceof Node.MapNode wm) {
            for (Node.Entry x : wm.entries().values()) {
              text(x.value(), path + ".with." + x.key()).ifPresent(t -> with.put(x.key(), t));
            }
          } else {
            problem(w.value().location(), path + ".with", "expected a mapping of inputs, found "
                + w.value().describe());
          }
        }
        if (u.isEmpty()) {
          problem(uses.value().location(), path + ".uses", "expected a reusable workflow, found an empty string");
          return;
        }
        JobCall call = new JobCall(u, with, uses.value().location());
        if (call.local() && !LOCAL_USES.matcher(u).matches()) {
          problem(uses.value().location(), path + ".uses", "calls the local reusable workflow '" + TreeParser.shown(u)
              + "'; expected ./.github/workflows/<file>.yml or .yaml, the only local path GitHub reads");
          return;
        }
        if (!call.local()) {
          warnings.add(new WorkflowWarning(uses.value().location(), id, "calls the remote reusable workflow '"
              + TreeParser.shown(u) + "'; the simulation treats it as one opaque job"));
        } else {
          call = called(call, id, path + ".uses");
        }
        b.call(call);
      });
    }
    if (problems.size() > before) {
      return Optional.empty();
    }
    try {
      return Optional.of(b.build());
    } catch (InvalidValueException x) {
      for (InvalidValueException.Problem p : x.problems()) {
        problem(e.keyLocation(), path, p.message());
      }
      return Optional.empty();
    }
  }

  private Optional<Step> step(Node item, String path) {
    if (!(item instanceof Node.MapNode sm)) {
      problem(item.location(), path, "expected a step mapping (run or uses, with, env...), found " + item.describe());
      return Optional.empty();
    }
    Optional<String> id = sm.entries().containsKey("id") ? scalar(sm, "id", path + ".id") : Optional.empty();
    Optional<String> run = sm.entries().containsKey("run") ? scalar(sm, "run", path + ".run") : Optional.empty();
    Optional<String> uses = sm.entries().containsKey("uses") ? scalar(sm, "uses", path + ".uses") : Optional.empty();
    if (run.isEmpty() && uses.isEmpty()) {
      if (!sm.entries().containsKey("run") && !sm.entries().containsKey("uses")) {
        problem(item.location(), path, "a step needs 'run:' (a command) or 'uses:' (an action)");
      }
      return Optional.empty();
    }
    return Optional.of(new Step(id, run, uses, textMap(sm, "with", path + ".with"), textMap(sm, "env", path + ".env"),
        item.location()));
  }

  /** A mapping of names to scalars ({@code with:}, {@code env:}), as text; absent is empty. */
  private Map<String, String> textMap(Node.MapNode m, String key, String path) {
    Map<String, String> out = new LinkedHashMap<>();
    Node.Entry e = m.entries().get(key);
    if (e == null || isNull(e.value())) {
      return out;
    }
    if (e.value() instanceof Node.MapNode vm) {
      for (Node.Entry x : vm.entries().values()) {
        text(x.value(), path + "." + x.key()).ifPresent(t -> out.put(x.key(), t));
      }
    } else if (e.value() instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && s.text().contains("${{")) {
      out.put("", s.text());
    } else {
      problem(e.value().location(), path, "expected a mapping of names to values, found " + e.value().describe());
    }
    return out;
  }

  /** A local call with its called workflow read and its inputs checked, when the host has the file. */
  private JobCall called(JobCall call, String job, String path) {
    SourceLocation at = call.location();
    if (depth + 1 >= MAX_CALL_DEPTH) {
      problem(at, path, "calls '" + TreeParser.shown(call.uses()) + "' more than " + MAX_CALL_DEPTH + TOO_DEEP
          + MAX_CALL_DEPTH);
      return call;
    }
    Optional<String> text = run.text(call.uses());
    if (text.isEmpty()) {
      warnings.add(new WorkflowWarning(at, job, "calls the local reusable workflow '" + TreeParser.shown(call.uses())
          + "', which is not there to read; the simulation treats it as one opaque job"));
      return call;
    }
    String name = call.uses().substring(call.uses().lastIndexOf('/') + 1);
    String key = (depth + 1) + " " + call.uses();
    Called loaded = run.called.get(key);
    if (loaded == null) {
      try {
        loaded = new Called(Optional.of(load(name, text.get(), run, depth + 1)), Optional.empty(), 0, List.of());
      } catch (InvalidWorkflowException e) {
        boolean depthOnly = e.problems().stream().allMatch(x -> x.message().contains(TOO_DEEP));
        loaded = new Called(Optional.empty(), e.problems().get(0).location(), e.problems().size(),
            depthOnly ? e.problems() : List.of());
      }
      run.called.put(key, loaded);
    }
    if (loaded.workflow().isEmpty() && !loaded.tooDeep().isEmpty()) {
      // the called file is a workflow whose own calls nest too deep: our message, which quotes only a reference
      problems.addAll(loaded.tooDeep());
      return call;
    }
    if (loaded.workflow().isEmpty()) {
      // the problems are not quoted: the text the host gave may be any file
      problem(at, path, "calls '" + TreeParser.shown(call.uses()) + "', which does not load as a workflow ("
          + loaded.problems() + (loaded.problems() == 1 ? " problem" : " problems")
          + loaded.failedAt().map(l -> ", the first at line " + l.line() + ", column " + l.column()).orElse("")
          + "); expected a valid reusable workflow (lint it on its own to see the problems)");
      return call;
    }
    Workflow callee = loaded.workflow().get();
    Optional<Trigger> trigger = callee.trigger("workflow_call");
    if (trigger.isEmpty()) {
      problem(at, path, "calls '" + TreeParser.shown(call.uses()) + "', which has no on.workflow_call; a reusable"
          + " workflow must declare it");
      return call;
    }
    Set<String> declared = new LinkedHashSet<>();
    trigger.get().inputs().forEach(i -> declared.add(i.name()));
    for (String given : call.with().keySet()) {
      if (!declared.contains(given)) {
        problem(at, path, "passes input '" + TreeParser.shown(given) + "', which " + name + " does not declare;"
            + " expected one of " + declared);
      }
    }
    for (WorkflowInput i : trigger.get().inputs()) {
      if (i.required() && i.defaultValue().isEmpty() && !call.with().containsKey(i.name())) {
        problem(at, path, "does not pass the required input '" + i.name() + "' of " + name);
      }
    }
    return call.withCallee(callee);
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
          problem(at, "jobs." + j.id() + ".needs", "needs '" + n + "', which is not a job of the workflow;"
              + " expected one of " + ids.stream().sorted().toList());
        }
      }
    }
  }

  private Optional<Matrix> strategy(Node.Entry strategy, String path) {
    if (!(strategy.value() instanceof Node.MapNode m)) {
      problem(strategy.value().location(), path, "expected a mapping (matrix, fail-fast, max-parallel), found "
          + strategy.value().describe());
      return Optional.empty();
    }
    SourceLocation at = strategy.keyLocation();
    boolean failFast = true;
    Node.Entry ff = m.entries().get("fail-fast");
    if (ff != null) {
      if (ff.value() instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && s.text().contains("${{")) {
        expression(s.text(), s.location(), path + ".fail-fast");
      } else {
        failFast = bool(ff.value(), path + ".fail-fast").orElse(true);
      }
    }
    Optional<Integer> maxParallel = Optional.empty();
    Optional<String> maxParallelExpression = Optional.empty();
    Node.Entry mp = m.entries().get("max-parallel");
    if (mp != null && mp.value() instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING
        && s.text().contains("${{")) {
      if (!expression(s.text(), s.location(), path + ".max-parallel")) {
        return Optional.empty();
      }
      maxParallelExpression = Optional.of(s.text());
    } else if (mp != null) {
      maxParallel = integer(mp.value(), path + ".max-parallel");
      if (maxParallel.isPresent() && maxParallel.get() < 1) {
        problem(mp.value().location(), path + ".max-parallel", "must be at least 1, got " + maxParallel.get());
        return Optional.empty();
      }
    }
    Node.Entry matrix = m.entries().get("matrix");
    if (matrix == null) {
      return Optional.of(withExpression(new Matrix(List.of(Map.of()), failFast, maxParallel, at),
          maxParallelExpression));
    }
    Node mv = matrix.value();
    if (mv instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && s.text().contains("${{")) {
      return expression(s.text(), s.location(), path + ".matrix")
          ? Optional.of(withExpression(Matrix.dynamic(s.text(), failFast, maxParallel, at), maxParallelExpression))
          : Optional.empty();
    }
    if (!(mv instanceof Node.MapNode mm)) {
      problem(mv.location(), path + ".matrix", "expected a mapping of matrix keys or a ${{ }} expression, found "
          + mv.describe());
      return Optional.empty();
    }
    Optional<String> dynamic = Optional.empty();
    List<String> keys = new ArrayList<>();
    List<List<ExprValue>> values = new ArrayList<>();
    List<Map<String, ExprValue>> include = new ArrayList<>();
    List<Map<String, ExprValue>> exclude = new ArrayList<>();
    for (Node.Entry e : mm.entries().values()) {
      String kp = path + ".matrix." + e.key();
      Node v = e.value();
      if (v instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && s.text().contains("${{")) {
        if (expression(s.text(), s.location(), kp)) {
          dynamic = Optional.of(dynamic.map(d -> d + "; ").orElse("") + e.key() + ": " + s.text());
        }
      } else if (e.key().equals("include") || e.key().equals("exclude")) {
        List<Map<String, ExprValue>> into = e.key().equals("include") ? include : exclude;
        if (v instanceof Node.ListNode l) {
          for (int i = 0; i < l.items().size(); i++) {
            Node item = l.items().get(i);
            if (item instanceof Node.MapNode im) {
              Map<String, ExprValue> combo = new LinkedHashMap<>();
              im.entries().values().forEach(x -> combo.put(x.key(), value(x.value())));
              into.add(combo);
            } else {
              problem(item.location(), kp + "[" + i + "]", "expected a mapping of matrix values, found "
                  + item.describe());
            }
          }
        } else {
          problem(v.location(), kp, "expected a list of mappings, found " + v.describe());
        }
      } else if (v instanceof Node.ListNode l) {
        keys.add(e.key());
        List<ExprValue> vs = new ArrayList<>();
        l.items().forEach(x -> vs.add(value(x)));
        values.add(vs);
      } else {
        problem(v.location(), kp, "expected a list of values or a ${{ }} expression, found " + v.describe());
      }
    }
    if (dynamic.isPresent()) {
      return Optional.of(withExpression(Matrix.dynamic(dynamic.get(), failFast, maxParallel, at),
          maxParallelExpression));
    }
    long product = keys.isEmpty() ? 0 : 1;
    for (List<ExprValue> vs : values) {
      product *= vs.size();
      if (product > MAX_MATRIX_LEGS) {
        break;
      }
    }
    if (product + include.size() > MAX_MATRIX_LEGS) {
      problem(at, path + ".matrix", "the matrix has more than " + MAX_MATRIX_LEGS
          + " combinations; GitHub runs at most " + MAX_MATRIX_LEGS + " jobs per matrix");
      return Optional.empty();
    }
    List<Map<String, ExprValue>> legs = new ArrayList<>();
    if (product > 0) {
      legs.add(new LinkedHashMap<>());
      for (int k = 0; k < keys.size(); k++) {
        List<Map<String, ExprValue>> next = new ArrayList<>();
        for (Map<String, ExprValue> leg : legs) {
          for (ExprValue v : values.get(k)) {
            Map<String, ExprValue> n = new LinkedHashMap<>(leg);
            n.put(keys.get(k), v);
            next.add(n);
          }
        }
        legs = next;
      }
    }
    legs.removeIf(leg -> exclude.stream().anyMatch(x -> x.entrySet().stream()
        .allMatch(kv -> kv.getValue().equals(leg.get(kv.getKey())))));
    int base = legs.size();
    for (Map<String, ExprValue> inc : include) {
      boolean added = false;
      for (int i = 0; i < base; i++) {
        Map<String, ExprValue> leg = legs.get(i);
        boolean fits = inc.entrySet().stream()
            .allMatch(kv -> !keys.contains(kv.getKey()) || kv.getValue().equals(leg.get(kv.getKey())));
        if (fits) {
          leg.putAll(inc);
          added = true;
        }
      }
      if (!added) {
        legs.add(new LinkedHashMap<>(inc));
      }
    }
    if (legs.isEmpty()) {
      problem(at, path + ".matrix", "the matrix has no combination (every one is excluded, or no key has a"
          + " value); expected at least one");
      return Optional.empty();
    }
    return Optional.of(withExpression(new Matrix(legs, failFast, maxParallel, at), maxParallelExpression));
  }

  private static Matrix withExpression(Matrix m, Optional<String> maxParallel) {
    return maxParallel.map(m::withMaxParallelExpression).orElse(m);
  }

  private static ExprValue value(Node n) {
    if (n instanceof Node.Scalar s) {
      return switch (s.kind()) {
        case STRING -> new ExprValue.Str(s.text());
        case INTEGER, DECIMAL -> number(s.text());
        case BOOLEAN -> new ExprValue.Bool(Boolean.parseBoolean(s.text()));
        case NULL -> ExprValue.NULL;
      };
    } else if (n instanceof Node.ListNode l) {
      List<ExprValue> items = new ArrayList<>();
      l.items().forEach(x -> items.add(value(x)));
      return new ExprValue.Arr(items, false);
    }
    Map<String, ExprValue> entries = new LinkedHashMap<>();
    ((Node.MapNode) n).entries().values().forEach(e -> entries.put(e.key(), value(e.value())));
    return ExprValue.Obj.closed(entries);
  }

  private static ExprValue number(String text) {
    try {
      return new ExprValue.Num(Double.parseDouble(text));
    } catch (NumberFormatException e) {
      return new ExprValue.Str(text);
    }
  }

  private Optional<Concurrency> concurrency(Node.MapNode m, String path) {
    Node.Entry c = m.entries().get("concurrency");
    if (c == null) {
      return Optional.empty();
    }
    Node v = c.value();
    if (v instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && !s.text().isEmpty()) {
      return expression(s.text(), s.location(), path)
          ? Optional.of(new Concurrency(s.text(), "false", c.keyLocation())) : Optional.empty();
    }
    if (v instanceof Node.MapNode cm) {
      Optional<String> group = scalar(cm, "group", path + ".group");
      String cancel = "false";
      Node.Entry ci = cm.entries().get("cancel-in-progress");
      if (ci != null) {
        cancel = text(ci.value(), path + ".cancel-in-progress").orElse("false");
        expression(cancel, ci.value().location(), path + ".cancel-in-progress");
      }
      if (group.isEmpty() || group.get().isEmpty()) {
        problem(c.keyLocation(), path, "missing 'group'; expected the concurrency group");
        return Optional.empty();
      }
      return expression(group.get(), c.keyLocation(), path + ".group")
          ? Optional.of(new Concurrency(group.get(), cancel, c.keyLocation())) : Optional.empty();
    }
    problem(v.location(), path, "expected a group name or a mapping (group, cancel-in-progress), found "
        + v.describe());
    return Optional.empty();
  }

  // ---- typed reads -------------------------------------------------------------------------------

  /** Checks the {@code ${{ }}} parts of a value; a bad one is a located problem. */
  private boolean expression(String text, SourceLocation at, String path) {
    if (!text.contains("${{")) {
      return true;
    }
    try {
      Expression.parseTemplate(text);
      return true;
    } catch (InvalidExpressionException x) {
      problem(at, path, x.getMessage());
      return false;
    }
  }

  private Optional<String> scalar(Node.MapNode m, String key, String path) {
    Node.Entry e = m.entries().get(key);
    return e == null ? Optional.empty() : text(e.value(), path);
  }

  /** A scalar as text: strings, numbers and booleans as written; null and containers are problems. */
  private Optional<String> text(Node n, String path) {
    if (n instanceof Node.Scalar s && s.kind() != Node.Scalar.Kind.NULL) {
      return Optional.of(s.text());
    }
    problem(n.location(), path, "expected a value, found " + n.describe());
    return Optional.empty();
  }

  /** A string or a list of strings. */
  private List<String> strings(Node n, String path) {
    List<String> out = new ArrayList<>();
    if (n instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING) {
      out.add(s.text());
    } else if (n instanceof Node.ListNode l) {
      for (int i = 0; i < l.items().size(); i++) {
        Node item = l.items().get(i);
        if (item instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING) {
          out.add(s.text());
        } else {
          problem(item.location(), path + "[" + i + "]", "expected a string, found " + item.describe());
        }
      }
    } else {
      problem(n.location(), path, "expected a string or a list of strings, found " + n.describe());
    }
    return out;
  }

  private Optional<Boolean> bool(Node n, String path) {
    if (n instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.BOOLEAN
        && (s.text().equals("true") || s.text().equals("false"))) {
      return Optional.of(Boolean.parseBoolean(s.text()));
    }
    problem(n.location(), path, "expected true or false, found " + n.describe());
    return Optional.empty();
  }

  private Optional<Integer> integer(Node n, String path) {
    DocReader r = new DocReader();
    Optional<Integer> v = r.integer(n, path);
    r.problems().forEach(problems::add);
    return v;
  }

  /** Null, or an empty plain value ({@code push:} with nothing after it). */
  private static boolean isNull(Node n) {
    return n instanceof Node.Scalar s && (s.kind() == Node.Scalar.Kind.NULL
        || (s.kind() == Node.Scalar.Kind.STRING && s.text().isEmpty()));
  }
}
