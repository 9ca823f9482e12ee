package dev.cipolicy.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import fixture.badarch.api.DependsOnCore;
import fixture.badarch.api.ExposesJacksonType;
import fixture.badarch.cli.UsesCoreInternal;
import fixture.badarch.core.DependsOnHost;
import fixture.badarch.core.PrintsToConsole;
import fixture.badarch.core.ReadsClock;
import fixture.badarch.core.ReadsEnv;
import fixture.badarch.core.ReadsFiles;
import fixture.badarch.core.StartsThread;
import fixture.badarch.core.UsesCron;
import fixture.badarch.core.UsesExecutors;
import fixture.badarch.core.UsesJackson;
import fixture.badarch.core.UsesMicrometer;
import fixture.badarch.core.UsesRe2j;
import fixture.badarch.core.UsesWorkflow;
import fixture.badarch.core.cyclea.CycleA;
import fixture.badarch.core.cycleb.CycleB;
import fixture.badarch.core.unmarked.Unmarked;
import fixture.badarch.gate.UsesPostgres;
import fixture.badarch.launch.StartsProcess;
import fixture.badarch.queue.UsesWorker;
import fixture.badarch.queue.worker.WorkerLoop;
import fixture.badarch.workflow.UsesGate;
import fixture.badarch.workflow.WorkflowModel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The proof that each rule of {@link ArchitectureRules} can fail: it fires on deliberately bad fixture
 * code under {@code fixture.badarch}, names the offending class, and passes on the good fixture code
 * under {@code fixture.goodarch}.
 */
class ArchitectureRulesFireTest {

  private static final String BAD = "fixture.badarch";
  private static final String GOOD = "fixture.goodarch";

  private static JavaClasses badClasses;
  private static JavaClasses goodClasses;
  /** The failure report of every rule over the bad fixture, keyed by rule name. */
  private static Map<String, String> badReports;

  @BeforeAll
  static void importFixtures() {
    badClasses = new ClassFileImporter().importPackages(BAD);
    goodClasses = new ClassFileImporter().importPackages(GOOD);
    badReports = new LinkedHashMap<>();
    ArchitectureRules.all(BAD).forEach((name, rule) -> badReports.put(name, report(rule.evaluate(badClasses))));
  }

  @Test
  void dependenciesPointInwardFiresOnAnApiTypeDependingOnCore() {
    assertFires(ArchitectureRules.dependenciesPointInward(BAD), DependsOnCore.class);
  }

  @Test
  void dependenciesPointInwardFiresOnACoreTypeDependingOnAHost() {
    assertFires(ArchitectureRules.dependenciesPointInward(BAD), DependsOnHost.class);
  }

  @Test
  void dependenciesPointInwardFiresOnAGateTypeUsingAnAdapter() {
    String report = assertFires(ArchitectureRules.dependenciesPointInward(BAD), UsesPostgres.class);
    assertThat(report).contains("Method <" + UsesPostgres.class.getName() + ".store()> calls method <"
        + "fixture.badarch.postgres.PostgresAdapter.name()>");
    assertFires(ArchitectureRules.gateAndQueueUseNoAdapters(BAD), UsesPostgres.class);
    assertThat(report(ArchitectureRules.gateAndQueueUseNoAdapters(BAD).evaluate(badClasses)))
        .as("the sub-rule names only the gate type").doesNotContain("DependsOnCore", "DependsOnHost");
  }

  @Test
  void workflowRuleFiresOnCoreUsingTheWorkflowModel() {
    String report = assertFires(ArchitectureRules.workflowSitsOnApiAndCore(BAD), UsesWorkflow.class);
    assertThat(mentions(report, WorkflowModel.class)).as("names the workflow class used").isTrue();
  }

  @Test
  void workflowRuleFiresOnTheWorkflowModelUsingAPackageAboveCore() {
    String report = assertFires(ArchitectureRules.workflowSitsOnApiAndCore(BAD), UsesGate.class);
    assertThat(report).contains("fixture.badarch.gate.GateVerdict");
  }

  @Test
  void internalRuleFiresOnAnotherModulesInternalPackage() {
    String report = assertFires(ArchitectureRules.internalPackagesStayInTheirModule(BAD), UsesCoreInternal.class);
    assertThat(report).contains("fixture.badarch.core.internal is internal to module core, not cli");
  }

  @Test
  void pureCoreRuleFiresOnFileAccess() {
    assertFires(ArchitectureRules.pureCoreDoesNoIoAndReadsNoClockOrEnvironment(BAD), ReadsFiles.class);
  }

