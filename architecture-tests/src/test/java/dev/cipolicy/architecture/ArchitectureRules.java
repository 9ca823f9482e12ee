package dev.cipolicy.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.domain.JavaPackage;
import com.tngtech.archunit.lang.AbstractClassesTransformer;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ClassesTransformer;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.FileWriter;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.jspecify.annotations.NullMarked;

/**
 * The ArchUnit rules of docs/architecture.md (hexagon, no I/O in core, third-party confinement,
 * {@code @NullMarked} packages, no cycles, internal packages kept to their module), each built for a given
 * package root.
 *
 * <p>Taking the root as a parameter lets the same rule run against the production code
 * ({@code dev.cipolicy}) and against deliberately bad fixture code under another root, which proves
 * that the rule can fail.
 *
 * <p>Module packages below the root: the <em>library</em> packages are {@code api}, {@code core},
 * {@code workflow}, {@code gate}, {@code queue} (with {@code queue.tck} and {@code queue.worker}),
 * {@code postgres}, {@code launch} and {@code testkit}; the
 * <em>pure core</em> packages are {@code api}, {@code core}, {@code workflow}, {@code gate} and {@code queue} without
 * {@code queue.tck} and {@code queue.worker} (the collector runtime, which owns threads and processes); every
 * other package below the root (such as {@code cli}) is a <em>host</em>.
 */
public final class ArchitectureRules {

  private static final List<String> LIBRARY_MODULES =
      List.of("api", "core", "workflow", "gate", "queue", "postgres", "fleet", "launch", "testkit");
  private static final List<String> PURE_CORE_MODULES = List.of("api", "core", "workflow", "gate", "queue");
  private static final String GUAVA = "com.google.common..";
  private static final String JACKSON = "com.fasterxml.jackson..";
  private static final String CRON_UTILS = "com.cronutils..";
  private static final String MICROMETER = "io.micrometer..";
  private static final String RE2J = "com.google.re2j..";

  private ArchitectureRules() {}

  /** Every rule of this class for {@code root}, keyed by the name of its factory method. */
  public static Map<String, ArchRule> all(String root) {
    Map<String, ArchRule> rules = new LinkedHashMap<>();
    rules.put("dependenciesPointInward", dependenciesPointInward(root));
    rules.put("workflowSitsOnApiAndCore", workflowSitsOnApiAndCore(root));
    rules.put("pureCoreDoesNoIoAndReadsNoClockOrEnvironment", pureCoreDoesNoIoAndReadsNoClockOrEnvironment(root));
    rules.put("cronUtilsOnlyInSchedulePackage", cronUtilsOnlyInSchedulePackage(root));
    rules.put("jacksonOnlyInLoadPackage", jacksonOnlyInLoadPackage(root));
    rules.put("re2jOnlyInPatternPackage", re2jOnlyInPatternPackage(root));
    rules.put("apiUsesNoGuavaJacksonOrCronUtils", apiUsesNoGuavaJacksonOrCronUtils(root));
    rules.put("everyPackageIsNullMarked", everyPackageIsNullMarked(root));
    rules.put("noPackageCycles", noPackageCycles(root));
    rules.put("launchPortsArePure", launchPortsArePure(root));
    rules.put("internalPackagesStayInTheirModule", internalPackagesStayInTheirModule(root));
    rules.put("queueEngineUsesNoCollectorRuntime", queueEngineUsesNoCollectorRuntime(root));
    rules.put("micrometerOnlyInCollectorRuntime", micrometerOnlyInCollectorRuntime(root));
    return rules;
  }

