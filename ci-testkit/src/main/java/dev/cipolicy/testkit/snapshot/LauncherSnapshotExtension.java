package dev.cipolicy.testkit.snapshot;

import dev.cipolicy.testkit.golden.UpdateMode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;

/**
 * The JUnit 5 face of {@link LauncherSnapshots}: registered on a static field of a test class, it turns the
 * class's {@link LauncherSnapshotTest} method into one test per case (named after the case, e.g.
 * {@code runSuite[stage-a-cpu]}) and one named {@value #ORPHANS} that fails for golden files no case owns.
 * The mode comes from {@link UpdateMode#fromSystem()}: an update switch on CI fails the whole template.
 *
 * <pre>{@code
 * class StageLauncherSnapshotTest {
 *   @RegisterExtension
 *   static final LauncherSnapshotExtension SNAPSHOTS = LauncherSnapshotExtension.of(
 *       LauncherSnapshots.of(StageLauncher.class, StageLauncher::new)
 *           .goldenDirectory(Path.of("src/test/resources/golden/stage-launcher"))
 *           .build());
 *
 *   @LauncherSnapshotTest
 *   void matchesItsGoldenFile() {}
 * }
 * }</pre>
 */
public final class LauncherSnapshotExtension implements TestTemplateInvocationContextProvider {
  /** The display name of the orphan check. */
  public static final String ORPHANS = "no orphan golden files";

  private final LauncherSnapshots<?> snapshots;
  private final Supplier<UpdateMode> mode;

  private LauncherSnapshotExtension(LauncherSnapshots<?> snapshots, Supplier<UpdateMode> mode) {
    this.snapshots = snapshots;
    this.mode = mode;
  }

  /**
   * The extension, with the mode taken from the system properties and environment of the test JVM.
   *
   * @param snapshots the snapshot test
   * @return the extension
   */
  public static LauncherSnapshotExtension of(LauncherSnapshots<?> snapshots) {
    return new LauncherSnapshotExtension(snapshots, UpdateMode::fromSystem);
  }

  /**
   * The extension with an explicit mode source (the kit's own tests use this).
   *
   * @param snapshots the snapshot test
   * @param mode where the mode comes from, asked once per test template
   * @return the extension
   */
  public static LauncherSnapshotExtension of(LauncherSnapshots<?> snapshots, Supplier<UpdateMode> mode) {
    return new LauncherSnapshotExtension(snapshots, mode);
  }

  /**
   * The snapshot test this extension runs.
   *
   * @return the snapshots
   */
  public LauncherSnapshots<?> snapshots() {
    return snapshots;
  }

  @Override
  public boolean supportsTestTemplate(ExtensionContext context) {
    return context.getTestMethod().map(m -> m.isAnnotationPresent(LauncherSnapshotTest.class)).orElse(false);
  }

  @Override
  public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
    UpdateMode m = mode.get();
    String testClass = context.getRequiredTestClass().getSimpleName();
    List<TestTemplateInvocationContext> invocations = new ArrayList<>();
    for (SnapshotCase c : snapshots.cases()) {
      invocations.add(invocation(c.id(), ctx -> {
        SnapshotResult r = snapshots.check(c, m, testClass);
        if (r.status() == SnapshotResult.Status.CREATED || r.status() == SnapshotResult.Status.UPDATED) {
          ctx.publishReportEntry("golden", r.status().name().toLowerCase(java.util.Locale.ROOT) + " " + r.goldenFile());
        }
      }));
    }
    invocations.add(invocation(ORPHANS, ctx -> {
      for (String deleted : snapshots.checkOrphans(m, testClass)) {
        ctx.publishReportEntry("golden", "deleted orphan " + snapshots.goldenDirectory().resolve(deleted));
      }
    }));
    return invocations.stream();
  }

  private static TestTemplateInvocationContext invocation(String name, BeforeTestExecutionCallback check) {
    return new TestTemplateInvocationContext() {
      @Override
      public String getDisplayName(int invocationIndex) {
        return name;
      }

      @Override
      public List<Extension> getAdditionalExtensions() {
        return List.of(check);
      }
    };
  }
}