  @Test
  void pureCoreRuleFiresOnTheSystemClock() {
    assertFires(ArchitectureRules.pureCoreDoesNoIoAndReadsNoClockOrEnvironment(BAD), ReadsClock.class);
  }

  @Test
  void pureCoreRuleFiresOnTheEnvironment() {
    assertFires(ArchitectureRules.pureCoreDoesNoIoAndReadsNoClockOrEnvironment(BAD), ReadsEnv.class);
  }

  @Test
  void pureCoreRuleFiresOnANewThread() {
    assertFires(ArchitectureRules.pureCoreDoesNoIoAndReadsNoClockOrEnvironment(BAD), StartsThread.class);
  }

  @Test
  void pureCoreRuleFiresOnExecutors() {
    assertFires(ArchitectureRules.pureCoreDoesNoIoAndReadsNoClockOrEnvironment(BAD), UsesExecutors.class);
  }

  @Test
  void pureCoreRuleFiresOnTheConsole() {
    assertFires(ArchitectureRules.pureCoreDoesNoIoAndReadsNoClockOrEnvironment(BAD), PrintsToConsole.class);
  }

  @Test
  void cronUtilsRuleFiresOutsideTheSchedulePackage() {
    assertFires(ArchitectureRules.cronUtilsOnlyInSchedulePackage(BAD), UsesCron.class);
  }

  @Test
  void re2jRuleFiresOutsideThePatternPackage() {
    assertFires(ArchitectureRules.re2jOnlyInPatternPackage(BAD), UsesRe2j.class);
  }

  @Test
  void jacksonRuleFiresOutsideTheLoadPackage() {
    assertFires(ArchitectureRules.jacksonOnlyInLoadPackage(BAD), UsesJackson.class, ExposesJacksonType.class);
  }

  @Test
  void apiThirdPartyRuleFiresOnAJacksonTypeInTheApi() {
    assertFires(ArchitectureRules.apiUsesNoGuavaJacksonOrCronUtils(BAD), ExposesJacksonType.class);
  }

  @Test
  void nullMarkedRuleFiresOnAPackageWithoutPackageInfoAndNamesThePackage() {
    String report = assertFires(ArchitectureRules.everyPackageIsNullMarked(BAD), Unmarked.class);
    assertThat(report).contains("Package <" + Unmarked.class.getPackageName() + "> is not annotated @NullMarked");
    assertThat(badReports.get("everyPackageIsNullMarked")).doesNotContain("Package <" + BAD + ".core>");
  }

  @Test
  void noCyclesRuleFiresOnTwoPackagesThatDependOnEachOther() {
    assertFires(ArchitectureRules.noPackageCycles(BAD), CycleA.class, CycleB.class);
  }

  @Test
  void launchPortRuleFiresOnAPortThatStartsAProcess() {
    assertFires(ArchitectureRules.launchPortsArePure(BAD), StartsProcess.class);
  }

  @Test
  void queueEngineRuleFiresOnTheEngineUsingTheCollectorRuntime() {
    String report = assertFires(ArchitectureRules.queueEngineUsesNoCollectorRuntime(BAD), UsesWorker.class);
    assertThat(mentions(report, WorkerLoop.class)).as("names the runtime class used").isTrue();
  }

  @Test
  void theCollectorRuntimeMayStartThreads() {
    assertThat(mentions(badReports.get("pureCoreDoesNoIoAndReadsNoClockOrEnvironment"), WorkerLoop.class))
        .as("the pure-core rule exempts the collector runtime").isFalse();
    assertThat(mentions(badReports.get("pureCoreDoesNoIoAndReadsNoClockOrEnvironment"), StartsThread.class))
        .as("but not the core").isTrue();
  }

  @Test
  void micrometerRuleFiresOutsideTheCollectorRuntime() {
    assertFires(ArchitectureRules.micrometerOnlyInCollectorRuntime(BAD), UsesMicrometer.class);
  }

  @ParameterizedTest(name = "{0} breaks exactly {1}")
  @MethodSource("fixturesAndTheRulesTheyBreak")
  void eachFixtureBreaksOnlyItsIntendedRules(Class<?> fixture, Set<String> intendedRules) {
    Set<String> broken = new TreeSet<>();
    badReports.forEach((rule, report) -> {
      if (mentions(report, fixture)) {
        broken.add(rule);
      }
    });
    assertThat(broken).as("rules whose report names %s", fixture.getName()).isEqualTo(intendedRules);
  }

