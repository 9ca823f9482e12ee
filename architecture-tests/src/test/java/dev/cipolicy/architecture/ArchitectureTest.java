package dev.cipolicy.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture check of the production code: every rule of {@link ArchitectureRules} holds for the
 * main classes of all {@code dev.cipolicy} artifacts on the test classpath.
 */
class ArchitectureTest {

  private static final String ROOT = "dev.cipolicy";

  private static JavaClasses production;

  @BeforeAll
  static void importProductionClasses() {
    // Main classes only: the test classes of this module (and of any other) are excluded, and the
    // fixtures live under their own roots (fixture.badarch, fixture.goodarch), outside ROOT.
    production = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(ROOT)
        .that(not(resideInAPackage(ROOT + ".architecture..")));
  }

  @Test
  void importsTheMainClassesOfEveryModuleAndNoTestClasses() {
    assertThat(production.contain("dev.cipolicy.api.policy.Policy")).as("ci-policy-api imported").isTrue();
    assertThat(production.contain("dev.cipolicy.core.PolicyResolver")).as("ci-policy-core imported").isTrue();
    assertThat(production.contain("dev.cipolicy.workflow.WorkflowSimulator")).as("ci-workflow imported").isTrue();
    assertThat(production.contain("dev.cipolicy.gate.GateEvaluator")).as("ci-gate imported").isTrue();
    assertThat(production.contain("dev.cipolicy.gate.tck.MetricHistoryStoreCompatibilityKit"))
        .as("ci-gate-tck imported").isTrue();
    assertThat(production.contain("dev.cipolicy.cli.CiPolicyCli")).as("ci-policy-cli imported").isTrue();
    assertThat(production.contain("dev.cipolicy.queue.JobQueue")).as("ci-queue imported").isTrue();
    assertThat(production.contain("dev.cipolicy.queue.memory.InMemoryQueueStore")).as("in-memory store imported")
        .isTrue();
    assertThat(production.contain("dev.cipolicy.queue.tck.QueueStoreCompatibilityKit")).as("ci-queue-tck imported")
        .isTrue();
    assertThat(production.contain("dev.cipolicy.queue.worker.CollectorRuntime")).as("ci-queue-worker imported").isTrue();
    assertThat(production.contain("dev.cipolicy.postgres.PostgresQueueStore")).as("ci-postgres imported").isTrue();
    assertThat(production.contain("dev.cipolicy.launch.LaunchPorts")).as("ci-launch imported").isTrue();
    assertThat(production.contain("dev.cipolicy.testkit.snapshot.LauncherSnapshots")).as("ci-testkit imported")
        .isTrue();
    assertThat(production.contain("dev.cipolicy.launcher.StageLauncher")).as("ci-launcher-example imported")
        .isTrue();
    assertThat(production.stream().map(JavaClass::getName)).noneMatch(name -> name.startsWith(ROOT + ".architecture."));
    assertThat(production.stream().flatMap(javaClass -> javaClass.getSource().stream()))
        .allSatisfy(source -> assertThat(source.getUri().toString()).doesNotContain("/test-classes/"));
  }

  @Test
  void dependenciesPointInward() {
    ArchitectureRules.dependenciesPointInward(ROOT).check(production);
  }

  @Test
  void workflowSitsOnApiAndCore() {
    ArchitectureRules.workflowSitsOnApiAndCore(ROOT).check(production);
  }

  @Test
  void pureCoreDoesNoIoAndReadsNoClockOrEnvironment() {
    ArchitectureRules.pureCoreDoesNoIoAndReadsNoClockOrEnvironment(ROOT).check(production);
  }

  @Test
  void cronUtilsOnlyInSchedulePackage() {
    ArchitectureRules.cronUtilsOnlyInSchedulePackage(ROOT).check(production);
  }

  @Test
  void re2jOnlyInPatternPackage() {
    ArchitectureRules.re2jOnlyInPatternPackage(ROOT).check(production);
  }

  @Test
  void jacksonOnlyInLoadPackage() {
    ArchitectureRules.jacksonOnlyInLoadPackage(ROOT).check(production);
  }

  @Test
  void apiUsesNoGuavaJacksonOrCronUtils() {
    ArchitectureRules.apiUsesNoGuavaJacksonOrCronUtils(ROOT).check(production);
  }

  @Test
  void everyPackageIsNullMarked() {
    ArchitectureRules.everyPackageIsNullMarked(ROOT).check(production);
  }

  @Test
  void launchPortsArePure() {
    ArchitectureRules.launchPortsArePure(ROOT).check(production);
  }

  @Test
  void internalPackagesStayInTheirModule() {
    ArchitectureRules.internalPackagesStayInTheirModule(ROOT).check(production);
  }

  @Test
  void queueEngineUsesNoCollectorRuntime() {
    ArchitectureRules.queueEngineUsesNoCollectorRuntime(ROOT).check(production);
  }

  @Test
  void micrometerOnlyInCollectorRuntime() {
    ArchitectureRules.micrometerOnlyInCollectorRuntime(ROOT).check(production);
  }

  @Test
  void noPackageCycles() {
    ArchitectureRules.noPackageCycles(ROOT).check(production);
  }
}
