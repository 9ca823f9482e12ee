package dev.cipolicy.core;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.UnknownCadenceException;
import dev.cipolicy.api.UnknownScheduleException;
import dev.cipolicy.api.UnsupportedTriggerException;
import dev.cipolicy.api.Warning;
import dev.cipolicy.api.policy.CadenceDefinition;
import dev.cipolicy.api.policy.EventRule;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.ScheduleRule;
import dev.cipolicy.api.policy.ScopeRule;
import dev.cipolicy.api.policy.WorkflowLabel;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Resolves cadences, PR labels and run policies from a checked {@link Policy}. Instances
 * are immutable and thread-safe; every method is a pure function of its arguments.
 *
 * <pre>{@code
 * PolicyResolver resolver = PolicyResolver.of(policy);
 * TriggerResolution r = resolver.resolve(TriggerInput.builder()
 *     .eventName("schedule").schedule("0 15 * * 6").build());
 * r.runPolicy().cadence();        // "weekly"
 * r.explanation().sentence();     // why
 * }</pre>
 */
public final class PolicyResolver {
  private final Policy policy;
  private final List<Warning> warnings;
  private final Map<String, ScheduleRule> scheduleTable;
  private final Set<String> known;
  private final Pattern canonicalPrefixed;

  private PolicyResolver(Policy policy, PolicyChecker.Checked checked) {
    this.policy = policy;
    this.warnings = checked.warnings();
    this.scheduleTable = checked.scheduleTable();
    this.known = new LinkedHashSet<>(policy.knownLabels());
    this.canonicalPrefixed =
        Pattern.compile(Pattern.quote(policy.labelPrefix()) + "[A-Za-z0-9][A-Za-z0-9_.-]*");
  }

  /**
   * Checks a policy built in code and returns its resolver.
   *
   * @param policy the policy
   * @return the resolver
   * @throws InvalidPolicyException listing every failed static check
   */
  public static PolicyResolver of(Policy policy) {
    return of(policy, ProblemLocator.NONE);
  }

  /**
   * Checks a policy and returns its resolver; problems are located with {@code locator}.
   *
   * @param policy the policy
   * @param locator maps field paths to document locations
   * @return the resolver
   * @throws InvalidPolicyException listing every failed static check
   */
  public static PolicyResolver of(Policy policy, ProblemLocator locator) {
    return new PolicyResolver(policy, PolicyChecker.check(policy, locator));
  }

  /**
   * The policy this resolver was built from.
   *
   * @return the policy
   */
  public Policy policy() {
    return policy;
  }

  /**
   * Findings of the static checks that did not reject the policy.
   *
   * @return warnings
   */
  public List<Warning> warnings() {
    return warnings;
  }

  /**
   * Looks up a cadence.
   *
   * @param name the cadence name
   * @return its definition
   * @throws UnknownCadenceException when the policy does not declare it
   */
  public CadenceDefinition cadence(String name) {
    return policy.cadence(name)
        .orElseThrow(() -> new UnknownCadenceException(name, policy.cadenceNames()));
  }

  /**
   * The exact cron lookup.
   *
   * @param cron the schedule string, exactly as received
   * @return the schedule rule
   * @throws UnknownScheduleException when no rule has exactly this cron string
   */
  public ScheduleRule schedule(String cron) {
    ScheduleRule rule = scheduleTable.get(cron);
    if (rule == null) {
      throw new UnknownScheduleException(cron);
    }
    return rule;
  }

  /**
   * Compares a workflow's schedule crons with the policy's schedule table: every workflow
   * cron needs an exact policy entry (otherwise every scheduled run fails), and every policy cron
   * should appear in the workflow (otherwise its cadence never runs).
   *
   * @param workflowCrons the {@code on.schedule[*].cron} strings of the workflow, exactly as written
   * @return the problems as warnings; empty when the two lists agree
   */
  public List<Warning> compareWorkflowCrons(List<String> workflowCrons) {
    List<Warning> out = new ArrayList<>();
    for (String cron : workflowCrons) {
      if (!scheduleTable.containsKey(cron)) {
        out.add(new Warning("workflow-cron-without-policy", "workflow cron '" + cron
            + "' has no entry in the schedule table: No CI policy is defined for schedule: " + cron));
      }
    }
    for (String cron : scheduleTable.keySet()) {
      if (!workflowCrons.contains(cron)) {
        out.add(new Warning("policy-cron-not-scheduled", "policy cron '" + cron + "' ("
            + scheduleTable.get(cron).cadence() + ") is not scheduled by the workflow, so that cadence never runs"));
      }
    }
    return out;
  }