  static Stream<Arguments> fixturesAndTheRulesTheyBreak() {
    return Stream.of(
        Arguments.of(DependsOnCore.class, Set.of("dependenciesPointInward")),
        Arguments.of(DependsOnHost.class, Set.of("dependenciesPointInward")),
        Arguments.of(ReadsFiles.class, Set.of("pureCoreDoesNoIoAndReadsNoClockOrEnvironment")),
        Arguments.of(ReadsClock.class, Set.of("pureCoreDoesNoIoAndReadsNoClockOrEnvironment")),
        Arguments.of(ReadsEnv.class, Set.of("pureCoreDoesNoIoAndReadsNoClockOrEnvironment")),
        Arguments.of(StartsThread.class, Set.of("pureCoreDoesNoIoAndReadsNoClockOrEnvironment")),
        Arguments.of(UsesExecutors.class, Set.of("pureCoreDoesNoIoAndReadsNoClockOrEnvironment")),
        Arguments.of(PrintsToConsole.class, Set.of("pureCoreDoesNoIoAndReadsNoClockOrEnvironment")),
        Arguments.of(UsesCron.class, Set.of("cronUtilsOnlyInSchedulePackage")),
        Arguments.of(UsesRe2j.class, Set.of("re2jOnlyInPatternPackage")),
        Arguments.of(UsesJackson.class, Set.of("jacksonOnlyInLoadPackage")),
        // Without Guava on the classpath the api fixture uses Jackson, which rule 4 forbids there too.
        Arguments.of(ExposesJacksonType.class, Set.of("apiUsesNoGuavaJacksonOrCronUtils", "jacksonOnlyInLoadPackage")),
        Arguments.of(Unmarked.class, Set.of("everyPackageIsNullMarked")),
        Arguments.of(CycleA.class, Set.of("noPackageCycles")),
        Arguments.of(CycleB.class, Set.of("noPackageCycles")),
        Arguments.of(StartsProcess.class, Set.of("launchPortsArePure")),
        Arguments.of(UsesPostgres.class, Set.of("dependenciesPointInward")),
        Arguments.of(UsesCoreInternal.class, Set.of("internalPackagesStayInTheirModule")),
        Arguments.of(UsesWorker.class, Set.of("queueEngineUsesNoCollectorRuntime")),
        Arguments.of(UsesMicrometer.class, Set.of("micrometerOnlyInCollectorRuntime")),
        // Core using a workflow class breaks core's inward rule too, which allows core only api and core.
        Arguments.of(UsesWorkflow.class, Set.of("dependenciesPointInward", "workflowSitsOnApiAndCore")),
        Arguments.of(UsesGate.class, Set.of("workflowSitsOnApiAndCore")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ruleNames")
  void everyRulePassesOnTheGoodFixture(String ruleName) {
    EvaluationResult result = ArchitectureRules.all(GOOD).get(ruleName).evaluate(goodClasses);
    assertThat(result.hasViolation()).as(report(result)).isFalse();
  }

  static Stream<String> ruleNames() {
    return ArchitectureRules.all(GOOD).keySet().stream();
  }

  @Test
  void theGoodFixtureHoldsTheUsesTheRulesMustAllow() {
    assertThat(goodClasses.contain("fixture.goodarch.core.schedule.GoodSchedule")).isTrue();
    assertThat(goodClasses.contain("fixture.goodarch.api.pattern.GoodPattern")).isTrue();
    assertThat(goodClasses.contain("fixture.goodarch.core.load.GoodLoader")).isTrue();
    assertThat(goodClasses.contain("fixture.goodarch.cli.GoodHost")).isTrue();
    assertThat(goodClasses.contain("fixture.goodarch.core.GoodEngine")).isTrue();
    assertThat(goodClasses.contain("fixture.goodarch.launch.GoodPort")).isTrue();
    assertThat(goodClasses.contain("fixture.goodarch.core.internal.GoodHelper")).isTrue();
    assertThat(goodClasses.contain("fixture.goodarch.queue.worker.GoodWorker")).isTrue();
    assertThat(goodClasses.contain("fixture.goodarch.workflow.GoodWorkflow")).isTrue();
  }

  /** Asserts that the rule fires on the bad fixture and that its report names every offender. */
  private static String assertFires(ArchRule rule, Class<?>... offenders) {
    EvaluationResult result = rule.evaluate(badClasses);
    assertThat(result.hasViolation()).as("%s fires on %s", rule.getDescription(), BAD).isTrue();
    String report = report(result);
    for (Class<?> offender : offenders) {
      assertThat(mentions(report, offender)).as("report names %s:%n%s", offender.getName(), report).isTrue();
    }
    return report;
  }

  private static String report(EvaluationResult result) {
    return String.join(System.lineSeparator(), result.getFailureReport().getDetails());
  }

  private static boolean mentions(String report, Class<?> type) {
    return Pattern.compile(Pattern.quote(type.getName()) + "(?![\\w$])").matcher(report).find();
  }
}