  /**
   * The rule that dependencies point inward: {@code api} depends on no other package below the root;
   * {@code core} depends only on {@code api} and itself ({@link #workflowSitsOnApiAndCore} places
   * {@code workflow} above them); {@code gate} and {@code queue} (without
   * {@code queue.tck}) depend on no adapter ({@code postgres}, {@code launch}, {@code testkit}); no library package
   * depends on a host package such as {@code cli}.
   */
  public static ArchRule dependenciesPointInward(String root) {
    String api = pkg(root, "api");
    String core = pkg(root, "core");
    DescribedPredicate<JavaClass> belowRoot = resideInAPackage(pkg(root));

    ArchRule apiIsInnermost = noClasses().that().resideInAPackage(api)
        .should().dependOnClassesThat(belowRoot.and(not(resideInAPackage(api))))
        .as("the api packages depend on no other " + root + " package");
    ArchRule coreDependsOnlyOnApi = noClasses().that().resideInAPackage(core)
        .should().dependOnClassesThat(belowRoot.and(not(resideInAnyPackage(api, core))))
        .as("the core packages depend on no " + root + " package but api and core");
    ArchRule libraryUsesNoHost = noClasses().that().resideInAnyPackage(packages(root, LIBRARY_MODULES))
        .should().dependOnClassesThat(belowRoot.and(not(resideInAnyPackage(packages(root, LIBRARY_MODULES)))))
        .as("no library package depends on a host package (such as " + root + ".cli)");

    return CompositeArchRule.of(apiIsInnermost).and(coreDependsOnlyOnApi).and(gateAndQueueUseNoAdapters(root))
        .and(libraryUsesNoHost)
        .as("dependencies point inward (api <- core <- gate/queue <- adapters <- hosts)")
        .because("dependencies point inward only");
  }

  /**
   * The part of {@link #dependenciesPointInward} that keeps {@code gate} and {@code queue} (without
   * {@code queue.tck}) off the adapters {@code postgres}, {@code launch} and {@code testkit}.
   */
  public static ArchRule gateAndQueueUseNoAdapters(String root) {
    return noClasses()
        .that(resideInAnyPackage(pkg(root, "gate"), pkg(root, "queue")).and(not(resideInAPackage(pkg(root, "queue.tck")))))
        .should().dependOnClassesThat().resideInAnyPackage(pkg(root, "postgres"), pkg(root, "launch"), pkg(root, "testkit"))
        .as("the gate and queue packages depend on no adapter (postgres, launch, testkit)")
        // A code base (such as a fixture) without gate or queue packages has nothing to check here.
        .allowEmptyShould(true);
  }

  /**
   * The layering of the workflow model ({@code ci-workflow}): the {@code workflow} packages depend on no package
   * below the root but {@code api}, {@code core} and their own, and the {@code core} packages depend on no
   * {@code workflow} class. Core's {@code dependenciesPointInward} part says the second half too; this rule names
   * the layering on its own so that it stays when core's rule changes.
   */
  public static ArchRule workflowSitsOnApiAndCore(String root) {
    String api = pkg(root, "api");
    String core = pkg(root, "core");
    String workflow = pkg(root, "workflow");
    ArchRule workflowUsesApiAndCoreOnly = noClasses().that().resideInAPackage(workflow)
        .should().dependOnClassesThat(resideInAPackage(pkg(root)).and(not(resideInAnyPackage(api, core, workflow))))
        .as("the workflow packages depend on no " + root + " package but api, core and workflow")
        // A code base (such as a fixture) without workflow packages has nothing to check here.
        .allowEmptyShould(true);
    ArchRule coreUsesNoWorkflow = noClasses().that().resideInAPackage(core)
        .should().dependOnClassesThat().resideInAPackage(workflow)
        .as("the core packages depend on no workflow class");
    return CompositeArchRule.of(workflowUsesApiAndCoreOnly).and(coreUsesNoWorkflow)
        .as("the workflow model sits on api and core (api <- core <- workflow), and core does not know it")
        .because("the GitHub Actions model is a layer above the policy engine; an embedder of the engine does"
            + " not carry it");
  }

