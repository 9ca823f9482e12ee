package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.concurrency.WorkflowConcurrency;
import dev.cipolicy.api.gate.FailOnLevel;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * A whole CI policy: labels, cadences, events, schedules, scope rules, backends and suites, PR stages and
 * path rules, runner pools and the cadences' shares of them. Each part checks its own fields when it is
 * built (a suite has at least one shard, a host's partitions sum to its GPUs), and so does the policy (its
 * name is not blank);
 * {@code PolicyResolver.of(policy)} in ci-policy-core runs the static checks of the policy as a whole
 * (name grammars, names declared once, references between the parts) and rejects an inconsistent policy
 * with every problem listed.
 */
@Value.Immutable
@ValueStyle
public abstract class Policy {

  /**
   * The policy's name, used in messages.
   *
   * @return e.g. {@code miles}
   */
  public abstract String name();

  /**
   * The prefix that turns a domain label into a PR label. The default is a neutral, documented one so that
   * a small policy need not declare it; a project whose PR labels look different declares its own.
   *
   * @return {@code run-ci-} unless declared otherwise
   */
  @Value.Default
  public String labelPrefix() {
    return "run-ci-";
  }

  /**
   * Known domain labels, in declaration order.
   *
   * @return the labels
   */
  public abstract List<DomainLabel> domainLabels();

  /**
   * Labels that change how the workflow runs ({@code nightly}, {@code bypass-fastfail}).
   *
   * @return the workflow labels
   */
  public abstract List<WorkflowLabel> workflowLabels();

  /**
   * The cadences and their flags.
   *
   * @return the cadences
   */
  public abstract List<CadenceDefinition> cadences();

  /**
   * How each supported trigger event picks its cadence; an event not listed is unsupported.
   *
   * @return the event rules
   */
  public abstract List<EventRule> events();

  /**
   * The exact cron → cadence table.
   *
   * @return the schedule rules
   */
  public abstract List<ScheduleRule> schedules();

  /**
   * The scope precedence, first match wins; no match means an empty scope.
   *
   * @return the scope rules in order
   */
  public abstract List<ScopeRule> scopes();

  /**
   * Hardware backends and their suites.
   *
   * @return the backends in order
   */
  public abstract List<Backend> backends();

  /**
   * Host layouts that suites may reference.
   *
   * @return the layouts
   */
  public abstract List<HostLayout> hosts();

  /**
   * The container image repository; images are {@code <repository>:<tag>}.
   *
   * @return e.g. {@code radixark/miles}
   */
  public abstract Optional<String> containerImageRepository();

  /**
   * The policy's own rule for suite names, if it has one; without it any {@link Suite#NAME_GRAMMAR} name is
   * a suite name.
   *
   * @return the naming rule
   */
  public abstract Optional<SuiteNaming> suiteNaming();

  /**
   * Stages a pull request may run, and therefore may skip.
   *
   * @return suite names
   */
  public abstract List<String> prStages();

  /**
   * Path globs of changes that never need a GPU stage (docs, Markdown, pre-commit configuration).
   *
   * @return globs such as {@code docs/**} or {@code **}{@code /*.md}
   */
  public abstract List<String> nonGpuPaths();

  /**
   * How failed test output is classified for retry.
   *
   * @return the rules; the reference defaults unless declared
   */
  @Value.Default
  public RetryRules retry() {
    return RetryRules.defaults();
  }

  /**
   * The per-file timeout rule.
   *
   * @return base 1800 s and factor 1.25 unless declared
   */
  @Value.Default
  public TimeoutRule timeouts() {
    return TimeoutRule.defaults();
  }

  /**
   * The {@code /rerun-test} command.
   *
   * @return the rules; the reference defaults unless declared
   */
  @Value.Default
  public FileRunRules fileRun() {
    return FileRunRules.defaults();
  }

  /**
   * The workflows whose concurrency groups the policy declares, in declaration order.
   *
   * @return the workflows; empty when the policy declares none
   */
  public abstract List<WorkflowConcurrency> workflows();

  /**
   * What the jobs of each workflow are for ({@code workflows.<name>.roles}), in declaration order: the
   * invariants {@code ci-policy workflow lint} proves on the workflow files.
   *
   * @return the roles; empty when the policy declares none
   */
  public abstract List<WorkflowRoles> workflowRoles();

  /**
   * The roles of the workflow in a file.
   *
   * @param file the workflow's file name, e.g. {@code pr-test.yml}
   * @return its roles, if the policy declares them
   */
  public Optional<WorkflowRoles> workflowRolesOfFile(String file) {
    return workflowRoles().stream().filter(r -> r.file().equals(file)).findFirst();
  }

  /**
   * The gate defaults table: steps, constraint and better direction for common metrics, in
   * declaration order. A test's gate takes what it does not declare from the entry of its metric.
   *
   * @return the defaults; empty when the policy declares none
   */
  public abstract List<GateDeclaration> gateDefaults();

  /**
   * The blocking level of each cadence whose gated runs may fail: cadence name → the verdicts that fail a run
   * of that cadence ({@code gates.fail_on}). A cadence not listed only reports; a host's explicit choice wins
   * over this table. Every key is a declared cadence (a static check of the policy).
   *
   * @return the levels by cadence, in declaration order; empty when the policy declares none
   */
  public abstract Map<String, FailOnLevel> gateFailOn();

  /**
   * The runner pools of the fleet, in declaration order: what suites' pools name and fleet shares are
   * measured against.
   *
   * @return the pools; empty when the policy declares none
   */
  public abstract List<RunnerPool> pools();

  /**
   * The cadences' shares of the pools, in declaration order (by cadence, then pool); each cadence and pool
   * at most once.
   *
   * @return the shares; empty when no cadence is capped
   */
  public abstract List<FleetShare> fleetShares();

  /**
   * Looks up a declared pool.
   *
   * @param name the pool name
   * @return the pool, if declared
   */
  public Optional<RunnerPool> pool(String name) {
    return pools().stream().filter(p -> p.name().equals(name)).findFirst();
  }

  /**
   * Looks up a cadence's share of a pool.
   *
   * @param cadence the cadence
   * @param pool the pool
   * @return the share, if the cadence is capped on the pool
   */
  public Optional<FleetShare> share(String cadence, String pool) {
    return fleetShares().stream().filter(s -> s.cadence().equals(cadence) && s.pool().equals(pool)).findFirst();
  }

  /**
   * The names of the known domain labels, in declaration order.
   *
   * @return the names
   */
  @Value.Lazy
  public List<String> knownLabels() {
    return domainLabels().stream().map(DomainLabel::name).toList();
  }

  /**
   * The names of the declared cadences, in declaration order.
   *
   * @return the names
   */
  @Value.Lazy
  public List<String> cadenceNames() {
    return cadences().stream().map(CadenceDefinition::name).toList();
  }

  /**
   * Looks up a declared cadence.
   *
   * @param name the cadence name
   * @return the definition, if declared
   */
  public Optional<CadenceDefinition> cadence(String name) {
    return cadences().stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /**
   * Looks up a declared event rule.
   *
   * @param event the event name
   * @return the rule, if the event is supported
   */
  public Optional<EventRule> event(String event) {
    return events().stream().filter(e -> e.event().equals(event)).findFirst();
  }

  /**
   * Rejects a blank name; every other rule of a policy is a static check of {@code PolicyResolver.of}.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("Policy").require(!name().isBlank(), "name", () -> "the policy name must not be empty").done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Policy}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutablePolicy.Builder {
    Builder() {}
  }
}