  /**
   * Keeps the PR labels that are workflow labels or fully match {@code ^<prefix>[A-Za-z0-9][A-Za-z0-9_.-]*$},
   * in order, duplicates kept. Every kept label is shell-safe.
   *
   * @param prLabels the PR's labels as GitHub reports them
   * @return the canonical labels
   */
  public List<String> canonicalPrLabels(List<String> prLabels) {
    List<String> out = new ArrayList<>();
    for (String label : prLabels) {
      if (isWorkflowLabel(label) || canonicalPrefixed.matcher(label).matches()) {
        out.add(label);
      }
    }
    return out;
  }

  /**
   * Strips the label prefix: empty strings and workflow labels are skipped silently, a prefixed
   * label contributes its name, anything else is ignored with a warning. The result is intersected with
   * the known labels.
   *
   * @param rawLabels raw labels
   * @return the requested known labels, what was dropped and the warnings
   */
  LabelRequest stripPrefix(List<String> rawLabels) {
    Set<String> requested = new TreeSet<>();
    List<Warning> ws = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    Set<String> scopeLabels = scopeLabels();
    for (String raw : rawLabels) {
      if (raw.isEmpty() || isWorkflowLabel(raw)) {
        continue;
      }
      if (!raw.startsWith(policy.labelPrefix())) {
        String hint = known.contains(raw) ? " (did you mean '" + policy.labelPrefix() + raw + "'?)" : "";
        ws.add(new Warning("label-without-prefix", "label '" + raw + "' ignored: only '"
            + policy.labelPrefix() + "<label>' requests a test area" + hint));
        continue;
      }
      String name = raw.substring(policy.labelPrefix().length());
      if (known.contains(name)) {
        requested.add(name);
      } else if (scopeLabels.contains(raw)) {
        notes.add(raw + " is a scope label, not a test area");
      } else {
        notes.add(raw + " names '" + name + "', which is not a known label");
      }
    }
    return new LabelRequest(List.copyOf(requested), List.copyOf(ws), List.copyOf(notes));
  }

  /**
   * The labels requested through the prefix, with what was dropped.
   *
   * @param requested known labels explicitly requested, sorted
   * @param warnings labels ignored because they lack the prefix
   * @param dropped explanations of prefixed labels that are not known labels
   */
  record LabelRequest(List<String> requested, List<Warning> warnings, List<String> dropped) {}

