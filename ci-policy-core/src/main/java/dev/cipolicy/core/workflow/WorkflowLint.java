package dev.cipolicy.core.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.CadenceDefinition;
import dev.cipolicy.api.policy.EventRule;
import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.ScheduleRule;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.policy.WorkflowLabel;
import dev.cipolicy.api.policy.WorkflowRoles;
import dev.cipolicy.core.ProblemLocator;
import dev.cipolicy.core.workflow.LintFinding.Severity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Proves a policy's invariants on a set of workflow files by simulating them (the rules of
 * {@link LintRule}). The policy says what each workflow's jobs are for ({@link WorkflowRoles}); each rule
 * builds the scenarios its invariant speaks of — every event the workflow subscribes to, the policy job's
 * outputs set as the policy would set them, the fast-fail gate failed — and reports every job that breaks it,
 * located at the construct to change, with how to fix it.
 *
 * <p>Without a policy only {@link LintRule#CLOSED_RUNS_NOTHING} (for workflows subscribed to {@code closed})
 * and the model's warnings apply. Pure and deterministic: the same inputs give the same findings in the same
 * order ({@link LintFinding#ORDER}).
 */
public final class WorkflowLint {
  /** The most workflows one lint reads: 1,000. */
  public static final int MAX_WORKFLOWS = 1_000;

  /** The most stage jobs of one pool whose every overlap {@link LintRule#POOL_SHARE} tries: 16. */
  static final int MAX_EXACT_POOL_JOBS = 16;

  private static final List<String> DEFAULT_PR_TYPES = List.of("opened", "synchronize", "reopened");

  private final Optional<Policy> policy;
  private final ProblemLocator locator;
  private final Optional<Set<String>> registeredSuites;

  private WorkflowLint(Optional<Policy> policy, ProblemLocator locator, Optional<Set<String>> registeredSuites) {
    this.policy = policy;
    this.locator = locator;
    this.registeredSuites = registeredSuites;
  }

  /**
   * A lint without a policy: only what holds for any workflow.
   *
   * @return the lint
   */
  public static WorkflowLint withoutPolicy() {
    return new WorkflowLint(Optional.empty(), ProblemLocator.NONE, Optional.empty());
  }

  /**
   * A lint of the invariants a policy declares.
   *
   * @param policy the policy
   * @param locator where the policy's fields are written, for findings about the policy
   * @return the lint
   */
  public static WorkflowLint of(Policy policy, ProblemLocator locator) {
    return new WorkflowLint(Optional.of(policy), locator, Optional.empty());
  }

  /**
   * This lint, told which suites have registered tests: a suite without any needs no stage job.
   *
   * @param suites the suites with at least one registration
   * @return the new lint
   */
  public WorkflowLint withRegisteredSuites(Set<String> suites) {
    return new WorkflowLint(policy, locator, Optional.of(Set.copyOf(suites)));
  }

  /**
   * Lints a set of workflows (the files of one workflows directory).
   *
   * @param workflows the workflows, each with its file name
   * @return the findings in {@link LintFinding#ORDER}
   * @throws dev.cipolicy.api.InvalidInputException for more than {@link #MAX_WORKFLOWS} workflows
   */
  public List<LintFinding> lint(List<Workflow> workflows) {
    if (workflows.size() > MAX_WORKFLOWS) {
      throw new dev.cipolicy.api.InvalidInputException("a workflow lint reads at most " + MAX_WORKFLOWS
          + " workflows, got " + workflows.size());
    }
    List<LintFinding> out = new ArrayList<>();
    for (Workflow w : workflows) {
      for (WorkflowWarning warning : w.warnings()) {
        out.add(new LintFinding(LintRule.WORKFLOW_MODEL, Severity.WARNING, warning.location(),
            warning.job().isEmpty() ? Optional.empty() : Optional.of(warning.job()), warning.message()));
      }
    }
    Map<String, Workflow> byFile = new LinkedHashMap<>();
    workflows.forEach(w -> byFile.putIfAbsent(w.file(), w));
    List<Declared> declared = new ArrayList<>();
    boolean allFound = true;
    if (policy.isPresent()) {
      for (WorkflowRoles roles : policy.get().workflowRoles()) {
        Workflow w = byFile.get(roles.file());
        if (w == null) {
          allFound = false;
          out.add(new LintFinding(LintRule.WORKFLOW_ROLES, Severity.ERROR, policyAt(roles, "file"), Optional.empty(),
              "the policy declares roles for workflow file '" + roles.file() + "', which is not in the workflows"
                  + " directory (it has " + new TreeSet<>(byFile.keySet()) + "); fix roles.file or add the file"));
          continue;
        }
        Optional<Declared> d = declare(w, roles, out);
        d.ifPresent(declared::add);
        allFound &= d.isPresent();
      }
    }
    if (policy.isPresent()) {
      Set<String> withRoles = new LinkedHashSet<>();
      policy.get().workflowRoles().forEach(r -> withRoles.add(r.file()));
      for (Workflow w : byFile.values()) {
        if (!withRoles.contains(w.file()) && !reusableOnly(w)) {
          out.add(withoutRoles(w));
        }
      }
    }
    for (Workflow w : workflows) {
      needsDirect(w, out);
    }
    Set<String> declaredFiles = new LinkedHashSet<>();
    declared.forEach(d -> declaredFiles.add(d.workflow.file()));
    for (Workflow w : workflows) {
      if (!declaredFiles.contains(w.file())) {
        closedRunsNothing(w, Optional.empty(), out);
      }
    }
    for (Declared d : declared) {
      closedRunsNothing(d.workflow, Optional.of(d), out);
      stageConsumesPolicy(d, out);
      bypassKeepsStages(d, out);
      skipListHonoured(d, out);
      poolShare(d, out);
    }
    if (policy.isPresent()) {
      List<Workflow> scheduled = declared.isEmpty() ? workflows : declared.stream().map(d -> d.workflow).toList();
      cronTable(scheduled, out);
      suiteHasOneJob(declared, allFound && !declared.isEmpty(), out);
    }
    out.sort(LintFinding.ORDER);
    return List.copyOf(out);
  }

  // ---- the roles of a declared workflow ------------------------------------------------------------

  /**
   * The workflows of a lint the policy declares no roles for, which the rules needing roles did not check:
   * every workflow but those the roles name and those that only run when called ({@code workflow_call}).
   *
   * @param workflows the workflows linted
   * @return their file names, in order; empty without a policy
   */
  public List<String> withoutRoles(List<Workflow> workflows) {
    if (policy.isEmpty()) {
      return List.of();
    }
    Set<String> withRoles = new LinkedHashSet<>();
    policy.get().workflowRoles().forEach(r -> withRoles.add(r.file()));
    Set<String> out = new LinkedHashSet<>();
    for (Workflow w : workflows) {
      if (!withRoles.contains(w.file()) && !reusableOnly(w)) {
        out.add(w.file());
      }
    }
    return List.copyOf(out);
  }

  private static boolean reusableOnly(Workflow w) {
    return !w.triggers().isEmpty() && w.triggers().stream().allMatch(t -> t.event().equals("workflow_call"));
  }

  private LintFinding withoutRoles(Workflow w) {
    String name = w.file().replaceFirst("\\.ya?ml$", "");
    return new LintFinding(LintRule.WORKFLOW_ROLES, Severity.WARNING, new SourceLocation(w.file(), 1, 1),
        Optional.empty(), "the policy declares no roles for workflow " + w.file() + ", so "
            + LintRule.BYPASS_KEEPS_STAGES.id() + ", " + LintRule.STAGE_CONSUMES_POLICY.id() + ", "
            + LintRule.SKIP_LIST_HONOURED.id() + ", " + LintRule.POOL_SHARE.id() + " and "
            + LintRule.SUITE_HAS_ONE_JOB.id() + " were not checked on it; add `workflows: {" + name + ": {roles:"
            + " {file: " + w.file() + ", policy_job: <the job that runs ci-policy resolve>}}}` to the policy");
  }

  // ---- needs-direct --------------------------------------------------------------------------------

  /** The jobs an expression reads through {@code needs} that the job does not need directly. */
  private static Set<String> notDirect(Job j, Expression e) {
    Set<String> out = new LinkedHashSet<>();
    for (String ref : e.neededJobs()) {
      if (j.needs().stream().noneMatch(n -> n.equalsIgnoreCase(ref))) {
        out.add(ref);
      }
    }
    return out;
  }

  private static boolean readsNotDirect(Job j) {
    return j.condition().map(c -> !notDirect(j, c.expression()).isEmpty()).orElse(false);
  }

  private static void needsDirect(Workflow w, List<LintFinding> out) {
    Set<String> ids = new LinkedHashSet<>();
    w.jobs().forEach(j -> ids.add(j.id()));
    for (Job j : w.jobs()) {
      Map<String, SourceLocation> refs = new LinkedHashMap<>();
      j.condition().ifPresent(c -> notDirect(j, c.expression()).forEach(r -> refs.putIfAbsent(r, c.location())));
      for (String text : j.texts()) {
        if (!text.contains("${{")) {
          continue;
        }
        try {
          notDirect(j, Expression.parseTemplate(text)).forEach(r -> refs.putIfAbsent(r, j.location()));
        } catch (InvalidExpressionException e) {
          // a text that is no valid template reads nothing the lint can see
        }
      }
      refs.forEach((ref, at) -> {
        String fix = ids.contains(ref) ? "add " + ref + " to its needs, or read what it needs through a job it needs"
            : "no job of " + w.file() + " is named " + ref + closest(ref, j.needs()).map(c -> " (did you mean "
                + c + "?)").orElse("") + "; name a job of its needs";
        out.add(new LintFinding(LintRule.NEEDS_DIRECT, Severity.ERROR, at, Optional.of(j.id()), "job " + j.id()
            + " reads needs." + ref + ", but " + ref + " is not a job it needs directly (its needs: " + j.needs()
            + "); GitHub sets needs.<job> only for direct dependencies, so needs." + ref + " is null and every test"
            + " of it is decided by that null; " + fix));
      });
    }
  }

  /** The name of {@code candidates} closest to {@code ref} by edit distance, when one is within 3 edits. */
  private static Optional<String> closest(String ref, List<String> candidates) {
    String best = null;
    int bestDistance = 4;
    for (String c : candidates) {
      int d = distance(ref, c);
      if (d < bestDistance) {
        best = c;
        bestDistance = d;
      }
    }
    return Optional.ofNullable(best);
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** A simulation's results by job id, for lookups in constant time. */
  private static Map<String, JobResult> results(Simulation sim) {
    Map<String, JobResult> out = new HashMap<>();
    sim.jobs().forEach(o -> out.put(o.job(), o.result()));
    return out;
  }

  /** A workflow with the roles the policy gives its jobs. */
  private record Declared(Workflow workflow, WorkflowRoles roles, WorkflowSimulator simulator, Job policyJob,
      Optional<Job> gate, Map<String, String> stages, List<LintEvent> events) {
    String file() {
      return workflow.file();
    }
  }

  private Optional<Declared> declare(Workflow w, WorkflowRoles roles, List<LintFinding> out) {
    Set<String> suites = suiteNames();
    Optional<Job> policyJob = w.job(roles.policyJob());
    boolean ok = true;
    if (policyJob.isEmpty()) {
      out.add(new LintFinding(LintRule.WORKFLOW_ROLES, Severity.ERROR, policyAt(roles, "policy_job"), Optional.empty(),
          "workflow " + w.file() + " has no job '" + roles.policyJob() + "' (roles.policy_job); expected one of "
              + ids(w)));
      ok = false;
    }
    Optional<Job> gate = roles.gateJob().flatMap(w::job);
    if (roles.gateJob().isPresent() && gate.isEmpty()) {
      out.add(new LintFinding(LintRule.WORKFLOW_ROLES, Severity.ERROR, policyAt(roles, "gate_job"), Optional.empty(),
          "workflow " + w.file() + " has no job '" + roles.gateJob().get() + "' (roles.gate_job); expected one of "
              + ids(w)));
      ok = false;
    }
    for (String job : roles.stageJobs().keySet()) {
      if (w.job(job).isEmpty()) {
        out.add(new LintFinding(LintRule.WORKFLOW_ROLES, Severity.ERROR, policyAt(roles, "stage_jobs." + job),
            Optional.empty(), "workflow " + w.file() + " has no job '" + job + "' (roles.stage_jobs); expected one of "
                + ids(w)));
        ok = false;
      }
    }
    if (!ok) {
      return Optional.empty();
    }
    Job p = policyJob.orElseThrow();
    Set<String> outputs = new LinkedHashSet<>();
    p.outputs().forEach(o -> outputs.add(o.name()));
    Map<String, String> actionOutputs = new LinkedHashMap<>();
    actionOutputs.put(roles.cadenceOutput(), "cadence");
    actionOutputs.putIfAbsent(roles.labelsOutput(), "raw_labels");
    actionOutputs.putIfAbsent(roles.bypassOutput(), "bypass_fastfail");
    actionOutputs.putIfAbsent(roles.skippedStagesOutput(), "skipped_stages");
    actionOutputs.forEach((o, written) -> {
      if (!outputs.contains(o)) {
        out.add(new LintFinding(LintRule.WORKFLOW_ROLES, Severity.ERROR, p.location(), Optional.of(p.id()),
            "the policy job " + p.id() + " declares no output '" + o + "' (it has " + outputs + "); add `" + o
                + ": ${{ steps.<resolve step>.outputs." + written + " }}` under its outputs (the step that runs"
                + " ci-policy resolve or its action writes " + written + "), or name the output in roles.outputs"));
      }
    });
    Map<String, String> stages = new LinkedHashMap<>();
    for (Job j : w.jobs()) {
      if (!j.id().equals(p.id())) {
        roles.suiteOf(j.id(), suites).ifPresent(s -> stages.put(j.id(), s));
      }
    }
    return Optional.of(new Declared(w, roles, WorkflowSimulator.of(w), p, gate, stages, events(w)));
  }

  // ---- closed-runs-nothing -------------------------------------------------------------------------

  private void closedRunsNothing(Workflow w, Optional<Declared> d, List<LintFinding> out) {
    for (String name : List.of("pull_request", "pull_request_target")) {
      Optional<Trigger> t = w.trigger(name);
      if (t.isEmpty()) {
        continue;
      }
      if (!t.get().types().contains("closed")) {
        if (d.isPresent() && !d.get().stages.isEmpty()) {
          out.add(new LintFinding(LintRule.CLOSED_RUNS_NOTHING, Severity.ERROR, t.get().location(), Optional.empty(),
              w.file() + " runs pull request stages but its " + name + " trigger does not subscribe to closed, so"
                  + " closing a pull request does not cancel its runs; add closed to " + name + ".types and keep"
                  + " every job off it with `if: github.event.action != 'closed'`"));
        }
        continue;
      }
      Event e = new Event(name, Optional.of("closed"), Optional.empty(), Map.of(), List.of(), Optional.empty());
      Scenario s = Scenario.of(e);
      // a closed pull request resolves no cadence of its own: the policy's first stands in
      Simulation sim = WorkflowSimulator.of(w).simulate(d.map(x -> outputs(x, s, defaultCadence())).orElse(s));
      Map<String, JobResult> results = results(sim);
      Map<String, String> reasons = new HashMap<>();
      sim.jobs().forEach(o -> reasons.put(o.job(), o.reason()));
      for (Job j : w.jobs()) {
        JobResult r = results.get(j.id());
        if (r == JobResult.SKIPPED) {
          continue;
        }
        boolean parentRuns = j.needs().stream().anyMatch(n -> results.get(n) != JobResult.SKIPPED);
        if (parentRuns) {
          continue;
        }
        String why = reasons.getOrDefault(j.id(), "");
        Severity sev = r == JobResult.UNKNOWN ? Severity.WARNING : Severity.ERROR;
        out.add(new LintFinding(LintRule.CLOSED_RUNS_NOTHING, sev, conditionOrJob(j), Optional.of(j.id()),
            "on " + name + " closed, job " + j.id() + (r == JobResult.UNKNOWN ? " may run" : " runs") + " ("
                + why + "); a closed pull request starts a run only to cancel the older ones — add"
                + " `github.event.action != 'closed'` to its if"));
      }
    }
  }

  // ---- stage-consumes-policy -----------------------------------------------------------------------

  private void stageConsumesPolicy(Declared d, List<LintFinding> out) {
    String p = d.policyJob.id();
    for (Map.Entry<String, String> stage : d.stages.entrySet()) {
      Job j = d.workflow.job(stage.getKey()).orElseThrow();
      if (!j.needs().contains(p)) {
        out.add(new LintFinding(LintRule.STAGE_CONSUMES_POLICY, Severity.ERROR, j.location(), Optional.of(j.id()),
            "stage job " + j.id() + " (suite " + stage.getValue() + ") does not need the policy job " + p
                + ", so needs." + p + ".outputs is not there for it; add " + p + " to its needs"));
        continue;
      }
      List<String> missing = new ArrayList<>();
      for (String o : List.of(d.roles.cadenceOutput(), d.roles.labelsOutput())) {
        Pattern ref = Pattern.compile("needs\\s*\\.\\s*" + Pattern.quote(p) + "\\s*\\.\\s*outputs\\s*\\.\\s*"
            + Pattern.quote(o) + "(?![A-Za-z0-9_-])");
        if (j.texts().stream().noneMatch(t -> ref.matcher(t).find())) {
          missing.add(o);
        }
      }
      if (!missing.isEmpty()) {
        List<String> refs = missing.stream().map(o -> "needs." + p + ".outputs." + o).toList();
        SourceLocation at = j.steps().isEmpty() ? j.location() : j.steps().get(j.steps().size() - 1).location();
        out.add(new LintFinding(LintRule.STAGE_CONSUMES_POLICY, Severity.ERROR, at, Optional.of(j.id()),
            "stage job " + j.id() + " runs suite " + stage.getValue() + " without the policy's " + String.join(" and ",
                missing) + "; pass " + String.join(" and ", refs.stream().map(r -> "${{ " + r + " }}").toList())
                + " to the suite command (e.g. --cadence, --labels) so it runs what the policy resolved"));
      }
    }
  }

  // ---- bypass-keeps-stages -------------------------------------------------------------------------

  /** One root cause of skipped stage jobs, collected over the events it shows on. */
  private static final class Cause {
    final Job job;
    final String reason;
    final Set<String> stages = new LinkedHashSet<>();
    final Map<String, Set<String>> events = new LinkedHashMap<>();
    boolean unknown;

    Cause(Job job, String reason) {
      this.job = job;
      this.reason = reason;
    }
  }

  private void bypassKeepsStages(Declared d, List<LintFinding> out) {
    if (d.gate.isEmpty()) {
      return;
    }
    Job gate = d.gate.get();
    Set<String> beforeGate = new HashSet<>(d.simulator.ancestors(gate.id()));
    Map<String, Cause> causes = new LinkedHashMap<>();
    for (LintEvent e : d.events) {
      Optional<String> cadence = bypassCadence(e);
      if (cadence.isEmpty()) {
        continue;
      }
      Scenario s = Scenario.of(e.event).withResult(gate.id(), InjectedResult.FAILURE);
      s = outputs(d, s, cadence.get()).withOutput(d.policyJob.id(), d.roles.bypassOutput(), "true");
      Simulation sim = d.simulator.simulate(s);
      Map<String, JobResult> results = results(sim);
      if (results.get(d.policyJob.id()) != JobResult.SUCCESS || results.get(gate.id()) != JobResult.FAILURE) {
        continue;
      }
      for (String stage : d.stages.keySet()) {
        if (stage.equals(gate.id()) || beforeGate.contains(stage)) {
          continue;
        }
        JobResult r = results.get(stage);
        if (r != JobResult.SKIPPED && r != JobResult.UNKNOWN) {
          continue;
        }
        Job root = rootOf(d, results, stage, r);
        Cause c = causes.computeIfAbsent(root.id(), k -> new Cause(root, sim.job(root.id()).orElseThrow().reason()));
        c.stages.add(stage);
        c.events.computeIfAbsent(e.event.name() + (e.event.schedule().isPresent() ? " '" + e.event.schedule().get()
            + "'" : "") + " (cadence " + cadence.get() + ")", k -> new LinkedHashSet<>())
            .addAll(e.event.action().map(List::of).orElse(List.of()));
        c.unknown |= r == JobResult.UNKNOWN;
      }
    }
    for (Cause c : causes.values()) {
      String p = d.policyJob.id();
      String fix;
      if (c.job.condition().isEmpty()) {
        String need = c.job.needs().isEmpty() ? "<the job it needs>" : c.job.needs().get(c.job.needs().size() - 1);
        fix = "give " + c.job.id() + " an if that calls a status function and checks what it needs, e.g. `if: ${{"
            + " !cancelled() && needs." + need + ".result == 'success' }}`, so GitHub's implicit success() over its"
            + " ancestors (" + gate.id() + " included) no longer applies";
      } else if (!c.job.condition().get().expression().callsStatusFunction()) {
        fix = "its if calls no status function, so GitHub adds success() over every ancestor (" + gate.id()
            + " included); start it with `!cancelled() &&` and check the results it needs explicitly";
      } else {
        fix = "let its if accept a failed " + gate.id() + " when needs." + p + ".outputs." + d.roles.bypassOutput()
            + " is 'true'";
      }
      String what = c.job.id().equals(first(c.stages)) && c.stages.size() == 1
          ? "stage job " + c.job.id() + (c.unknown ? " may not run" : " does not run")
          : c.job.id() + " is " + (c.unknown ? "not known to run" : "skipped") + ", so stage jobs " + c.stages
              + (c.unknown ? " may not run" : " do not run");
      out.add(new LintFinding(LintRule.BYPASS_KEEPS_STAGES, c.unknown ? Severity.WARNING : Severity.ERROR,
          conditionOrJob(c.job), Optional.of(c.job.id()),
          "with needs." + p + ".outputs." + d.roles.bypassOutput() + " true and the fast-fail gate " + gate.id()
              + " failed, " + what + " on " + events(c.events) + " (" + c.reason + "); " + fix));
    }
  }

  /** {@code pull_request opened, labeled (cadence nightly); schedule '0 15 * * 6' (cadence weekly)}. */
  private static String events(Map<String, Set<String>> events) {
    List<String> parts = new ArrayList<>();
    events.forEach((key, actions) -> {
      int cut = key.indexOf(' ');
      parts.add(actions.isEmpty() ? key : key.substring(0, cut) + " " + String.join(", ", actions) + key.substring(cut));
    });
    return String.join("; ", parts);
  }

  private static String first(Set<String> s) {
    return s.iterator().next();
  }

  /**
   * The job that stops a stage job: the earliest skipped (or undecided) job of the stage's closure, itself
   * included, none of whose needs is skipped.
   */
  private static Job rootOf(Declared d, Map<String, JobResult> results, String stage, JobResult kind) {
    List<String> chain = new ArrayList<>(d.simulator.ancestors(stage));
    chain.add(stage);
    for (String id : chain) {
      if (results.get(id) != kind) {
        continue;
      }
      Job j = d.simulator.jobOf(id).orElseThrow();
      if (j.needs().stream().noneMatch(n -> results.get(n) == kind)) {
        return j;
      }
    }
    return d.workflow.job(stage).orElseThrow();
  }

  /** The cadence under which an event sets the bypass output true, if one can. */
  private Optional<String> bypassCadence(LintEvent e) {
    Policy p = policy.orElseThrow();
    for (String c : e.cadences) {
      if (p.cadence(c).map(CadenceDefinition::bypassFastfail).orElse(false)) {
        return Optional.of(c);
      }
    }
    if (e.labelsSwitch && !e.cadences.isEmpty() && p.workflowLabels().stream().anyMatch(WorkflowLabel::bypassFastfail)) {
      return Optional.of(e.cadences.iterator().next());
    }
    return Optional.empty();
  }

  // ---- skip-list-honoured --------------------------------------------------------------------------

  private void skipListHonoured(Declared d, List<LintFinding> out) {
    Policy p = policy.orElseThrow();
    Set<String> skippable = new LinkedHashSet<>(p.prStages());
    Map<String, Set<String>> running = new LinkedHashMap<>();
    for (Map.Entry<String, String> stage : d.stages.entrySet()) {
      boolean canSkip = skippable.isEmpty() ? d.gate.map(g -> !g.id().equals(stage.getKey())).orElse(true)
          : skippable.contains(stage.getValue());
      if (!canSkip || readsNotDirect(d.workflow.job(stage.getKey()).orElseThrow())) {
        // a stage whose if reads needs of a job it does not need is reported by needs-direct: the root cause
        continue;
      }
      for (LintEvent e : d.events) {
        Scenario s = outputs(d, Scenario.of(e.event), e.cadences.stream().findFirst().orElseGet(this::defaultCadence))
            .withOutput(d.policyJob.id(), d.roles.skippedStagesOutput(), "[\"" + stage.getValue() + "\"]");
        Simulation sim = d.simulator.simulate(s);
        if (sim.result(d.policyJob.id()) != JobResult.SUCCESS) {
          continue;
        }
        JobResult r = sim.result(stage.getKey());
        if (r != JobResult.SKIPPED) {
          running.computeIfAbsent(stage.getKey(), k -> new LinkedHashSet<>()).add(e.description
              + (r == JobResult.UNKNOWN ? " (undecided: " + sim.job(stage.getKey()).orElseThrow().reason() + ")" : ""));
        }
      }
    }
    running.forEach((id, events) -> {
      Job j = d.workflow.job(id).orElseThrow();
      String suite = d.stages.get(id);
      out.add(new LintFinding(LintRule.SKIP_LIST_HONOURED, Severity.ERROR, conditionOrJob(j), Optional.of(id),
          "stage job " + id + " runs although needs." + d.policyJob.id() + ".outputs." + d.roles.skippedStagesOutput()
              + " lists its suite " + suite + ", on " + String.join(", ", events) + "; add `!contains(needs."
              + d.policyJob.id() + ".outputs." + d.roles.skippedStagesOutput() + ", '\"" + suite + "\"')` to its if"));
    });
  }

  // ---- pool-share ----------------------------------------------------------------------------------

  /** A cadence's cap on one pool: runners, or GPUs. */
  private record Cap(boolean gpus, long amount) {
    String shown() {
      return amount + (gpus ? (amount == 1 ? " GPU" : " GPUs") : (amount == 1 ? " runner" : " runners"));
    }
  }

  /**
   * The hard cap of a cadence on a pool: its fleet share when the policy declares one (none when the share may
   * borrow idle capacity), else {@code gpu_max_parallel} runners (1 when unset).
   */
  private static Optional<Cap> cap(Policy p, String cadence, String pool) {
    Optional<FleetShare> share = p.share(cadence, pool);
    if (share.isPresent()) {
      return share.get().borrow() ? Optional.empty()
          : Optional.of(new Cap(share.get().unit() == FleetShare.Unit.GPUS, share.get().amount()));
    }
    return Optional.of(new Cap(false, p.cadence(cadence).flatMap(CadenceDefinition::gpuMaxParallel).orElse(1)));
  }

  private void poolShare(Declared d, List<LintFinding> out) {
    Policy p = policy.orElseThrow();
    Map<String, Suite> suites = suites();
    List<String> throttled = d.roles.throttledCadences();
    if (throttled.isEmpty()) {
      Set<String> t = new LinkedHashSet<>();
      p.cadences().stream().filter(c -> c.gpuMaxParallel().isPresent()).forEach(c -> t.add(c.name()));
      p.fleetShares().stream().filter(s -> !s.borrow()).forEach(s -> t.add(s.cadence()));
      throttled = List.copyOf(t);
    }
    Set<String> reported = new LinkedHashSet<>();
    for (String cadence : throttled) {
      for (LintEvent e : d.events) {
        if (!e.cadences.contains(cadence)) {
          continue;
        }
        boolean bypass = p.cadence(cadence).map(CadenceDefinition::bypassFastfail).orElse(false);
        Scenario s = outputs(d, Scenario.of(e.event), cadence)
            .withOutput(d.policyJob.id(), d.roles.bypassOutput(), Boolean.toString(bypass));
        Simulation sim = d.simulator.simulate(s);
        Map<String, List<String>> byPool = new LinkedHashMap<>();
        Map<String, Integer> runners = new HashMap<>();
        Map<String, Integer> budget = new HashMap<>();
        for (Map.Entry<String, String> stage : d.stages.entrySet()) {
          Suite suite = suites.get(stage.getValue());
          JobResult r = sim.result(stage.getKey());
          if (suite == null || suite.pool().isEmpty() || r == JobResult.SKIPPED) {
            continue;
          }
          byPool.computeIfAbsent(suite.pool().get(), k -> new ArrayList<>()).add(stage.getKey());
          runners.put(stage.getKey(), runners(d, sim, d.workflow.job(stage.getKey()).orElseThrow()));
          budget.put(stage.getKey(), suite.gpuBudget() > 0 ? suite.gpuBudget() : suite.gpus());
        }
        byPool.forEach((pool, jobs) -> {
          Optional<Cap> c = cap(p, cadence, pool);
          if (c.isEmpty()) {
            return;
          }
          Cap limit = c.get();
          Map<String, Long> weight = new HashMap<>();
          for (String j : jobs) {
            long n = runners.getOrDefault(j, 1);
            weight.put(j, n >= Integer.MAX_VALUE ? Long.MAX_VALUE / 4
                : limit.gpus() ? n * budget.getOrDefault(j, 0) : n);
          }
          List<String> worst = heaviestOverlap(d, jobs, weight);
          long held = worst.stream().mapToLong(x -> weight.getOrDefault(x, 1L)).sum();
          if (held <= limit.amount()) {
            return;
          }
          String at = worst.get(worst.size() - 1);
          if (!reported.add(cadence + "/" + pool + "/" + at)) {
            return;
          }
          Job j = d.workflow.job(at).orElseThrow();
          List<String> parts = worst.stream().map(x -> x + " (" + shown(runners.getOrDefault(x, 1))
              + (limit.gpus() ? " of " + budget.getOrDefault(x, 0) + " GPUs" : "") + ")").toList();
          String fix = worst.size() == 1
              ? "cap its matrix under " + cadence + ", e.g. `max-parallel: ${{ needs." + d.policyJob.id() + ".outputs."
                  + d.roles.cadenceOutput() + " == '" + cadence + "' && 1 || <usual> }}`"
              : "run them one after another under " + cadence + " (needs), cap their matrices with max-parallel, or"
                  + " let the queue's fleet share hold them";
          String unit = limit.gpus() ? " GPUs" : " runners";
          out.add(new LintFinding(LintRule.POOL_SHARE, Severity.ERROR, j.matrix().map(Matrix::location)
              .filter(l -> worst.size() == 1).orElse(j.location()), Optional.of(at),
              "under cadence " + cadence + " (" + e.description + "), " + String.join(" and ", parts) + " can hold "
                  + (held >= Long.MAX_VALUE / 4 ? "unboundedly many" : Long.toString(held)) + " " + pool + unit
                  + " at once; " + cadence + "'s share of " + pool + " is " + limit.shown() + "; " + fix));
        });
      }
    }
  }

  private static String shown(long runners) {
    return runners >= Integer.MAX_VALUE ? "unbounded" : runners + (runners == 1 ? " runner" : " runners");
  }

  /** How many runners a job holds at once: its legs, capped by {@code max-parallel}. */
  private static int runners(Declared d, Simulation sim, Job j) {
    if (j.matrix().isEmpty()) {
      return 1;
    }
    Matrix m = j.matrix().get();
    int legs = m.isDynamic() ? Integer.MAX_VALUE : m.legs().size();
    Optional<Integer> cap = m.maxParallel();
    if (m.maxParallelExpression().isPresent()) {
      try {
        ExprValue v = d.simulator.evaluate(sim, j.id(), Expression.parseTemplate(m.maxParallelExpression().get()));
        double n = Coercion.toNumber(v);
        if (!Double.isNaN(n) && n >= 1 && n < Integer.MAX_VALUE) {
          cap = Optional.of((int) n);
        }
      } catch (InvalidExpressionException e) {
        // an expression that fails to evaluate caps nothing
      }
    }
    return Math.min(legs, cap.orElse(Integer.MAX_VALUE));
  }

  /**
   * The set of jobs of one pool that can run at the same time (none needs another, directly or not, and no
   * two share a concurrency group) holding the most runners; beyond {@link #MAX_EXACT_POOL_JOBS} jobs, all
   * of them (an upper bound).
   */
  private static List<String> heaviestOverlap(Declared d, List<String> jobs, Map<String, Long> demand) {
    if (jobs.size() > MAX_EXACT_POOL_JOBS) {
      return jobs;
    }
    int n = jobs.size();
    boolean[][] apart = new boolean[n][n];
    List<Set<String>> before = new ArrayList<>();
    jobs.forEach(j -> before.add(new HashSet<>(d.simulator.ancestors(j))));
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        String x = jobs.get(a);
        String y = jobs.get(b);
        Optional<String> gx = d.workflow.job(x).flatMap(Job::concurrency).map(Concurrency::group);
        Optional<String> gy = d.workflow.job(y).flatMap(Job::concurrency).map(Concurrency::group);
        apart[a][b] = a != b && (before.get(a).contains(y) || before.get(b).contains(x)
            || (gx.isPresent() && gx.equals(gy)));
      }
    }
    long best = -1;
    int bestMask = 0;
    for (int mask = 1; mask < (1 << n); mask++) {
      long sum = 0;
      boolean ok = true;
      for (int a = 0; a < n && ok; a++) {
        if ((mask & (1 << a)) == 0) {
          continue;
        }
        sum += demand.getOrDefault(jobs.get(a), 1L);
        for (int b = a + 1; b < n; b++) {
          if ((mask & (1 << b)) != 0 && apart[a][b]) {
            ok = false;
            break;
          }
        }
      }
      if (ok && sum > best) {
        best = sum;
        bestMask = mask;
      }
    }
    List<String> out = new ArrayList<>();
    for (int a = 0; a < n; a++) {
      if ((bestMask & (1 << a)) != 0) {
        out.add(jobs.get(a));
      }
    }
    return out;
  }

  // ---- cron-table ----------------------------------------------------------------------------------

  private void cronTable(List<Workflow> workflows, List<LintFinding> out) {
    Policy p = policy.orElseThrow();
    Map<String, ScheduleRule> table = new LinkedHashMap<>();
    p.schedules().forEach(r -> table.putIfAbsent(r.cron(), r));
    Set<String> scheduled = new LinkedHashSet<>();
    for (Workflow w : workflows) {
      Optional<Trigger> t = w.trigger("schedule");
      if (t.isEmpty()) {
        continue;
      }
      for (String cron : t.get().crons()) {
        scheduled.add(cron);
        if (!table.containsKey(cron)) {
          out.add(new LintFinding(LintRule.CRON_TABLE, Severity.ERROR, t.get().location(), Optional.empty(),
              w.file() + " runs on cron '" + cron + "', which the policy's schedule table does not have, so its runs"
                  + " fail to resolve a cadence; add it under schedules with its cadence, or remove it (the table"
                  + " has " + table.keySet() + ")"));
        }
      }
    }
    List<String> files = workflows.stream().map(Workflow::file).toList();
    int i = 0;
    for (ScheduleRule r : p.schedules()) {
      String path = "schedules[" + i++ + "]";
      if (!scheduled.contains(r.cron())) {
        out.add(new LintFinding(LintRule.CRON_TABLE, Severity.ERROR, policyAt(path), Optional.empty(),
            "the policy schedules cron '" + r.cron() + "' (cadence " + r.cadence() + ") but no workflow of " + files
                + " runs on it, so that cadence never runs; add `- cron: \"" + r.cron() + "\"` under on.schedule"));
      }
    }
  }

  // ---- suite-has-one-job ---------------------------------------------------------------------------

  private void suiteHasOneJob(List<Declared> declared, boolean complete, List<LintFinding> out) {
    Policy p = policy.orElseThrow();
    Map<String, List<String>> jobsOf = new LinkedHashMap<>();
    for (Declared d : declared) {
      d.stages.forEach((job, suite) -> {
        List<String> list = jobsOf.computeIfAbsent(suite, k -> new ArrayList<>());
        list.add(d.file() + " job " + job);
        if (list.size() > 1) {
          Job j = d.workflow.job(job).orElseThrow();
          out.add(new LintFinding(LintRule.SUITE_HAS_ONE_JOB, Severity.ERROR, j.location(), Optional.of(job),
              "suite " + suite + " has more than one stage job (" + String.join(", ", list) + "), so it runs twice;"
                  + " keep one job per suite"));
        }
      });
    }
    Set<String> suites = suiteNames();
    p.suiteNaming().ifPresent(naming -> {
      for (Declared d : declared) {
        for (Job j : d.workflow.jobs()) {
          if (!suites.contains(j.id()) && !d.stages.containsKey(j.id()) && j.id().length() <= 64
              && naming.compiled().matcher(j.id()).matches()) {
            out.add(new LintFinding(LintRule.SUITE_HAS_ONE_JOB, Severity.ERROR, j.location(), Optional.of(j.id()),
                "job " + j.id() + " is named like a suite (" + (naming.description().isEmpty() ? naming.pattern()
                    : naming.description()) + ") but the policy declares no suite " + j.id()
                    + ", so no policy decides what it runs; rename it after a declared suite or declare the suite"));
          }
        }
      }
    });
    if (!complete) {
      return;
    }
    List<String> files = declared.stream().map(Declared::file).toList();
    for (Backend b : p.backends()) {
      for (Suite s : b.suites()) {
        if (s.externallyScheduled() || jobsOf.containsKey(s.name())
            || registeredSuites.map(r -> !r.contains(s.name())).orElse(false)) {
          continue;
        }
        out.add(new LintFinding(LintRule.SUITE_HAS_ONE_JOB, Severity.ERROR,
            policyAt("backends." + b.name() + ".suites." + s.name()), Optional.empty(),
            "suite " + s.name() + " has no stage job in " + files + ", so its tests never run; add a job named "
                + s.name() + " (or map one in roles.stage_jobs), or mark the suite externally_scheduled"));
      }
    }
  }

  // ---- events and scenarios ------------------------------------------------------------------------

  /** An event a workflow subscribes to, with the cadences the policy can resolve for it. */
  private record LintEvent(Event event, String description, Set<String> cadences, boolean labelsSwitch) {}

  private List<LintEvent> events(Workflow w) {
    List<LintEvent> out = new ArrayList<>();
    for (Trigger t : w.triggers()) {
      switch (t.event()) {
        case "pull_request", "pull_request_target" -> {
          for (String type : t.types().isEmpty() ? DEFAULT_PR_TYPES : t.types()) {
            if (!type.equals("closed")) {
              Event e = new Event(t.event(), Optional.of(type), Optional.empty(), Map.of(), List.of(), Optional.empty());
              out.add(new LintEvent(e, t.event() + " " + type, cadences(t, Optional.empty()), labelsSwitch(t.event())));
            }
          }
        }
        case "schedule" -> {
          for (String cron : t.crons()) {
            Event e = new Event("schedule", Optional.empty(), Optional.of(cron), Map.of(), List.of(), Optional.empty());
            out.add(new LintEvent(e, "schedule '" + cron + "'", cadences(t, Optional.of(cron)), false));
          }
        }
        default -> {
          Map<String, String> inputs = new LinkedHashMap<>();
          t.inputs().forEach(i -> i.defaultValue().ifPresent(v -> inputs.put(i.name(), v)));
          Event e = new Event(t.event(), Optional.empty(), Optional.empty(), inputs, List.of(), Optional.empty());
          out.add(new LintEvent(e, t.event(), cadences(t, Optional.empty()), labelsSwitch(t.event())));
        }
      }
    }
    return out;
  }

  private boolean labelsSwitch(String event) {
    return policy.flatMap(p -> rule(p, event)).map(r -> r.source() == EventRule.Source.PULL_REQUEST_LABELS)
        .orElse(false);
  }

  private static Optional<EventRule> rule(Policy p, String event) {
    return p.events().stream().filter(r -> r.event().equals(event)).findFirst();
  }

  /** The cadences the policy can resolve for an event: by its rule, its cron, its labels, a cadence input. */
  private Set<String> cadences(Trigger t, Optional<String> cron) {
    Set<String> out = new LinkedHashSet<>();
    if (policy.isEmpty()) {
      return out;
    }
    Policy p = policy.get();
    if (cron.isPresent()) {
      p.schedules().stream().filter(r -> r.cron().equals(cron.get())).findFirst()
          .ifPresent(r -> out.add(r.cadence()));
      return out;
    }
    Optional<EventRule> r = rule(p, t.event());
    r.flatMap(EventRule::cadence).ifPresent(out::add);
    if (r.isPresent() && r.get().source() == EventRule.Source.PULL_REQUEST_LABELS) {
      p.workflowLabels().forEach(l -> l.switchesCadence().ifPresent(out::add));
    }
    if (r.isPresent() && t.inputs().stream().anyMatch(i -> i.name().equals("cadence"))) {
      p.cadences().forEach(c -> out.add(c.name()));
    }
    return out;
  }

  /** The cadence of an event the policy resolves no cadence for: the policy's first. */
  private String defaultCadence() {
    return policy.flatMap(p -> p.cadences().stream().findFirst()).map(CadenceDefinition::name).orElse("regular");
  }

  /** The policy job's outputs as {@code ci-policy resolve} sets them for a cadence, nothing skipped. */
  private Scenario outputs(Declared d, Scenario s, String cadence) {
    boolean bypass = policy.flatMap(p -> p.cadence(cadence)).map(CadenceDefinition::bypassFastfail).orElse(false);
    String p = d.policyJob.id();
    return s.withOutput(p, d.roles.cadenceOutput(), cadence)
        .withOutput(p, d.roles.labelsOutput(), "")
        .withOutput(p, d.roles.bypassOutput(), Boolean.toString(bypass))
        .withOutput(p, d.roles.skippedStagesOutput(), "[]");
  }

  // ---- helpers -------------------------------------------------------------------------------------

  private Map<String, Suite> suites() {
    Map<String, Suite> out = new LinkedHashMap<>();
    policy.ifPresent(p -> p.backends().forEach(b -> b.suites().forEach(s -> out.putIfAbsent(s.name(), s))));
    return out;
  }

  private Set<String> suiteNames() {
    return suites().keySet();
  }

  private static List<String> ids(Workflow w) {
    return w.jobs().stream().map(Job::id).toList();
  }

  private static SourceLocation conditionOrJob(Job j) {
    return j.condition().map(Condition::location).orElse(j.location());
  }

  private SourceLocation policyAt(WorkflowRoles roles, String field) {
    return locator.locate("workflows." + roles.workflow() + ".roles." + field)
        .or(roles::location).orElseGet(this::policyFallback);
  }

  private SourceLocation policyAt(String path) {
    return locator.locate(path).orElseGet(this::policyFallback);
  }

  private SourceLocation policyFallback() {
    return new SourceLocation("policy " + policy.map(Policy::name).orElse(""), 1, 1);
  }
}