  /**
   * The rule that the pure core packages ({@code api}, {@code core}, {@code workflow}, {@code gate}, {@code queue}
   * without {@code queue.tck}) do no file, network or database I/O, use no console streams, read no
   * system clock, environment variable or system property, and start no threads or executors.
   *
   * <p>{@code Instant.now(clock)} and friends with an injected {@link Clock} are allowed: time is a
   * port.
   */
  public static ArchRule pureCoreDoesNoIoAndReadsNoClockOrEnvironment(String root) {
    DescribedPredicate<JavaClass> pureCore = resideInAnyPackage(packages(root, PURE_CORE_MODULES))
        .and(not(resideInAnyPackage(pkg(root, "queue.tck"), pkg(root, "queue.worker"))));
    DescribedPredicate<JavaClass> ioTypes = resideInAnyPackage(
            "java.nio.file..", "java.nio.channels..", "java.net..", "java.sql..", "javax.sql..")
        .or(belongToAnyOf(File.class, FileInputStream.class, FileOutputStream.class, FileReader.class,
            FileWriter.class, RandomAccessFile.class, ProcessBuilder.class, Executors.class))
        .as("I/O, process or executor types");
    return noClasses().that(pureCore)
        .should().dependOnClassesThat(ioTypes)
        .orShould().callMethodWhere(systemClockOrEnvironmentRead())
        .orShould().accessFieldWhere(consoleStream())
        .orShould().callConstructorWhere(threadConstruction())
        .as("the pure core packages (api, core, workflow, gate, queue) do no I/O, read no clock or environment"
            + " and start no threads")
        .because("the core modules do no I/O and read no clock or environment;"
            + " time, environment and files are ports");
  }

  /**
   * The rule that the launch ports ({@code launch}, without its sub-packages) are pure: interfaces and
   * values that start no process, touch no file (a {@link Path} is a value and allowed), read no clock,
   * environment or system property and start no thread. Their adapters ({@code launch.system}, the
   * snapshot kit's {@code testkit.doubles}) do the I/O.
   */
  public static ArchRule launchPortsArePure(String root) {
    DescribedPredicate<JavaClass> ioTypes = resideInAnyPackage(
            "java.nio.file..", "java.nio.channels..", "java.net..", "java.sql..", "javax.sql..")
        .and(not(belongToAnyOf(Path.class)))
        .or(belongToAnyOf(File.class, FileInputStream.class, FileOutputStream.class, FileReader.class,
            FileWriter.class, RandomAccessFile.class, ProcessBuilder.class, Process.class, Runtime.class,
            Executors.class))
        .as("I/O, process or executor types other than java.nio.file.Path");
    return noClasses().that().resideInAPackage(root + ".launch")
        .should().dependOnClassesThat(ioTypes)
        .orShould().callMethodWhere(systemClockOrEnvironmentRead())
        .orShould().accessFieldWhere(consoleStream())
        .orShould().callConstructorWhere(threadConstruction())
        .as("the launch ports start no process, touch no file, read no clock or environment and start no"
            + " threads")
        .because("the ports a launcher is written against stay pure interfaces and values; adapters do the"
            + " I/O");
  }

  /**
   * The rule that an {@code ..internal..} package below the root is used only from its own module: a class
   * of module A depends on the internal packages of module A only. A module is the first package below the
   * root ({@code api}, {@code core}, {@code gate}, {@code launch}, {@code cli}, ...), except that
   * {@code gate.tck} and {@code queue.tck} are modules of their own.
     */
  public static ArchRule internalPackagesStayInTheirModule(String root) {
    return ArchRuleDefinition.classes().that().resideInAPackage(pkg(root))
        .should(useOnlyTheInternalPackagesOfTheirOwnModule(root))
        .as("classes below " + root + " use ..internal.. packages of their own module only")
        .because("an internal package is not API: another module that imports it breaks when it changes");
  }

  /**
   * The rule that the queue engine ({@code queue} and its packages, but for the collector runtime
   * {@code queue.worker} itself and the kit {@code queue.tck}) does not depend on the collector runtime: the
   * runtime is built on the engine, never the other way round.
   */
  public static ArchRule queueEngineUsesNoCollectorRuntime(String root) {
    return noClasses()
        .that(resideInAPackage(pkg(root, "queue"))
            .and(not(resideInAnyPackage(pkg(root, "queue.worker"), pkg(root, "queue.tck")))))
        .should().dependOnClassesThat().resideInAPackage(pkg(root, "queue.worker"))
        .as("the queue engine depends on no class of the collector runtime (" + root + ".queue.worker)")
        .because("the collector runtime owns threads; the engine it drives stays pure")
        .allowEmptyShould(true);
  }

  /** The rule that Micrometer ({@code io.micrometer..}) is used only from the collector runtime. */
  public static ArchRule micrometerOnlyInCollectorRuntime(String root) {
    return noClasses().that().resideInAPackage(pkg(root))
        .and().resideOutsideOfPackage(pkg(root, "queue.worker"))
        .should().dependOnClassesThat().resideInAPackage(MICROMETER)
        .as("Micrometer is used only from " + pkg(root, "queue.worker"))
        .because("metrics are the collector runtime's; the library's other modules stay free of them");
  }