  /**
   * Resolves a run policy from a cadence and raw labels.
   *
   * @param cadence the cadence name
   * @param rawLabels raw labels, order and duplicates kept
   * @return the run policy with its explanation
   * @throws UnknownCadenceException when the cadence is not declared
   * @throws InvalidInputException when a workflow label requires another cadence
   */
  public RunPolicy resolveCadence(String cadence, List<String> rawLabels) {
    CadenceDefinition c = cadence(cadence);
    for (WorkflowLabel w : policy.workflowLabels()) {
      if (w.switchesCadence().isPresent() && rawLabels.contains(w.name())
          && !w.switchesCadence().get().equals(cadence)) {
        throw new InvalidInputException("The " + w.name() + " workflow label requires cadence='"
            + w.switchesCadence().get() + "'");
      }
    }
    LabelRequest request = stripPrefix(rawLabels);
    List<Explanation.Reason> reasons = new ArrayList<>();
    List<String> hints = new ArrayList<>();

    Optional<ScopeRule> scope = Optional.empty();
    String why = "";
    for (ScopeRule rule : policy.scopes()) {
      Optional<String> label = rule.whenLabels().stream().filter(rawLabels::contains).findFirst();
      if (label.isPresent()) {
        why = "raw label " + label.get() + " is present";
      } else if (rule.whenCadences().contains(cadence)) {
        why = "cadence is " + cadence;
      } else if (rule.whenLabels().isEmpty() && rule.whenCadences().isEmpty()) {
        why = "it matches every run";
      } else {
        continue;
      }
      scope = Optional.of(rule);
      break;
    }
    Set<String> include = new TreeSet<>();
    if (scope.isPresent()) {
      ScopeRule rule = scope.get();
      for (String l : known) {
        if (!rule.except().contains(l)) {
          include.add(l);
        }
      }
      String except = rule.except().isEmpty() ? "every known label"
          : "every known label except " + new TreeSet<>(rule.except());
      reasons.add(new Explanation.Reason("scope." + rule.name(),
          "scope '" + rule.name() + "' (" + except + ") matched: " + why));
    } else {
      reasons.add(new Explanation.Reason("scope.none",
          "no scope rule matched, so only explicitly requested labels are included"));
    }
    Set<String> scopeSet = Set.copyOf(include);
    include.addAll(request.requested());
    if (!request.requested().isEmpty()) {
      List<String> beyond = request.requested().stream().filter(l -> !scopeSet.contains(l)).toList();
      reasons.add(new Explanation.Reason("labels.requested", "explicitly requested "
          + request.requested() + (beyond.isEmpty() || scope.isEmpty() ? ""
          : "; an explicit request beats the scope's subtraction for " + beyond)));
    }
    for (Warning w : request.warnings()) {
      reasons.add(new Explanation.Reason("labels.ignored", w.message()));
    }
    for (String note : request.dropped()) {
      reasons.add(new Explanation.Reason("labels.dropped", note));
    }
    boolean bypassByLabel = policy.workflowLabels().stream()
        .anyMatch(w -> w.bypassFastfail() && rawLabels.contains(w.name()));
    boolean bypass = c.bypassFastfail() || bypassByLabel;
    reasons.add(new Explanation.Reason("cadence." + c.name(), "cadence " + c.name()
        + (c.admitNightlyTests() ? " admits" : " does not admit") + " nightly-only tests, "
        + (c.bypassFastfail() ? "bypasses fast-fail" : "keeps fast-fail") + " and "
        + (c.writeBaseline() ? "writes" : "does not write") + " metric baselines"));
    if (bypassByLabel && !c.bypassFastfail()) {
      reasons.add(new Explanation.Reason("labels.bypass-fastfail",
          "a bypass-fastfail workflow label makes the run continue after a failure"));
    }
    for (String l : known) {
      if (!include.contains(l) && scope.isPresent()) {
        hints.add("adding " + policy.labelPrefix() + l + " would include " + l);
      }
    }
    if (scope.isEmpty()) {
      policy.scopes().stream().filter(s -> !s.whenLabels().isEmpty()).findFirst().ifPresent(s ->
          hints.add("adding " + s.whenLabels().get(0) + " would include "
              + (s.except().isEmpty() ? "every known label" : "every known label except "
              + new TreeSet<>(s.except()))));
    }
    String decision = "cadence=" + c.name() + " scope=" + scope.map(ScopeRule::name).orElse("none")
        + " included " + include.size() + " of " + known.size() + " labels";
    return RunPolicy.builder()
        .cadence(c.name())
        .addAllRawLabels(rawLabels)
        .addAllRequestedLabels(request.requested())
        .addAllIncludeLabels(include)
        .scope(scope.map(ScopeRule::name))
        .admitNightlyTests(c.admitNightlyTests())
        .bypassFastfail(bypass)
        .writeBaseline(c.writeBaseline())
        .addAllWarnings(request.warnings())
        .explanation(new Explanation(decision, reasons, hints))
        .build();
  }

  /**
   * Whether an event is a pull request: the policy's rule for it takes the cadence from the PR labels
   * ({@code pull_request} in the reference policy). Such a run is pruned by its diff whatever chose the
   * cadence, a cadence override included.
   *
   * @param eventName the event that started the run; empty for none
   * @return whether the event is a pull request
   */
  public boolean isPullRequestEvent(String eventName) {
    return !eventName.isEmpty()
        && policy.event(eventName).filter(r -> r.source() == EventRule.Source.PULL_REQUEST_LABELS).isPresent();
  }

  /**
   * Whether {@link #resolve(TriggerInput)} reads the PR labels of this input: there is no non-empty cadence
   * override, and the policy's rule for the event takes the cadence from the PR labels. An adapter that
   * receives the labels in some encoding needs to decode them only then.
   *
   * @param input what started the run; its PR labels, if any, are not looked at
   * @return whether resolution reads {@link TriggerInput#prLabels()}
   */
  public boolean readsPrLabels(TriggerInput input) {
    return input.cadenceOverride().filter(s -> !s.isEmpty()).isEmpty()
        && policy.event(input.eventName()).filter(r -> r.source() == EventRule.Source.PULL_REQUEST_LABELS).isPresent();
  }

