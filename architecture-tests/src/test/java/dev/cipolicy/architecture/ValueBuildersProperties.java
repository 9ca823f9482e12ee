package dev.cipolicy.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.Warning;
import dev.cipolicy.api.concurrency.ConcurrencyAction;
import dev.cipolicy.api.concurrency.ConcurrencyDecision;
import dev.cipolicy.api.concurrency.ConcurrencyEvent;
import dev.cipolicy.api.concurrency.ConcurrencyEventType;
import dev.cipolicy.api.concurrency.InFlightRun;
import dev.cipolicy.api.concurrency.RunDecision;
import dev.cipolicy.api.concurrency.WorkflowConcurrency;
import dev.cipolicy.api.gate.Better;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.gate.GateSteps;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.CadenceDefinition;
import dev.cipolicy.api.policy.DomainLabel;
import dev.cipolicy.api.policy.EventRule;
import dev.cipolicy.api.policy.FileRunRules;
import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.api.policy.HostLayout;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.RetryRules;
import dev.cipolicy.api.policy.RunCommand;
import dev.cipolicy.api.policy.RunnerPool;
import dev.cipolicy.api.policy.ScheduleRule;
import dev.cipolicy.api.policy.ScopeRule;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.policy.SuiteNaming;
import dev.cipolicy.api.policy.TimeoutRule;
import dev.cipolicy.api.policy.WorkflowLabel;
import dev.cipolicy.api.policy.WorkflowRoles;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.api.suite.JobPlan;
import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.api.suite.RunFacts;
import dev.cipolicy.api.suite.SuiteRunPlan;
import dev.cipolicy.gate.GateMode;
import dev.cipolicy.gate.GateModel;
import dev.cipolicy.gate.GateOptions;
import dev.cipolicy.gate.GateSpec;
import dev.cipolicy.gate.HookRequest;
import dev.cipolicy.gate.MetricRecord;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.gate.TrustMode;
import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.fleet.job.CiJob;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.PurgeResult;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import fixture.values.UncheckedValue;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * A value that can be built is valid, for every value type of the library modules: each type generated
 * with the project's value style is found by scanning the exported packages (not by a list), and for
 * each one any valid fields build, while leaving out any required field, passing null to any builder
 * method, or breaking any rule of the type throws a {@code CiPolicyException} and nothing else (see
 * {@link ValueBuilderChecks}). The specs below say how to make each type valid and how to break each of
 * its rules; a type found without a spec, or a spec of a type not found, fails the test, and so does a
 * type whose {@code @Value.Check} is lost (its broken rules then build). {@link #aTypeThatLostItsChecksFails}
 * proves the checks fail on a fixture type whose builder checks nothing.
 */
class ValueBuildersProperties {
  private static final String VALUE_CHECK = "org.immutables.value.Value$Check";
  private static final Instant T0 = Instant.parse("2026-01-05T09:00:00Z");
  private static final Explanation EXPLANATION = new Explanation("decided",
      List.of(new Explanation.Reason("rule", "what it saw")), List.of());
  private static final RunPolicy RUN_POLICY = RunPolicy.builder().cadence("nightly").admitNightlyTests(true)
      .bypassFastfail(false).writeBaseline(true).explanation(EXPLANATION).build();

  /**
   * The types found by scanning, by class: every type that a generated {@code Immutable*} class implements.
   * (The style annotation itself is source-retained, so class files do not show it.)
   */
  private static final Map<Class<?>, JavaClass> FOUND = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.cipolicy")
      .that(resideInAnyPackage("dev.cipolicy.api..", "dev.cipolicy.core..", "dev.cipolicy.workflow..", "dev.cipolicy.gate..",
          "dev.cipolicy.queue..", "dev.cipolicy.fleet..", "dev.cipolicy.testkit.."))
      .that(not(resideInAnyPackage("dev.cipolicy.gate.tck..", "dev.cipolicy.queue.tck..")))
      .that(not(resideInAPackage("..internal..")))
      .stream().filter(c -> c.getSimpleName().startsWith("Immutable") && !c.isNestedClass())
      .flatMap(generated -> Stream.concat(generated.getRawSuperclass().stream(),
          generated.getRawInterfaces().stream()))
      .filter(type -> type.getPackageName().startsWith("dev.cipolicy."))
      .distinct()
      .collect(Collectors.toMap(JavaClass::reflect, Function.identity()));

  private static final Map<Class<?>, ValueSpec> SPECS = Stream.of(specs())
      .collect(Collectors.toMap(ValueSpec::type, Function.identity(), (a, b) -> a, LinkedHashMap::new));

  static Stream<Class<?>> valueTypes() {
    return FOUND.keySet().stream().sorted(java.util.Comparator.comparing(Class::getName));
  }

  @Test
  void theScanFindsTheValueTypesOfEveryModule() {
    assertThat(FOUND.keySet()).contains(Policy.class, TriggerInput.class, GateOptions.class, HookRequest.class,
        QueueSettings.class, Request.class);
  }

  @Test
  void everyValueTypeFoundHasASpecAndEverySpecATypeFound() {
    assertThat(names(SPECS.keySet())).as("value types with a spec").isEqualTo(names(FOUND.keySet()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueTypes")
  void theBuilderIsTheTypesOwnAndReturnsPublicTypes(Class<?> type) throws Exception {
    Method builder = type.getMethod("builder");
    assertThat(Modifier.isStatic(builder.getModifiers())).isTrue();
    Class<?> b = builder.getReturnType();
    assertThat(b.getName()).as("builder() returns the nested Builder").isEqualTo(type.getName() + "$Builder");
    assertThat(Modifier.isPublic(b.getModifiers()) && Modifier.isFinal(b.getModifiers())).isTrue();
    for (Method m : b.getMethods()) {
      if (m.getDeclaringClass() != Object.class && !m.getName().equals("build")) {
        assertThat(m.getReturnType()).as(type.getSimpleName() + ".Builder." + m.getName() + " returns the builder")
            .isEqualTo(b);
      }
    }
    assertThat(b.getMethod("build").getReturnType()).as("build() returns the value type").isEqualTo(type);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueTypes")
  void aTypeHasRulesInItsSpecExactlyWhenItHasAValueCheck(Class<?> type) {
    ValueSpec spec = spec(type);
    boolean hasCheck = FOUND.get(type).getMethods().stream().anyMatch(m -> m.isAnnotatedWith(VALUE_CHECK));
    assertThat(spec.noRulesBecause() == null)
        .as(type.getSimpleName() + (hasCheck ? " has a @Value.Check: its spec must break its rules"
            : " has no @Value.Check: its spec must say why it needs none"))
        .isEqualTo(hasCheck);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueTypes")
  void aValueThatCanBeBuiltIsValid(Class<?> type) {
    new ValueBuilderChecks(spec(type)).verify();
  }

  @Test
  void aTypeThatLostItsChecksFails() {
    ValueSpec unchecked = ValueSpec.of(UncheckedValue.class).field("name", names())
        .broken("the name is not empty", "name", "").rules();
    ValueBuilderChecks checks = new ValueBuilderChecks(unchecked);
    checks.validFieldsBuild();
    assertThatThrownBy(checks::everyRuleIsChecked).isInstanceOf(AssertionError.class)
        .hasMessageContaining("UncheckedValue: breaking the rule 'the name is not empty'");
    assertThatThrownBy(checks::everyRequiredFieldIsChecked).isInstanceOf(AssertionError.class)
        .hasMessageContaining("UncheckedValue: the empty builder built");
    assertThatThrownBy(checks::nullsAreRejected).isInstanceOf(AssertionError.class)
        .hasMessageContaining("UncheckedValue: name(null)");
  }

  private static ValueSpec spec(Class<?> type) {
    ValueSpec spec = SPECS.get(type);
    assertThat(spec).as("a spec for " + type.getName()).isNotNull();
    return spec;
  }

  private static Set<String> names(Set<Class<?>> types) {
    return types.stream().map(Class::getName).collect(Collectors.toCollection(TreeSet::new));
  }

  // ---- generators ----

  private static Gen<String> names() {
    return strings().betweenCodePoints('a', 'z').ofLengthBetween(1, 12);
  }

  private static Gen<String> runIds() {
    return longs().between(1, 999_999_999).map(n -> Long.toString(n));
  }

  private static Gen<List<String>> nameLists() {
    return lists().of(names()).ofSizeBetween(0, 3);
  }

  /** Distinct names in ascending order. */
  private static Gen<List<String>> sortedNames() {
    return nameLists().map(l -> List.copyOf(new TreeSet<>(l)));
  }

  private static List<String> prepend(String first, List<String> rest) {
    List<String> out = new java.util.ArrayList<>(List.of(first));
    out.addAll(rest);
    return out;
  }

  private static Gen<Integer> notPositive() {
    return integers().between(-1000, 0);
  }

  private static Gen<Double> notFiniteOrNegative() {
    return Generate.pick(List.of(-1.0, -0.001, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY));
  }

  private static Map<String, Object> of(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  // ---- one spec per value type ----

  private static ValueSpec[] specs() {
    return new ValueSpec[] {
        // api.concurrency
        ValueSpec.of(ConcurrencyDecision.class).field("groupKey", names())
            .field("newRun", Generate.enumValues(ConcurrencyDecision.NewRun.class)).fixed("explanation", EXPLANATION)
            .broken("the group key is not empty", "groupKey", "").rules(),
        ValueSpec.of(ConcurrencyEvent.class)
            .field("type", Generate.pick(List.of(ConcurrencyEventType.SUPERSEDED, ConcurrencyEventType.CLOSED,
                ConcurrencyEventType.MERGED)))
            .field("workflow", names()).field("runId", runIds()).field("prNumber", longs().between(1, 100_000))
            .broken("the workflow is not empty", "workflow", "")
            .broken("the run id is a positive decimal number", "runId", Generate.pick(List.of("abc", "1 2", "0x1")))
            .broken("the PR number is positive", "prNumber", longs().between(-100, 0))
            .broken("a PR event needs a PR number", "prNumber", ValueSpec.REMOVE)
            .broken("only scheduled events carry a cron", "cron", "0 15 * * 6")
            .broken("only dispatched events carry a release ref", "releaseRef", "refs/heads/main").rules(),
        ValueSpec.of(InFlightRun.class).field("runId", runIds()).field("workflow", names())
            .field("prNumber", longs().between(1, 100_000))
            .broken("the workflow is not empty", "workflow", "")
            .broken("the run id is a positive decimal number", "runId", "run-1")
            .broken("the PR number is positive", "prNumber", longs().between(-100, 0))
            .broken("a cron has no surrounding white space", "cron", " 0 15 * * 6")
            .broken("a release ref is a full git ref", "releaseRef", "main").rules(),
        ValueSpec.of(RunDecision.class).field("runId", runIds())
            .field("action", Generate.enumValues(dev.cipolicy.api.concurrency.RunDecision.Action.class))
            .field("reason", names())
            .broken("the run id is not empty", "runId", "").broken("the reason is not empty", "reason", "").rules(),
        ValueSpec.of(WorkflowConcurrency.class).field("name", names()).field("groupPrefix", names().map(n -> n + "-"))
            .fixed("actions", Map.of(ConcurrencyEventType.CLOSED, ConcurrencyAction.CANCEL))
            .broken("the name is not empty", "name", "").broken("the group prefix is not empty", "groupPrefix", "")
            .rules(),
        // api.gate
        ValueSpec.of(GateConstraint.class).field("relUp", doubles().between(0, 2)).field("absFloorDown",
            doubles().between(0, 2))
            .noRules("a constraint as declared: Gates.resolve and the policy's checks report what is wrong with it,"
                + " with its location; GateSpec holds only valid ones"),
        ValueSpec.of(GateDeclaration.class).field("metricKey", names()).fixed("steps", GateSteps.all())
            .field("better", Generate.enumValues(Better.class))
            .noRules("a declaration as written, completed from the defaults table: Gates.resolve and the policy's"
                + " checks report its problems; GateSpec holds only valid ones"),
        // api.policy
        ValueSpec.of(Backend.class).field("name", names()).field("gpu", booleans().all())
            .broken("the name is not empty", "name", "")
            .broken("device variables are environment variable names", "deviceEnv", List.of("9X"))
            .brokenTogether("a CPU backend has no device variables", of("gpu", false, "deviceEnv",
                List.of("CUDA_VISIBLE_DEVICES")))
            .brokenTogether("a GPU backend with a command has device variables", of("gpu", true, "run",
                RunCommand.builder().addCommand("run").build()))
            .brokenTogether("a command does not set a device variable", of("gpu", true, "deviceEnv",
                List.of("CUDA_VISIBLE_DEVICES"), "run", RunCommand.builder().addCommand("run")
                    .putEnv("CUDA_VISIBLE_DEVICES", "0").build())).rules(),
        ValueSpec.of(RunCommand.class).field("command", nameLists().map(l -> prepend("python", l)))
            .field("image", names().map(n -> n + ":{image_tag}"))
            .broken("the command is not empty", "command", List.of())
            .broken("the program is not blank", "command", List.of(" ", "x"))
            .broken("every placeholder is known", "command", List.of("python", "{nope}"))
            .broken("every brace is closed", "command", List.of("python", "{suite"))
            .broken("the command has at most 256 arguments", "command", java.util.Collections.nCopies(257, "x"))
            .broken("the image has no white space", "image", "a b")
            .broken("environment names are valid", "env", Map.of("1X", "v"))
            .broken("environment values are valid templates", "env", Map.of("A", "}")).rules(),
        ValueSpec.of(CadenceDefinition.class).field("name", names()).field("admitNightlyTests", booleans().all())
            .field("bypassFastfail", booleans().all()).field("writeBaseline", booleans().all())
            .field("gpuMaxParallel", integers().between(1, 64))
            .broken("the name is not empty", "name", "")
            .broken("the GPU max-parallel is at least 1", "gpuMaxParallel", notPositive()).rules(),
        ValueSpec.of(DomainLabel.class).field("name", names()).broken("the name is not empty", "name", "").rules(),
        ValueSpec.of(EventRule.class).field("event", names())
            .field("source", Generate.pick(List.of(EventRule.Source.FIXED, EventRule.Source.PULL_REQUEST_LABELS)))
            .field("cadence", names())
            .broken("the event name is not empty", "event", "")
            .broken("a fixed or label event has a cadence", "cadence", ValueSpec.REMOVE)
            .broken("a schedule-table event has no cadence of its own", "source", EventRule.Source.SCHEDULE_TABLE)
            .rules(),
        ValueSpec.of(FileRunRules.class).fixed("command", "/rerun-test").field("defaultImageTag", names())
            .noRules("its grammar (command word, test directory and roots, file prefix and suffix, image tag) and"
                + " its backends are checked by"
                + " PolicyResolver.of against the whole policy, with locations"),
        ValueSpec.of(HostLayout.class).field("name", names()).field("gpus", integers().between(1, 16))
            .broken("the name is not empty", "name", "")
            .broken("there is at least 1 GPU", "gpus", notPositive())
            .brokenTogether("partitions sum to the GPUs", of("gpus", 8, "partitions", List.of(2, 2)))
            .brokenTogether("partitions are positive", of("gpus", 4, "partitions", List.of(0, 4))).rules(),
        ValueSpec.of(RunnerPool.class).field("name", names()).field("runners", integers().between(1, 16))
            .field("gpus", integers().between(0, 64))
            .broken("the name is shell-safe", "name", Generate.pick(List.of("", "h 200", "a;b", "$(x)")))
            .broken("there is at least 1 runner", "runners", notPositive())
            .broken("there are at least 0 GPUs", "gpus", integers().between(-1000, -1)).rules(),
        ValueSpec.of(FleetShare.class).field("cadence", names()).field("pool", names())
            .field("unit", Generate.enumValues(FleetShare.Unit.class)).field("amount", integers().between(1, 64))
            .broken("the cadence is not empty", "cadence", "")
            .broken("the pool is not empty", "pool", "")
            .broken("the share is at least 1", "amount", notPositive()).rules(),
        ValueSpec.of(WorkflowRoles.class).field("workflow", names()).field("policyJob", names().map(n -> "p-" + n))
            .broken("the workflow name is not empty", "workflow", "")
            .broken("the policy job is not empty", "policyJob", "")
            .broken("the file is a name without a directory", "file", Generate.pick(List.of("", "a/b.yml", "a\\b.yml")))
            .broken("the policy job is at most 100 characters", "policyJob", "p".repeat(101))
            .brokenTogether("the gate is not the policy job", of("policyJob", "p", "gateJob", "p"))
            .brokenTogether("a stage job is not the policy job", of("policyJob", "p", "stageJobs", Map.of("p", "s")))
            .broken("an output name is not empty", "bypassOutput", "").rules(),
        ValueSpec.of(Policy.class).field("name", names()).field("labelPrefix", names().map(n -> n + "-"))
            .broken("the name is not blank", "name", Generate.pick(List.of("", " ", "\t"))).rules(),
        ValueSpec.of(RetryRules.class).field("nonRetriable", lists().of(names()).ofSizeBetween(1, 3))
            .field("assertionToken", names())
            .broken("no token is blank", "nonRetriable", List.of("OOM", " "))
            .broken("every metric pattern compiles", "metricAssertionPatterns", List.of("loss (unclosed"))
            .broken("the assertion token is not blank", "assertionToken", "  ").rules(),
        ValueSpec.of(ScheduleRule.class).fixed("cron", "0 15 * * 6").field("cadence", names())
            .field("labels", nameLists())
            .noRules("its cron and cadence are checked by PolicyResolver.of against the whole policy (the cron"
                + " grammar lives in ci-policy-core), with locations"),
        ValueSpec.of(ScopeRule.class).field("name", names()).field("whenCadences", nameLists())
            .noRules("its labels, cadences and reachability are checked by PolicyResolver.of against the whole"
                + " policy, with locations"),
        ValueSpec.of(Suite.class).field("name", names()).field("runnerLabels", nameLists())
            .field("shards", integers().between(1, 32)).field("gpus", integers().between(0, 16))
            .field("hardware", names()).field("pool", names())
            .broken("the name is not empty", "name", "")
            .broken("the name is shell-safe", "name", Generate.pick(List.of("unit tests", "a;b", "$(x)")))
            .broken("there is at least 1 shard", "shards", notPositive())
            .broken("there are at most 1000 shards", "shards", integers().between(1001, Integer.MAX_VALUE))
            .broken("there are at most 1024 GPUs", "gpus", integers().between(1025, Integer.MAX_VALUE))
            .broken("the hardware is shell-safe", "hardware", "h 200")
            .broken("the pool is shell-safe", "pool", "`pool`")
            .brokenTogether("the GPU budget is at most the GPUs", of("gpus", 2, "gpuBudget", 4))
            .brokenTogether("a GPU suite's jobs need a GPU", of("gpus", 2, "gpuBudget", 0))
            .brokenTogether("a CPU suite has no GPU budget", of("gpus", 0, "gpuBudget", 1)).rules(),
        ValueSpec.of(SuiteNaming.class).fixed("pattern", "stage-(?<tier>[abc])-[a-z0-9-]+")
            .field("description", names())
            .broken("the pattern is not empty", "pattern", "")
            .broken("the pattern compiles", "pattern", Generate.pick(List.of("(", "[a-", "x{2,1}")))
            .broken("the pattern is at most 512 characters", "pattern", "a".repeat(513))
            .broken("named groups are gpus, hardware or tier", "pattern", "(?<gpu>[0-9]+)").rules(),
        ValueSpec.of(TimeoutRule.class).field("baseSeconds", longs().between(1, 100_000))
            .field("factor", doubles().between(0.01, 10))
            .broken("the base is at least 1 s", "baseSeconds", longs().between(-1000, 0))
            .broken("the factor is a positive finite number", "factor",
                Generate.pick(List.of(0.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY))).rules(),
        ValueSpec.of(WorkflowLabel.class).field("name", names()).field("bypassFastfail", booleans().all())
            .broken("the name is not empty", "name", "").rules(),
        // api.run
        ValueSpec.of(RunPolicy.class).field("cadence", names()).field("rawLabels", nameLists())
            .fixed("requestedLabels", List.of("megatron")).fixed("includeLabels", List.of("fsdp", "megatron"))
            .field("admitNightlyTests", booleans().all()).field("bypassFastfail", booleans().all())
            .field("writeBaseline", booleans().all()).fixed("explanation", EXPLANATION)
            .broken("the cadence is not empty", "cadence", "")
            .brokenTogether("requested labels are sorted", of("requestedLabels", List.of("b", "a"),
                "includeLabels", List.of("a", "b")))
            .brokenTogether("included labels are listed once", of("requestedLabels", List.of(),
                "includeLabels", List.of("a", "a")))
            .brokenTogether("requested labels are included", of("requestedLabels", List.of("a"),
                "includeLabels", List.of("b")))
            .rules(),
        ValueSpec.of(TriggerInput.class).field("eventName", names()).field("prLabels", Generate.constant(List.of("run-ci-megatron")))
            .broken("the event name is not empty without a cadence override", "eventName", "").rules(),
        ValueSpec.of(TriggerResolution.class).field("eventName", names())
            .field("source", Generate.pick(List.of(TriggerResolution.Source.PULL_REQUEST_LABELS,
                TriggerResolution.Source.SCHEDULE_TABLE, TriggerResolution.Source.FIXED)))
            .field("matchAllLabels", booleans().all()).fixed("runPolicy", RUN_POLICY)
            .fixed("warnings", List.of(new Warning("code", "message"))).fixed("explanation", EXPLANATION)
            .broken("the event name is not empty unless an override chose the cadence", "eventName", "").rules(),
        // api.suite
        ValueSpec.of(Registration.class).field("file", names().map(n -> "tests/e2e/test_" + n + ".py"))
            .field("backend", names()).field("suite", names()).field("estTimeSeconds", doubles().between(0, 1e5))
            .field("labels", nameLists())
            .broken("the estimate is finite and not negative", "estTimeSeconds", notFiniteOrNegative())
            .broken("a disabled registration has a reason", "disabled", Generate.pick(List.of("", " "))).rules(),
        ValueSpec.of(RunFacts.class).fixed("commit", "0123abc").field("runId", runIds()).field("cadence", names())
            .field("labels", nameLists()).field("attempt", integers().between(1, 5))
            .broken("the commit is hexadecimal", "commit", Generate.pick(List.of("", "main", "0123ABC")))
            .broken("the run id is a token", "runId", Generate.pick(List.of("", "a b", "-x")))
            .broken("the cadence is a name", "cadence", "")
            .broken("the attempt is at least 1", "attempt", notPositive())
            .broken("the pull request is at least 1", "pr", notPositive())
            .broken("labels can be comma-joined", "labels", List.of("a,b"))
            .broken("the image tag is a tag", "imageTag", "a:b").rules(),
        ValueSpec.of(JobPlan.class).field("name", names()).field("backend", names()).field("suite", names())
            .fixed("shard", 0).fixed("shards", 1).fixed("gpus", 0).field("estimatedSeconds", doubles().between(0, 1e5))
            .fixed("timeoutSeconds", 1800L).field("cadence", names()).field("argv", nameLists().map(l -> prepend("x", l)))
            .broken("the name is a token", "name", Generate.pick(List.of("", "a b", "a/b")))
            .broken("the backend is not empty", "backend", "").broken("the suite is not empty", "suite", "")
            .broken("the cadence is not empty", "cadence", "")
            .brokenTogether("the shard is below the shard count", of("shard", 1, "shards", 1))
            .broken("there is at least 1 shard", "shards", notPositive())
            .broken("the GPUs are not negative", "gpus", integers().between(-100, -1))
            .broken("the estimate is finite and not negative", "estimatedSeconds", notFiniteOrNegative())
            .broken("the timeout is at least 1 s", "timeoutSeconds", longs().between(-100, 0))
            .broken("the command is not empty", "argv", List.of())
            .broken("a GPU job names its device variables", "gpus", integers().between(1, 8)).rules(),
        ValueSpec.of(SuiteRunPlan.class).field("backend", names()).field("suite", names()).field("policyLine", names())
            .fixed("enabled", List.of("tests/a.py")).fixed("timeouts", Map.of("tests/a.py", 1800L))
            .field("continueOnError", booleans().all()).field("estTotalSeconds", doubles().between(0, 1e5))
            .field("maxParallel", integers().between(1, 16)).field("message", names())
            .fixed("explanation", EXPLANATION)
            .broken("the backend is not empty", "backend", "").broken("the suite is not empty", "suite", "")
            .broken("max-parallel is at least 1", "maxParallel", notPositive())
            .broken("the estimated total is finite and not negative", "estTotalSeconds", notFiniteOrNegative())
            .broken("timeouts are the enabled tests", "timeouts", Map.of("tests/b.py", 1800L)).rules(),
        // gate
        ValueSpec.of(GateOptions.class).field("model", Generate.pick(GateModel.defaults()))
            .field("trust", Generate.enumValues(TrustMode.class))
            .field("levelShiftAfter", integers().between(2, 20).mix(Generate.constant(0)))
            .broken("the level shift count is 0 or at least 2", "levelShiftAfter",
                integers().between(-100, -1).mix(Generate.constant(1))).rules(),
        ValueSpec.of(GateSpec.class).field("metricKey", names().map(n -> "train/" + n)).fixed("steps", GateSteps.all())
            .fixed("constraint", GateConstraint.of(.5, .1, .8, .1)).field("better", Generate.enumValues(Better.class))
            .broken("the metric key is not empty", "metricKey", "")
            .broken("the steps are valid", "steps", GateSteps.indices(List.of()))
            .broken("the constraint is valid", "constraint", GateConstraint.builder().relUp(-1).relDown(.5).build())
            .rules(),
        ValueSpec.of(HookRequest.class).fixed("series", new SeriesKey("tests/e2e/test_x.py", "cuda", "stage-c"))
            .fixed("record", (dev.cipolicy.gate.RecordSource) () -> MetricRecord.unreadable("none"))
            .field("mode", Generate.enumValues(GateMode.class)).fixed("provenance", Provenance.none())
            .field("acceptLevelShifts", booleans().all())
            .noRules("any combination of its fields is a request; the hook reports what it cannot use as an outcome"),
        // queue
        ValueSpec.of(QueueSettings.class).field("maxInProgress", integers().between(1, 8))
            .field("maxCrashRescues", integers().between(0, 5))
            .field("leaseDuration", integers().between(1, 3600).map(s -> Duration.ofSeconds(s)))
            .field("benchmarkGroups", lists().of(names()).ofSizeBetween(1, 4).map(l -> List.copyOf(new TreeSet<>(l))))
            .fixed("collectorTargets", List.of(CollectorTarget.required("x86-64")))
            .broken("the in-progress cap is at least 1", "maxInProgress", notPositive())
            .broken("the crash budget is not negative", "maxCrashRescues", integers().between(-100, -1))
            .broken("the lease is positive", "leaseDuration", Generate.pick(List.of(Duration.ZERO,
                Duration.ofSeconds(-1))))
            .broken("a queue has benchmark groups", "benchmarkGroups", ValueSpec.REMOVE)
            .broken("a queue has collector targets", "collectorTargets", ValueSpec.REMOVE)
            .broken("benchmark groups are listed once", "benchmarkGroups", List.of("a", "a"))
            .broken("collector tags are listed once", "collectorTargets",
                List.of(CollectorTarget.required("x"), CollectorTarget.optional("x")))
            .broken("no jobs means no groups and no targets", "noJobs", true).rules(),
        ValueSpec.of(Job.class).field("id", longs().between(1, 1000).map(JobId::of))
            .field("requestId", longs().between(1, 1000).map(RequestId::of)).fixed("spec", JobSpec.required("g", "t"))
            .fixed("state", JobState.QUEUED).field("attempt", integers().between(0, 5))
            .field("crashRescues", integers().between(0, 3)).field("transientRetries", integers().between(0, 3))
            .fixed("cancelRequested", false).fixed("createdAt", T0)
            .broken("counters are not negative", "attempt", integers().between(-10, -1))
            .broken("a leased job has a lease", "state", JobState.LEASED)
            .broken("only a leased job is flagged for cancellation", "cancelRequested", true)
            .broken("a failed job has a failure", "state", JobState.FAILED)
            .broken("only a terminal job has a finish instant", "finishedAt", T0)
            .brokenTogether("a queued job has no lease", of("lease", Lease.builder().jobId(JobId.of(1)).attempt(1).token(1)
                .expiresAt(T0).collector("c").build()))
            .brokenTogether("a job fails only with a failure and a finish instant", of("state", JobState.SUCCEEDED,
                "finishedAt", T0, "failure", JobFailure.permanent("c", "boom", T0)))
            .rules(),
        ValueSpec.of(Collector.class).field("name", names()).field("tag", names()).field("active", booleans().all())
            .fixed("registeredAt", T0).fixed("lastHeartbeatAt", T0).fixed("devices", Devices.count(4))
            .broken("a name is a token", "name", "a b")
            .broken("a tag is a token", "tag", "")
            .broken("a pending inventory removes a device", "pendingDevices", Devices.count(8))
            .brokenTogether("a retiring collector is inactive", of("active", true, "retiring", true)).rules(),
        ValueSpec.of(Lease.class).field("jobId", longs().between(1, 1000).map(JobId::of))
            .field("attempt", integers().between(1, 5)).field("token", longs().between(1, 1_000_000))
            .fixed("expiresAt", T0).field("collector", names()).fixed("devices", List.of(0, 3))
            .broken("the attempt is 1 or more", "attempt", integers().between(-5, 0))
            .broken("the holder is a name", "collector", "a b")
            .broken("devices are ascending and distinct", "devices", List.of(3, 0)).rules(),
        ValueSpec.of(JobResult.class).field("jobId", longs().between(1, 1000).map(JobId::of))
            .field("requestId", longs().between(1, 1000).map(RequestId::of)).field("attempt", integers().between(1, 5))
            .field("collector", names()).fixed("storedAt", T0).fixed("payload", ResultPayload.ofText("ok"))
            .broken("the attempt is 1 or more", "attempt", integers().between(-5, 0))
            .broken("the collector is a name", "collector", "").rules(),
        ValueSpec.of(JobAttempt.class).field("jobId", longs().between(1, 1000).map(JobId::of))
            .field("attempt", integers().between(1, 5)).field("collector", names()).fixed("devices", List.of(0, 3))
            .fixed("startedAt", T0).fixed("endedAt", T0.plusSeconds(90))
            .fixed("outcome", JobAttempt.Outcome.TRANSIENT_FAILURE).fixed("error", "disk full")
            .broken("the attempt is 1 or more", "attempt", integers().between(-5, 0))
            .broken("the collector is a name", "collector", "a b")
            .broken("devices are ascending and distinct", "devices", List.of(3, 3))
            .broken("an end has an outcome", "outcome", ValueSpec.REMOVE)
            .broken("an outcome has an end", "endedAt", ValueSpec.REMOVE)
            .broken("the end is not before the start", "endedAt", T0.minusSeconds(1)).rules(),
        ValueSpec.of(JobLogView.class).fixed("jobId", JobId.of(1)).field("attempt", integers().between(1, 5))
            .fixed("offset", 1L).fixed("totalBytes", 10L).fixed("droppedBytes", 5L).fixed("skippedBytes", 4L)
            .fixed("head", new byte[] {1, 2}).fixed("tail", new byte[] {3, 4, 5}).field("finished", booleans().all())
            .broken("the attempt is 1 or more", "attempt", integers().between(-5, 0))
            .broken("offset, returned and skipped bytes add up to the bytes written", "totalBytes", 11L)
            .broken("no more bytes are skipped than dropped", "droppedBytes", 3L)
            .broken("the offset is not negative", "offset", -1L).rules(),
        ValueSpec.of(JobSpec.class).field("benchmarkGroup", names()).field("collectorTag", names())
            .field("gpus", integers().between(0, 8)).field("optional", booleans().all())
            .fixed("estimate", Duration.ofMinutes(5)).fixed("cadence", "nightly").fixed("timeout", Duration.ofHours(1))
            .broken("a benchmark group is a name", "benchmarkGroup", "a b")
            .broken("a collector tag is a name", "collectorTag", "")
            .broken("the GPU budget is 0 to the most a host has", "gpus", integers().between(-10, -1))
            .broken("the estimate is not negative", "estimate", Duration.ofSeconds(-1))
            .broken("the timeout is at most the longest", "timeout", Duration.ofDays(400))
            .broken("a cadence is a name or empty", "cadence", "a b")
            .broken("args have no NUL", "args", "a\u0000b").rules(),
        ValueSpec.of(CiJob.class).fixed("repository", "acme/trainer")
            .fixed("commit", "0123456789abcdef0123456789abcdef01234567")
            .fixed("command", List.of("python", "tests/ci/run_suite.py")).fixed("deviceEnv", List.of("CUDA_VISIBLE_DEVICES"))
            .broken("a repository is owner/name", "repository", "trainer")
            .broken("a commit is a full SHA", "commit", "HEAD")
            .broken("a command names a program", "command", List.of())
            .broken("a device variable is a variable name", "deviceEnv", List.of("NOT A NAME")).rules(),
        ValueSpec.of(ClaimCommand.class).field("collector", names())
            .field("leaseDuration", integers().between(1, 3600).map(s -> Duration.ofSeconds(s)))
            .field("collectorTimeout", integers().between(1, 3600).map(s -> Duration.ofSeconds(s)))
            .field("maxCrashRescues", integers().between(0, 5)).field("limit", integers().between(1, 8))
            .broken("the collector is a name", "collector", "a b")
            .broken("the lease is positive", "leaseDuration", Generate.pick(List.of(Duration.ZERO,
                Duration.ofSeconds(-1))))
            .broken("the collector timeout is positive", "collectorTimeout", Duration.ZERO)
            .broken("the crash budget is not negative", "maxCrashRescues", integers().between(-100, -1))
            .broken("the limit is at least 1", "limit", notPositive()).rules(),
        ValueSpec.of(StartCommand.class).field("requestId", longs().between(1, 1000).map(RequestId::of))
            .fixed("jobs", List.of(JobSpec.required("g", "t"), JobSpec.optionalJob("g", "u")))
            .field("backfillParent", booleans().all()).field("maxInProgress", integers().between(1, 8))
            .broken("the in-progress cap is at least 1", "maxInProgress", notPositive())
            .broken("a job is listed once by group and tag", "jobs",
                List.of(JobSpec.required("g", "t"), JobSpec.optionalJob("g", "t"))).rules(),
        ValueSpec.of(StartResult.class).field("status", Generate.enumValues(StartResult.Status.class))
            .field("inProgress", integers().between(0, 8))
            .broken("the in-progress count is not negative", "inProgress", integers().between(-100, -1)).rules(),
        ValueSpec.of(Backfill.class).field("status", Generate.enumValues(Backfill.Status.class))
            .field("parent", longs().between(1, 1000).map(RequestId::of)).field("existing", integers().between(0, 8))
            .broken("the existing count is not negative", "existing", integers().between(-100, -1)).rules(),
        ValueSpec.of(CancelResult.class).field("status", Generate.enumValues(CancelResult.Status.class))
            .field("queuedJobsCancelled", integers().between(0, 8)).field("leasedJobsFlagged", integers().between(0, 8))
            .broken("the cancelled count is not negative", "queuedJobsCancelled", integers().between(-100, -1))
            .broken("the flagged count is not negative", "leasedJobsFlagged", integers().between(-100, -1)).rules(),
        ValueSpec.of(PurgeResult.class).field("status", Generate.enumValues(PurgeResult.Status.class))
            .field("jobsRemoved", integers().between(0, 8)).field("resultsRemoved", integers().between(0, 8))
            .broken("the removed job count is not negative", "jobsRemoved", integers().between(-100, -1))
            .broken("the removed result count is not negative", "resultsRemoved", integers().between(-100, -1))
            .rules(),
        ValueSpec.of(ExpiryResult.class)
            .fixed("impossibleRows", List.of(new ImpossibleRow("ci_queue.queue_jobs", "id = 1", "state", "NULL", "r")))
            .noRules("any lists of jobs are a result; the jobs and rows are values that check themselves"),
        ValueSpec.of(WaitReason.class).fixed("kind", WaitReason.Kind.CLAIMABLE).field("pool", names())
            .field("liveCollectors", integers().between(1, 10))
            .broken("a job's reason names its pool", "pool", ValueSpec.REMOVE)
            .broken("the GPU count is 0 to the most a host has", "gpus", integers().between(-10, -1))
            .broken("a claimable job without GPUs counts the live collectors", "liveCollectors", ValueSpec.REMOVE)
            .broken("a request's reason names no pool", "kind", WaitReason.Kind.NEXT_TO_START)
            .broken("only a dormant reservation's reason is dormant", "dormant", true)
            .broken("only a reason that a reserved host blocks says the job has no estimate", "noEstimate", true)
            .rules(),
        ValueSpec.of(PoolView.class).field("pool", names()).fixed("at", T0)
            .field("liveCollectors", sortedNames())
            .noRules("a view is what a store read in one step; its parts are values that check themselves"),
        ValueSpec.of(CiRun.class).fixed("repository", "acme/gpu-lib").field("runId", longs().between(1, 1_000_000))
            .field("attempt", integers().between(1, 5)).field("commitSha", names()).fixed("event", "schedule")
            .fixed("cadence", "nightly").field("labels", sortedNames()).fixed("concurrencyGroup", "ci main")
            .broken("the repository is owner/name", "repository", "no-slash")
            .broken("the run id is positive", "runId", longs().between(-100, 0))
            .broken("the attempt is at least 1", "attempt", integers().between(-5, 0))
            .broken("the commit SHA is a name", "commitSha", "a b")
            .broken("a cadence is a name or empty", "cadence", "a b")
            .broken("labels are listed once", "labels", List.of("a", "a"))
            .broken("a concurrency group is not empty", "concurrencyGroup", "").rules(),
        ValueSpec.of(NewRequest.class).fixed("kind", RequestKind.MASTER).field("tag", names().map(n -> "m" + n))
            .field("parentSha", names().map(n -> "p" + n)).field("pr", longs().between(1, 100_000))
            .field("benchmarkGroups", sortedNames())
            .broken("a master request has a tag", "tag", ValueSpec.REMOVE)
            .broken("a tag has no white space", "tag", "a b")
            .broken("the PR number is positive", "pr", longs().between(-100, 0))
            .broken("benchmark groups are listed once", "benchmarkGroups", List.of("a", "a"))
            .broken("a release has no parent and no PR", "kind", RequestKind.RELEASE)
            .broken("a CI run needs its run and no tag", "kind", RequestKind.CI_RUN)
            .brokenTogether("a tag is not its own parent", of("tag", "same", "parentSha", "same")).rules(),
        ValueSpec.of(Request.class).field("id", longs().between(1, 1000).map(RequestId::of))
            .fixed("kind", RequestKind.MASTER).fixed("state", RequestState.ARTIFACTS_READY)
            .field("tag", names().map(n -> "m" + n)).field("pr", longs().between(1, 100_000))
            .field("benchmarkGroups", sortedNames()).fixed("createdAt", T0)
            .broken("only a try request without a tag waits for artifacts", "state", RequestState.WAITING_FOR_ARTIFACTS)
            .broken("a master request has a tag", "tag", ValueSpec.REMOVE)
            .broken("a started request has a start instant", "state", RequestState.IN_PROGRESS)
            .broken("a completed request has an outcome", "state", RequestState.COMPLETED)
            .broken("only a cancelled request has a reason", "cancelReason", "gone")
            .broken("only a started request has a parent request", "parentRequest", RequestId.of(5000))
            .broken("only a cancelled CI run is superseded", "supersededBy", RequestId.of(5000))
            .broken("a CI run carries its run", "kind", RequestKind.CI_RUN)
            .broken("the PR number is positive", "pr", longs().between(-100, 0))
            .brokenTogether("only a completed request has an outcome", of("outcome", Outcome.SUCCESS)).rules(),
    };
  }
}