  /** The rule that cron-utils ({@code com.cronutils..}) is used only from {@code core.schedule}. */
  public static ArchRule cronUtilsOnlyInSchedulePackage(String root) {
    return noClasses().that().resideInAPackage(pkg(root))
        .and().resideOutsideOfPackage(pkg(root, "core.schedule"))
        .should().dependOnClassesThat().resideInAPackage(CRON_UTILS)
        .as("cron-utils is used only from " + pkg(root, "core.schedule"))
        .because("cron-utils lives in one package, hidden behind our own CronSchedule");
  }

  /**
   * The rule that RE2/J ({@code com.google.re2j..}) is used only from {@code api.pattern}, where
   * {@code NamePattern} hides it; nothing else matches a policy's patterns.
   */
  public static ArchRule re2jOnlyInPatternPackage(String root) {
    return noClasses().that().resideInAPackage(pkg(root))
        .and().resideOutsideOfPackage(pkg(root, "api.pattern"))
        .should().dependOnClassesThat().resideInAPackage(RE2J)
        .as("RE2/J is used only from " + pkg(root, "api.pattern"))
        .because("RE2/J lives in one package, hidden behind our own NamePattern");
  }

  /**
   * The rule that, among the library packages, Jackson ({@code com.fasterxml.jackson..}) is used only
   * from {@code core.load}, {@code fleet.job} and {@code fleet.server}; host packages such as {@code cli} are exempt.
   */
  public static ArchRule jacksonOnlyInLoadPackage(String root) {
    return noClasses().that().resideInAnyPackage(packages(root, LIBRARY_MODULES))
        .and().resideOutsideOfPackages(pkg(root, "core.load"), pkg(root, "fleet.job"), pkg(root, "fleet.server"))
        .should().dependOnClassesThat().resideInAPackage(JACKSON)
        .as("Jackson is used only from " + pkg(root, "core.load") + ", " + pkg(root, "fleet.job") + " and "
            + pkg(root, "fleet.server") + " among the library packages")
        .because("Jackson lives in the packages that read or write documents: policies and manifests, a CI job's"
            + " arguments, and the fleet server's JSON API");
  }

  /** The rule that the api packages use no Guava, Jackson or cron-utils types. */
  public static ArchRule apiUsesNoGuavaJacksonOrCronUtils(String root) {
    return noClasses().that().resideInAPackage(pkg(root, "api"))
        .should().dependOnClassesThat().resideInAnyPackage(GUAVA, JACKSON, CRON_UTILS)
        .as("the api packages use no Guava, Jackson or cron-utils types")
        .because("third-party types never appear in public signatures");
  }

  /** The rule that every package below the root holding an imported class is {@code @NullMarked}. */
  public static ArchRule everyPackageIsNullMarked(String root) {
    return ArchRuleDefinition.all(packagesOfClassesBelow(root))
        .should(beNullMarked())
        .because("JSpecify @NullMarked in every package-info.java");
  }

  /** The rule that no two packages below the root depend on each other, directly or transitively. */
  public static ArchRule noPackageCycles(String root) {
    return slices().matching(root + ".(**)").namingSlices("$1")
        .should().beFreeOfCycles()
        .as("the packages below " + root + " are free of cycles")
        .because("no cycles");
  }

  private static ArchCondition<JavaClass> useOnlyTheInternalPackagesOfTheirOwnModule(String root) {
    return new ArchCondition<>("use only the ..internal.. packages of their own module") {
      @Override
      public void check(JavaClass origin, ConditionEvents events) {
        String own = moduleOf(root, origin.getPackageName());
        for (Dependency d : origin.getDirectDependenciesFromSelf()) {
          JavaClass target = d.getTargetClass();
          String targetPackage = target.getPackageName();
          boolean internal = targetPackage.startsWith(root + ".")
              && (targetPackage.contains(".internal.") || targetPackage.endsWith(".internal"));
          if (internal && !moduleOf(root, targetPackage).equals(own)) {
            events.add(SimpleConditionEvent.violated(d, d.getDescription() + ": " + targetPackage
                + " is internal to module " + moduleOf(root, targetPackage) + ", not " + own));
          }
        }
      }
    };
  }

