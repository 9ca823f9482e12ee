package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.policy.CadenceDefinition;
import dev.cipolicy.api.policy.EventRule;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.policy.WorkflowRoles;
import dev.cipolicy.core.ProblemLocator;
import dev.cipolicy.workflow.Condition;
import dev.cipolicy.workflow.Event;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.JobResult;
import dev.cipolicy.workflow.Scenario;
import dev.cipolicy.workflow.Simulation;
import dev.cipolicy.workflow.Trigger;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.WorkflowSimulator;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * One run of {@link WorkflowLint}: the policy and the workflows, the workflows the policy declares roles for
 * (with their simulators and events), and what the rules share — the scenarios' outputs, the policy's suites,
 * where a policy field is written. Built once per {@link WorkflowLint#lint} call; each {@link LintCheck} reads it.
 */
final class LintRun {
  private static final List<String> DEFAULT_PR_TYPES = List.of("opened", "synchronize", "reopened");

  private final Optional<Policy> policy;
  private final ProblemLocator locator;
  private final Optional<Set<String>> registeredSuites;
  private final List<Workflow> workflows;
  private final Map<String, Workflow> byFile = new LinkedHashMap<>();
  private final List<Declared> declared = new ArrayList<>();
  private final List<LintFinding> rolesFindings = new ArrayList<>();
  private final boolean allFound;

  LintRun(Optional<Policy> policy, ProblemLocator locator, Optional<Set<String>> registeredSuites,
      List<Workflow> workflows) {
    this.policy = policy;
    this.locator = locator;
    this.registeredSuites = registeredSuites;
    this.workflows = List.copyOf(workflows);
    workflows.forEach(w -> byFile.putIfAbsent(w.file(), w));
    boolean found = true;
    if (policy.isPresent()) {
      for (WorkflowRoles roles : policy.get().workflowRoles()) {
        Workflow w = byFile.get(roles.file());
        if (w == null) {
          found = false;
          rolesFindings.add(new LintFinding(LintRule.WORKFLOW_ROLES, Severity.ERROR, policyAt(roles, "file"),
              Optional.empty(), "the policy declares roles for workflow file '" + roles.file() + "', which is not in"
                  + " the workflows directory (it has " + new TreeSet<>(byFile.keySet()) + "); fix roles.file or add"
                  + " the file"));
          continue;
        }
        Optional<Declared> d = declare(w, roles, rolesFindings);
        d.ifPresent(declared::add);
        found &= d.isPresent();
      }
    }
    this.allFound = found;
  }

  Optional<Policy> policy() {
    return policy;
  }

  Optional<Set<String>> registeredSuites() {
    return registeredSuites;
  }

  List<Workflow> workflows() {
    return workflows;
  }

  /** The workflows by file name, the first of each name. */
  Map<String, Workflow> byFile() {
    return byFile;
  }

  /** The workflows the policy declares valid roles for, in the policy's order. */
  List<Declared> declared() {
    return declared;
  }

  /** Whether every workflow the policy declares roles for is there with its jobs. */
  boolean allFound() {
    return allFound;
  }

  /** The {@link LintRule#WORKFLOW_ROLES} findings of declaring the workflows. */
  List<LintFinding> rolesFindings() {
    return rolesFindings;
  }

  /** Whether a workflow only runs when another calls it. */
  static boolean reusableOnly(Workflow w) {
    return !w.triggers().isEmpty() && w.triggers().stream().allMatch(t -> t.event().equals("workflow_call"));
  }

  /** A simulation's results by job id, for lookups in constant time. */
  static Map<String, JobResult> results(Simulation sim) {
    Map<String, JobResult> out = new HashMap<>();
    sim.jobs().forEach(o -> out.put(o.job(), o.result()));
    return out;
  }

  /** A workflow with the roles the policy gives its jobs. */
  record Declared(Workflow workflow, WorkflowRoles roles, WorkflowSimulator simulator, Job policyJob,
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

  // ---- events and scenarios ------------------------------------------------------------------------

  /** An event a workflow subscribes to, with the cadences the policy can resolve for it. */
  record LintEvent(Event event, String description, Set<String> cadences, boolean labelsSwitch) {}

  List<LintEvent> events(Workflow w) {
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
  String defaultCadence() {
    return policy.flatMap(p -> p.cadences().stream().findFirst()).map(CadenceDefinition::name).orElse("regular");
  }

  /** The policy job's outputs as {@code ci-policy resolve} sets them for a cadence, nothing skipped. */
  Scenario outputs(Declared d, Scenario s, String cadence) {
    boolean bypass = policy.flatMap(p -> p.cadence(cadence)).map(CadenceDefinition::bypassFastfail).orElse(false);
    String p = d.policyJob.id();
    return s.withOutput(p, d.roles.cadenceOutput(), cadence)
        .withOutput(p, d.roles.labelsOutput(), "")
        .withOutput(p, d.roles.bypassOutput(), Boolean.toString(bypass))
        .withOutput(p, d.roles.skippedStagesOutput(), "[]");
  }

  // ---- helpers -------------------------------------------------------------------------------------

  Map<String, Suite> suites() {
    Map<String, Suite> out = new LinkedHashMap<>();
    policy.ifPresent(p -> p.backends().forEach(b -> b.suites().forEach(s -> out.putIfAbsent(s.name(), s))));
    return out;
  }

  Set<String> suiteNames() {
    return suites().keySet();
  }

  static List<String> ids(Workflow w) {
    return w.jobs().stream().map(Job::id).toList();
  }

  static SourceLocation conditionOrJob(Job j) {
    return j.condition().map(Condition::location).orElse(j.location());
  }

  SourceLocation policyAt(WorkflowRoles roles, String field) {
    return locator.locate("workflows." + roles.workflow() + ".roles." + field)
        .or(roles::location).orElseGet(this::policyFallback);
  }

  SourceLocation policyAt(String path) {
    return locator.locate(path).orElseGet(this::policyFallback);
  }

  private SourceLocation policyFallback() {
    return new SourceLocation("policy " + policy.map(Policy::name).orElse(""), 1, 1);
  }
}
