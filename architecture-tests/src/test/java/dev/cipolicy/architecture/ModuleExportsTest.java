package dev.cipolicy.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The rule that each library jar's {@code module-info} exports its API packages only: read from the module
 * descriptor of the module's classes (its build directory or its jar), every package exported to all modules
 * is not internal, every package with a public top-level type is exported to all modules unless
 * {@link #NOT_EXPORTED_TO_ALL} names it with the reason, and the module's name is the
 * {@code automatic.module.name} of its pom. Every library module of the parent pom has an entry here.
 */
class ModuleExportsTest {

  /** One class of each library module, by the module's directory: where its descriptor is found. */
  private static final Map<String, String> ANCHORS = new TreeMap<>(Map.ofEntries(
      Map.entry("ci-policy-api", "dev.cipolicy.api.policy.Policy"),
      Map.entry("ci-policy-core", "dev.cipolicy.core.PolicyResolver"),
      Map.entry("ci-workflow", "dev.cipolicy.workflow.Workflow"),
      Map.entry("ci-gate", "dev.cipolicy.gate.GateEvaluator"),
      Map.entry("ci-gate-tck", "dev.cipolicy.gate.tck.MetricHistoryStoreCompatibilityKit"),
      Map.entry("ci-queue", "dev.cipolicy.queue.JobQueue"),
      Map.entry("ci-queue-tck", "dev.cipolicy.queue.tck.QueueStoreCompatibilityKit"),
      Map.entry("ci-queue-worker", "dev.cipolicy.queue.worker.CollectorRuntime"),
      Map.entry("ci-postgres", "dev.cipolicy.postgres.PostgresQueueStore"),
      Map.entry("ci-fleet", "dev.cipolicy.fleet.job.CiJob"),
      Map.entry("ci-launch", "dev.cipolicy.launch.LaunchPorts"),
      Map.entry("ci-testkit", "dev.cipolicy.testkit.snapshot.LauncherSnapshots")));

  /** Packages with public types that are deliberately not exported to every module, and why. */
  static final Map<String, String> NOT_EXPORTED_TO_ALL = Map.of(
      "dev.cipolicy.api.value", "the value types' style and checks: exported only to the modules whose values use them");

  /** The parent pom's modules that publish no library (a BOM, examples, tests, benchmarks). */
  private static final Set<String> NOT_LIBRARIES = Set.of("ci-policy-bom", "architecture-tests", "benchmarks");

  private static final Path ROOT = DocsLinksTestRoot.find();

  @Test
  void everyLibraryModuleExportsItsApiPackagesOnly()
      throws IOException, URISyntaxException, ClassNotFoundException {
    assertThat(ANCHORS.keySet()).as("the library modules of the parent pom (a new one needs an anchor here)")
        .containsExactlyInAnyOrderElementsOf(libraryModules());
    List<String> findings = new ArrayList<>();
    for (Map.Entry<String, String> module : ANCHORS.entrySet()) {
      Class<?> anchor = Class.forName(module.getValue(), false, getClass().getClassLoader());
      Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
      Set<ModuleReference> found = ModuleFinder.of(location).findAll();
      assertThat(found).as("the module descriptor of %s at %s", module.getKey(), location).hasSize(1);
      ModuleDescriptor descriptor = found.iterator().next().descriptor();
      assertThat(descriptor.isAutomatic()).as("%s has a module-info", module.getKey()).isFalse();
      assertThat(descriptor.name()).as("the module name of %s", module.getKey())
          .isEqualTo(automaticModuleName(module.getKey()));
      findings.addAll(findings(descriptor, packagesWithPublicTypes(location)));
    }
    System.out.println("module export findings: " + findings.size());
    assertThat(findings).as("exports that break the rule").isEmpty();
  }

  @Test
  void theRuleFiresOnAnInternalExportAndAMissingExport() {
    ModuleDescriptor descriptor = ModuleDescriptor.newModule("dev.cipolicy.example")
        .exports("dev.cipolicy.example.internal")
        .exports(Set.of(), "dev.cipolicy.example.hidden", Set.of("dev.cipolicy.other"))
        .exports("dev.cipolicy.example")
        .packages(Set.of("dev.cipolicy.example.api", "dev.cipolicy.example.impl"))
        .build();
    assertThat(findings(descriptor, Set.of("dev.cipolicy.example", "dev.cipolicy.example.api",
        "dev.cipolicy.example.internal", "dev.cipolicy.example.hidden"))).containsExactlyInAnyOrder(
        "dev.cipolicy.example exports the internal package dev.cipolicy.example.internal",
        "dev.cipolicy.example exports dev.cipolicy.example.hidden to some modules only, and the test's"
            + " NOT_EXPORTED_TO_ALL does not say why",
        "dev.cipolicy.example does not export dev.cipolicy.example.api, which has public types");
  }

  @Test
  void aDocumentedQualifiedExportPasses() {
    ModuleDescriptor descriptor = ModuleDescriptor.newModule("dev.cipolicy.api")
        .exports("dev.cipolicy.api")
        .exports(Set.of(), "dev.cipolicy.api.value", Set.of("dev.cipolicy.core"))
        .build();
    assertThat(findings(descriptor, Set.of("dev.cipolicy.api", "dev.cipolicy.api.value"))).isEmpty();
  }

  /** What is wrong with a module's exports, one line each; {@code publicPackages}: packages with public types. */
  static List<String> findings(ModuleDescriptor descriptor, Set<String> publicPackages) {
    List<String> findings = new ArrayList<>();
    Set<String> toAll = new TreeSet<>();
    for (ModuleDescriptor.Exports export : descriptor.exports()) {
      String pkg = export.source();
      if (!export.isQualified()) {
        toAll.add(pkg);
        if (pkg.contains(".internal")) {
          findings.add(descriptor.name() + " exports the internal package " + pkg);
        }
      } else if (!NOT_EXPORTED_TO_ALL.containsKey(pkg)) {
        findings.add(descriptor.name() + " exports " + pkg + " to some modules only, and the test's"
            + " NOT_EXPORTED_TO_ALL does not say why");
      }
    }
    for (String pkg : new TreeSet<>(publicPackages)) {
      if (!toAll.contains(pkg) && !pkg.contains(".internal") && !NOT_EXPORTED_TO_ALL.containsKey(pkg)
          && descriptor.exports().stream().noneMatch(e -> e.source().equals(pkg))) {
        findings.add(descriptor.name() + " does not export " + pkg + ", which has public types");
      }
    }
    return findings;
  }

  /** The packages of the classes at a module's location that have a public top-level type. */
  private Set<String> packagesWithPublicTypes(Path location) throws IOException {
    Set<String> packages = new TreeSet<>();
    if (Files.isDirectory(location)) {
      collect(location, packages);
    } else {
      try (FileSystem jar = FileSystems.newFileSystem(location)) {
        collect(jar.getPath("/"), packages);
      }
    }
    return packages;
  }

  private void collect(Path root, Set<String> packages) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String relative = root.relativize(file).toString().replace('\\', '/');
        if (!relative.endsWith(".class") || relative.contains("$") || relative.endsWith("module-info.class")
            || relative.startsWith("META-INF/")) {
          continue;
        }
        String name = relative.substring(0, relative.length() - ".class".length()).replace('/', '.');
        try {
          if (Modifier.isPublic(Class.forName(name, false, getClass().getClassLoader()).getModifiers())) {
            packages.add(name.substring(0, name.lastIndexOf('.')));
          }
        } catch (ClassNotFoundException e) {
          throw new IllegalStateException("class " + name + " of " + root + " is not on the test classpath", e);
        }
      }
    }
  }

  /** The library modules of the parent pom: its modules, less examples, tests, benchmarks and the BOM. */
  private static Set<String> libraryModules() throws IOException {
    Set<String> modules = new TreeSet<>();
    Matcher m = Pattern.compile("<module>([^<]+)</module>")
        .matcher(Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8));
    while (m.find()) {
      if (!m.group(1).startsWith("examples/") && !NOT_LIBRARIES.contains(m.group(1))) {
        modules.add(m.group(1));
      }
    }
    return modules;
  }

  private static String automaticModuleName(String module) throws IOException {
    Matcher m = Pattern.compile("<automatic.module.name>([^<]+)</automatic.module.name>")
        .matcher(Files.readString(ROOT.resolve(module).resolve("pom.xml"), StandardCharsets.UTF_8));
    assertThat(m.find()).as("%s/pom.xml sets automatic.module.name", module).isTrue();
    return m.group(1);
  }

  /** The checkout's root, as DocsLinksTest finds it. */
  private static final class DocsLinksTestRoot {
    static Path find() {
      for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
        if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))) {
          return p;
        }
      }
      throw new IllegalStateException("no directory with README.md and docs/ above " + Path.of("").toAbsolutePath());
    }
  }
}