  /**
   * The module of a package below the root: its first segment, or the first two for {@code *.tck} and
   * {@code queue.worker}.
   */
  private static String moduleOf(String root, String packageName) {
    if (!packageName.startsWith(root + ".")) {
      return "";
    }
    String[] parts = packageName.substring(root.length() + 1).split("\\.");
    if (parts.length > 1 && (parts[1].equals("tck") || parts[0].equals("queue") && parts[1].equals("worker"))) {
      return parts[0] + "." + parts[1];
    }
    return parts[0];
  }

  private static DescribedPredicate<JavaMethodCall> systemClockOrEnvironmentRead() {
    Set<String> systemReads = Set.of("getenv", "getProperty", "getProperties", "currentTimeMillis", "nanoTime");
    Set<String> systemClocks = Set.of("systemUTC", "systemDefaultZone", "system");
    List<Class<?>> timeTypes = List.of(Instant.class, LocalDate.class, LocalDateTime.class, LocalTime.class,
        ZonedDateTime.class, OffsetDateTime.class, OffsetTime.class, Year.class, YearMonth.class, MonthDay.class);
    return DescribedPredicate.describe(
        "System.getenv/getProperty/getProperties/currentTimeMillis/nanoTime, Clock.system*"
            + " or a java.time now() without a Clock argument",
        call -> {
          JavaClass owner = call.getTargetOwner();
          String name = call.getName();
          if (owner.isEquivalentTo(System.class)) {
            return systemReads.contains(name);
          }
          if (owner.isEquivalentTo(Clock.class)) {
            return systemClocks.contains(name);
          }
          return name.equals("now")
              && timeTypes.stream().anyMatch(owner::isEquivalentTo)
              && call.getTarget().getRawParameterTypes().stream().noneMatch(p -> p.isEquivalentTo(Clock.class));
        });
  }

  private static DescribedPredicate<JavaFieldAccess> consoleStream() {
    Set<String> streams = Set.of("in", "out", "err");
    return DescribedPredicate.describe("System.in/out/err",
        access -> access.getTargetOwner().isEquivalentTo(System.class) && streams.contains(access.getName()));
  }

  private static DescribedPredicate<JavaConstructorCall> threadConstruction() {
    return DescribedPredicate.describe("a constructor of java.lang.Thread",
        call -> call.getTargetOwner().isEquivalentTo(Thread.class));
  }

  private static ClassesTransformer<JavaPackage> packagesOfClassesBelow(String root) {
    return new AbstractClassesTransformer<>("packages below " + root + " that hold classes") {
      @Override
      public Iterable<JavaPackage> doTransform(JavaClasses classes) {
        Map<String, JavaPackage> byName = new TreeMap<>();
        for (JavaClass javaClass : classes) {
          String name = javaClass.getPackageName();
          if (name.equals(root) || name.startsWith(root + ".")) {
            byName.putIfAbsent(name, javaClass.getPackage());
          }
        }
        return new ArrayList<>(byName.values());
      }
    };
  }

  private static ArchCondition<JavaPackage> beNullMarked() {
    return new ArchCondition<>("be annotated @" + NullMarked.class.getName() + " in package-info.java") {
      @Override
      public void check(JavaPackage javaPackage, ConditionEvents events) {
        if (javaPackage.isAnnotatedWith(NullMarked.class)) {
          return;
        }
        String classes = javaPackage.getClasses().stream()
            .map(JavaClass::getName)
            .filter(name -> !name.endsWith(".package-info"))
            .sorted()
            .collect(Collectors.joining(", "));
        events.add(SimpleConditionEvent.violated(javaPackage, String.format(
            "Package <%s> is not annotated @NullMarked: add @NullMarked to its package-info.java"
                + " (classes: %s)",
            javaPackage.getName(), classes)));
      }
    };
  }

  private static String pkg(String root) {
    return root + "..";
  }

  private static String pkg(String root, String module) {
    return root + "." + module + "..";
  }

  private static String[] packages(String root, List<String> modules) {
    return modules.stream().map(module -> pkg(root, module)).toArray(String[]::new);
  }
}
