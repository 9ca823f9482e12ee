package dev.cipolicy.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import fixture.signatures.HiddenBuilderValue;
import fixture.signatures.LeakyPattern;
import fixture.signatures.LeakyValue;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rule that no generated {@code Immutable*} type appears in the published API: in the exported
 * (non-{@code internal}) packages of the library modules (ci-policy-api, ci-policy-core, ci-gate,
 * ci-queue, ci-testkit), no public or protected signature — supertypes, type parameter bounds, field,
 * parameter, return and exception types, and every generic argument of them — mentions a type whose
 * simple name, or the simple name of a type enclosing it, starts with {@code Immutable}. A value type's
 * public nested {@code Builder} may extend its generated builder, because that base class is
 * package-private and so cannot be named; its public methods are inspected as the {@code Builder}'s own.
 */
class GeneratedTypesStayHiddenTest {

  private static final String[] LIBRARY_PACKAGES = {"dev.cipolicy.api..", "dev.cipolicy.core..",
      "dev.cipolicy.workflow..", "dev.cipolicy.gate..", "dev.cipolicy.queue..", "dev.cipolicy.fleet..",
      "dev.cipolicy.testkit.."};
  /** Packages below the library roots that belong to other modules (the kits). */
  private static final String[] OTHER_MODULES = {"dev.cipolicy.gate.tck..", "dev.cipolicy.queue.tck.."};

  static boolean generated(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
      if (c.getSimpleName().startsWith("Immutable")) {
        return true;
      }
    }
    return false;
  }

  static List<Class<?>> exportedLibraryClasses() {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.cipolicy")
        .that(resideInAnyPackage(LIBRARY_PACKAGES))
        .that(not(resideInAnyPackage(OTHER_MODULES)))
        .that(not(resideInAPackage("..internal..")))
        .stream().map(JavaClass::reflect).<Class<?>>map(c -> c).toList();
  }

  @Test
  void noPublishedSignatureMentionsAGeneratedType() {
    List<Class<?>> classes = exportedLibraryClasses();
    assertThat(classes).as("the library modules' classes are on the classpath")
        .extracting(Class::getName).contains("dev.cipolicy.api.policy.Policy", "dev.cipolicy.gate.HookRequest",
            "dev.cipolicy.queue.QueueSettings", "dev.cipolicy.testkit.snapshot.LauncherSnapshots");
    List<String> findings = PublicSignatures.mentions(classes, GeneratedTypesStayHiddenTest::generated);
    System.out.println("Immutable* mentions in published signatures: " + findings.size());
    assertThat(findings).as("published signatures that mention a generated Immutable* type").isEmpty();
  }

  /** A regular expression engine's type: the JDK's or RE2/J's. */
  static boolean regexEngine(Class<?> type) {
    return type.getName().startsWith("java.util.regex.") || type.getName().startsWith("com.google.re2j.");
  }

  /**
   * The rule that the patterns a policy supplies are our own type: no published signature of the library
   * mentions an RE2/J type, and none in the policy model ({@code api.policy}, {@code api.pattern}) mentions a
   * {@code java.util.regex} one either (a user-supplied pattern is a {@code NamePattern}, matched in linear time).
   */
  @Test
  void noPublishedSignatureMentionsARegexEngineTypeForAPolicysPatterns() {
    List<Class<?>> classes = exportedLibraryClasses();
    assertThat(PublicSignatures.mentions(classes, c -> c.getName().startsWith("com.google.re2j.")))
        .as("published signatures that mention RE2/J").isEmpty();
    List<Class<?>> model = classes.stream().filter(c -> c.getPackageName().equals("dev.cipolicy.api.policy")
        || c.getPackageName().equals("dev.cipolicy.api.pattern")).toList();
    assertThat(model).extracting(Class::getName)
        .contains("dev.cipolicy.api.policy.SuiteNaming", "dev.cipolicy.api.pattern.NamePattern");
    assertThat(PublicSignatures.mentions(model, GeneratedTypesStayHiddenTest::regexEngine))
        .as("policy model signatures that mention java.util.regex or RE2/J (use NamePattern)").isEmpty();
    assertThat(PublicSignatures.mentions(List.of(LeakyPattern.class), GeneratedTypesStayHiddenTest::regexEngine))
        .containsExactlyInAnyOrder("fixture.signatures.LeakyPattern#matchWhole(String): return type mentions Matcher",
            "fixture.signatures.LeakyPattern#compiled(): return type mentions Pattern");
  }

  @Test
  void theRuleFiresOnALeakyValueType() {
    List<String> findings = PublicSignatures.mentions(List.of(LeakyValue.class, LeakyValue.ImmutableLeaky.class,
        LeakyValue.Extending.class), GeneratedTypesStayHiddenTest::generated);
    assertThat(findings).containsExactlyInAnyOrder(
        "fixture.signatures.LeakyValue#builder(): return type mentions LeakyValue.ImmutableLeaky",
        "fixture.signatures.LeakyValue#copies(List): return type mentions LeakyValue.ImmutableLeaky",
        "fixture.signatures.LeakyValue#copies(List): parameter 0 mentions LeakyValue.ImmutableLeaky",
        "fixture.signatures.LeakyValue#field: field type mentions LeakyValue.ImmutableLeaky",
        "fixture.signatures.LeakyValue$ImmutableLeaky: the type itself is published",
        "fixture.signatures.LeakyValue$Extending: superclass mentions LeakyValue.ImmutableLeaky");
  }

  @Test
  void aBuilderExtendingAHiddenGeneratedBuilderPasses() {
    assertThat(PublicSignatures.mentions(List.of(HiddenBuilderValue.class, HiddenBuilderValue.Builder.class),
        GeneratedTypesStayHiddenTest::generated)).isEmpty();
  }
}
