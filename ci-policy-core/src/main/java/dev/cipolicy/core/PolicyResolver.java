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
      throw new UnknownScheduleException(cron, List.copyOf(scheduleTable.keySet()));
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
        Optional<String> close = closestKnown(name);
        notes.add(raw + " names '" + name + "', which is not a known label"
            + close.map(c -> " (did you mean " + policy.labelPrefix() + c + "?)").orElse(""));
        String hint = isWorkflowLabel(name) ? "; did you mean the workflow label " + name + "?"
            : close.map(c -> "; did you mean " + policy.labelPrefix() + c + "?")
                .orElse("; the known labels are " + new TreeSet<>(known));
        ws.add(new Warning("unknown-label", "label '" + raw + "' requests nothing: '" + name
            + "' is not a known label" + hint));
      }
    }
    return new LabelRequest(List.copyOf(requested), List.copyOf(ws), List.copyOf(notes));
  }

  /**
   * The known label closest to a name that is not one, when it is close: at most {@link #MAX_SUGGESTION_DISTANCE}
   * edits (insertions, deletions, substitutions) away and fewer edits than half the name's length; ties go to
   * the first known label in policy order.
   */
  Optional<String> closestKnown(String name) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = editDistance(name, k, MAX_SUGGESTION_DISTANCE);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return best != null && bestDistance <= MAX_SUGGESTION_DISTANCE && 2 * bestDistance < name.length()
        ? Optional.of(best) : Optional.empty();
  }

  /** The most edits between an unknown label and the known label suggested for it. */
  static final int MAX_SUGGESTION_DISTANCE = 2;

  /** The Levenshtein distance of two strings, or {@code cap + 1} when it is larger than {@code cap}. */
  static int editDistance(String a, String b, int cap) {
    if (Math.abs(a.length() - b.length()) > cap) {
      return cap + 1;
    }
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      int rowMin = current[0];
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
        rowMin = Math.min(rowMin, current[j]);
      }
      if (rowMin > cap) {
        return cap + 1;
      }
      int[] t = previous;
      previous = current;
      current = t;
    }
    return Math.min(previous[b.length()], cap + 1);
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
      if (!w.code().equals("unknown-label")) { // an unknown label is explained by its labels.dropped note
        reasons.add(new Explanation.Reason("labels.ignored", w.message()));
      }
    }
    for (String note : request.dropped()) {
      reasons.add(new Explanation.Reason("labels.dropped", note));
    }
    boolean bypassByLabel = policy.workflowLabels().stream()
        .anyMatch(w -> w.bypassFastfail() && rawLabels.contains(w.name()));
    boolean bypass = c.bypassFastfail() || bypassByLabel;
    String nightly = (c.admitNightlyTests() ? " admits" : " does not admit") + " nightly-only tests";
    String baselines = (c.writeBaseline() ? "writes" : "does not write") + " metric baselines";
    if (bypassByLabel && !c.bypassFastfail()) {
      // the label decides fast-fail, so the cadence's sentence does not claim it keeps it
      reasons.add(new Explanation.Reason("cadence." + c.name(), "cadence " + c.name() + nightly + " and "
          + baselines));
      reasons.add(new Explanation.Reason("labels.bypass-fastfail", "a bypass-fastfail workflow label bypasses"
          + " fast-fail (cadence " + c.name() + " alone would keep it), so the run continues after a failure"));
    } else {
      reasons.add(new Explanation.Reason("cadence." + c.name(), "cadence " + c.name() + nightly + ", "
          + (c.bypassFastfail() ? "bypasses fast-fail" : "keeps fast-fail") + " and " + baselines));
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
    Optional<String> override = input.cadenceOverride().filter(o -> !o.isEmpty());
    Trigger trigger;
    if (override.isPresent()) {
      trigger = fromOverride(override.get());
    } else {
      EventRule rule = policy.event(input.eventName()).orElseThrow(() -> new UnsupportedTriggerException(
          input.eventName(), policy.events().stream().map(EventRule::event).toList()));
      trigger = switch (rule.source()) {
        case PULL_REQUEST_LABELS -> fromPullRequestLabels(input, rule);
        case SCHEDULE_TABLE -> fromScheduleTable(input, rule);
        default -> fromFixedCadence(input, rule);
      };
    }
    RunPolicy run = resolveCadence(trigger.cadence(), trigger.rawLabels());
    List<Explanation.Reason> reasons = new ArrayList<>();
    reasons.add(trigger.reason());
    if (!trigger.droppedLabels().isEmpty()) {
      reasons.add(new Explanation.Reason("labels.non-canonical", "PR labels " + quoted(trigger.droppedLabels())
          + " were dropped: only workflow labels and " + policy.labelPrefix() + "<label> count"));
    }
    reasons.addAll(run.explanation().reasons());
    return TriggerResolution.builder()
        .eventName(input.eventName())
        .source(trigger.source())
        .matchAllLabels(trigger.matchAllLabels())
        .runPolicy(run)
        .addAllWarnings(trigger.warnings())
        .addAllWarnings(run.warnings())
        .explanation(new Explanation(run.explanation().decision(), reasons, run.explanation().hints()))
        .build();
  }

  /**
   * What a trigger source decided before the cadence is resolved.
   *
   * @param cadence the cadence to resolve
   * @param rawLabels the raw labels the run uses
   * @param source which source chose the cadence
   * @param matchAllLabels whether GPU stages match every known label
   * @param reason why, as the first reason of the explanation
   * @param warnings inputs the source ignored
   * @param droppedLabels PR labels that do not count
   */
  private record Trigger(String cadence, List<String> rawLabels, TriggerResolution.Source source,
      boolean matchAllLabels, Explanation.Reason reason, List<Warning> warnings, List<String> droppedLabels) {}

  private static Trigger fromOverride(String cadence) {
    return new Trigger(cadence, List.of(), TriggerResolution.Source.CADENCE_OVERRIDE, false,
        new Explanation.Reason("trigger.override", "the cadence override '" + cadence
            + "' takes precedence over the event and its labels"), List.of(), List.of());
  }

  private Trigger fromPullRequestLabels(TriggerInput input, EventRule rule) {
    List<String> labels = input.prLabels().orElseThrow(() -> new InvalidInputException("PR labels missing:"
        + " event '" + input.eventName() + "' takes its cadence from the PR labels; expected the PR's label"
        + " names (an empty list for a PR without labels)"));
    List<String> raw = canonicalPrLabels(labels);
    String cadence = rule.cadence().orElseThrow();
    String switchedBy = "";
    for (WorkflowLabel w : policy.workflowLabels()) {
      if (w.switchesCadence().isPresent() && raw.contains(w.name())) {
        cadence = w.switchesCadence().get();
        switchedBy = w.name();
        break;
      }
    }
    List<Warning> warnings = new ArrayList<>();
    List<String> dropped = new ArrayList<>();
    for (String label : labels) {
      if (!isWorkflowLabel(label) && !canonicalPrefixed.matcher(label).matches()) {
        dropped.add(label);
        if (known.contains(label)) {
          warnings.add(new Warning("label-without-prefix", "PR label '" + label
              + "' ignored: only '" + policy.labelPrefix() + "<label>' requests a test area (did you mean '"
              + policy.labelPrefix() + label + "'?)"));
        }
      }
    }
    Explanation.Reason reason = new Explanation.Reason("trigger.pull_request", input.eventName() + " uses its "
        + raw.size() + " CI label(s)" + (switchedBy.isEmpty() ? " with cadence " + cadence
        : " and label " + switchedBy + " switches the cadence to " + cadence));
    return new Trigger(cadence, raw, TriggerResolution.Source.PULL_REQUEST_LABELS, rule.matchAllLabels(), reason,
        warnings, dropped);
  }

  private Trigger fromScheduleTable(TriggerInput input, EventRule rule) {
    String cron = input.schedule().orElse("");
    ScheduleRule s = schedule(cron);
    return new Trigger(s.cadence(), s.labels(), TriggerResolution.Source.SCHEDULE_TABLE, rule.matchAllLabels(),
        new Explanation.Reason("trigger.schedule", "schedule '" + cron + "' maps to cadence " + s.cadence()),
        List.of(), List.of());
  }

  private static Trigger fromFixedCadence(TriggerInput input, EventRule rule) {
    String cadence = rule.cadence().orElseThrow();
    return new Trigger(cadence, List.of(), TriggerResolution.Source.FIXED, rule.matchAllLabels(),
        new Explanation.Reason("trigger." + rule.event(), input.eventName() + " runs with cadence " + cadence
            + (rule.matchAllLabels() ? " and GPU stages match every known label" : "")), List.of(), List.of());
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