  /**
   * Resolves a trigger, first match wins: a non-empty cadence override; the event's rule
   * (PR labels, the exact schedule lookup, or a fixed cadence); anything else is unsupported.
   *
   * @param input what started the run
   * @return the resolution with its run policy and explanation
   * @throws UnsupportedTriggerException for an event the policy has no rule for
   * @throws UnknownScheduleException for a schedule without an exact entry
   * @throws InvalidInputException when the event's rule needs the PR labels and none were given
   * @throws UnknownCadenceException for an override naming an unknown cadence
   */
  public TriggerResolution resolve(TriggerInput input) {
    Optional<String> override = input.cadenceOverride().filter(s -> !s.isEmpty());
    String cadence;
    List<String> raw;
    TriggerResolution.Source source;
    boolean matchAll = false;
    Explanation.Reason trigger;
    List<Warning> triggerWarnings = new ArrayList<>();
    List<String> droppedLabels = new ArrayList<>();
    if (override.isPresent()) {
      cadence = override.get();
      raw = List.of();
      source = TriggerResolution.Source.CADENCE_OVERRIDE;
      trigger = new Explanation.Reason("trigger.override", "the cadence override '" + cadence
          + "' takes precedence over the event and its labels");
    } else {
      EventRule rule = policy.event(input.eventName())
          .orElseThrow(() -> new UnsupportedTriggerException(input.eventName()));
      matchAll = rule.matchAllLabels();
      switch (rule.source()) {
        case PULL_REQUEST_LABELS -> {
          List<String> labels = input.prLabels().orElseThrow(() -> new InvalidInputException("PR labels missing:"
              + " event '" + input.eventName() + "' takes its cadence from the PR labels; expected the PR's label"
              + " names (an empty list for a PR without labels)"));
          raw = canonicalPrLabels(labels);
          cadence = rule.cadence().orElseThrow();
          String switchedBy = "";
          for (WorkflowLabel w : policy.workflowLabels()) {
            if (w.switchesCadence().isPresent() && raw.contains(w.name())) {
              cadence = w.switchesCadence().get();
              switchedBy = w.name();
              break;
            }
          }
          source = TriggerResolution.Source.PULL_REQUEST_LABELS;
          for (String label : labels) {
            if (!isWorkflowLabel(label) && !canonicalPrefixed.matcher(label).matches()) {
              droppedLabels.add(label);
              if (known.contains(label)) {
                triggerWarnings.add(new Warning("label-without-prefix", "PR label '" + label
                    + "' ignored: only '" + policy.labelPrefix() + "<label>' requests a test area (did you mean '"
                    + policy.labelPrefix() + label + "'?)"));
              }
            }
          }
          trigger = new Explanation.Reason("trigger.pull_request", input.eventName() + " uses its "
              + raw.size() + " canonical PR label(s)" + (switchedBy.isEmpty() ? " with cadence " + cadence
              : " and label " + switchedBy + " switches the cadence to " + cadence));
        }
        case SCHEDULE_TABLE -> {
          String cron = input.schedule().orElse("");
          ScheduleRule s = schedule(cron);
          cadence = s.cadence();
          raw = s.labels();
          source = TriggerResolution.Source.SCHEDULE_TABLE;
          trigger = new Explanation.Reason("trigger.schedule", "schedule '" + cron + "' maps to cadence "
              + cadence);
        }
        default -> {
          cadence = rule.cadence().orElseThrow();
          raw = List.of();
          source = TriggerResolution.Source.FIXED;
          trigger = new Explanation.Reason("trigger." + rule.event(), input.eventName()
              + " runs with cadence " + cadence + (matchAll ? " and GPU stages match every known label"
              : ""));
        }
      }
    }
    RunPolicy run = resolveCadence(cadence, raw);
    List<Explanation.Reason> reasons = new ArrayList<>();
    reasons.add(trigger);
    if (!droppedLabels.isEmpty()) {
      reasons.add(new Explanation.Reason("labels.non-canonical", "non-canonical PR labels "
          + quoted(droppedLabels) + " were dropped (only workflow labels and " + policy.labelPrefix()
          + "<label> count)"));
    }
    reasons.addAll(run.explanation().reasons());
    triggerWarnings.addAll(run.warnings());
    return TriggerResolution.builder()
        .eventName(input.eventName())
        .source(source)
        .matchAllLabels(matchAll)
        .runPolicy(run)
        .addAllWarnings(triggerWarnings)
        .explanation(new Explanation(run.explanation().decision(), reasons, run.explanation().hints()))
        .build();
  }

  private static String quoted(List<String> labels) {
    StringBuilder sb = new StringBuilder("[");
    int shown = Math.min(labels.size(), 10);
    for (int i = 0; i < shown; i++) {
      sb.append(i > 0 ? ", " : "").append('\'').append(labels.get(i)).append('\'');
    }
    if (labels.size() > shown) {
      sb.append(", and ").append(labels.size() - shown).append(" more");
    }
    return sb.append(']').toString();
  }

  private boolean isWorkflowLabel(String label) {
    for (WorkflowLabel w : policy.workflowLabels()) {
      if (w.name().equals(label)) {
        return true;
      }
    }
    return false;
  }

  private Set<String> scopeLabels() {
    Set<String> out = new LinkedHashSet<>();
    policy.scopes().forEach(s -> out.addAll(s.whenLabels()));
    return out;
  }
}
