package dev.cipolicy.testkit.snapshot;

import java.util.Objects;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;

/**
 * A host's test class, as docs/testkit.md shows it, run by {@link LauncherSnapshotExtensionTest}; enabled
 * only while that test runs it (the extension field delegates to the extension the running test sets). Its
 * name does not end in Test, so the build does not run it on its own.
 */
@EnabledIf("enabled")
class HostSnapshotFixture {
  static volatile @Nullable LauncherSnapshotExtension snapshots;

  @RegisterExtension
  static final TestTemplateInvocationContextProvider SNAPSHOTS = new TestTemplateInvocationContextProvider() {
    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
      return Objects.requireNonNull(snapshots).supportsTestTemplate(context);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
      return Objects.requireNonNull(snapshots).provideTestTemplateInvocationContexts(context);
    }
  };

  static boolean enabled() {
    return snapshots != null;
  }

  @LauncherSnapshotTest
  void matchesItsGoldenFile() {}
}
