package dev.cipolicy.core.load;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.RegistrationException;
import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.core.PolicyResolver;
import dev.cipolicy.core.SuiteRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Loads a test registration manifest — a YAML or JSON list of
 * {@code {file, backend, suite, est_time, labels, nightly, disabled}} — and checks it against a policy.
 * Errors name the source, line and column, the entry, the test file and the field.
 *
 * <pre>{@code
 * SuiteRegistry registry = RegistrationLoader.load("registrations.yaml", text, resolver);
 * }</pre>
 */
public final class RegistrationLoader {
  private static final Set<String> FIELDS =
      Set.of("file", "backend", "suite", "est_time", "labels", "nightly", "disabled");

  private RegistrationLoader() {}

  /**
   * The keys an entry of a manifest may have; the schema tests compare them with
   * {@code schemas/registrations.schema.json}.
   */
  static Set<String> fields() {
    return FIELDS;
  }

  /**
   * Parses and checks a manifest, picking YAML or JSON from the source name's extension.
   *
   * @param sourceName the name used in messages
   * @param text the manifest text
   * @param resolver the checked policy
   * @return the registry
   * @throws RegistrationException listing every problem, each with its location
   */
  public static SuiteRegistry load(String sourceName, String text, PolicyResolver resolver) {
    return load(sourceName, text, DocumentFormat.fromFileName(sourceName), resolver);
  }

  /**
   * Parses and checks a manifest in the given format.
   *
   * @param sourceName the name used in messages
   * @param text the manifest text
   * @param format the syntax
   * @param resolver the checked policy
   * @return the registry
   * @throws RegistrationException listing every problem, each with its location
   */
  public static SuiteRegistry load(String sourceName, String text, DocumentFormat format, PolicyResolver resolver) {
    Node root;
    try {
      root = TreeParser.parse(sourceName, text, format);
    } catch (InvalidPolicyException e) {
      throw new RegistrationException(e.problems());
    }
    DocReader r = new DocReader();
    List<Registration> regs = new ArrayList<>();
    r.list(root, "").ifPresent(list -> {
      for (int i = 0; i < list.items().size(); i++) {
        int before = r.problems().size();
        int valueBefore = r.valueProblems().size();
        String path = DocReader.index("", i);
        Optional<String> file = readEntry(r, list.items().get(i), path, regs);
        // name the test file in every problem of its entry
        file.ifPresent(f -> {
          nameTheFile(r.problems(), before, f);
          nameTheFile(r.valueProblems(), valueBefore, f);
        });
      }
    });
    if (!r.problems().isEmpty()) {
      throw new RegistrationException(r.problems());
    }
    if (!r.valueProblems().isEmpty()) {
      throw new RegistrationException(r.valueProblems());
    }
    return SuiteRegistry.of(resolver, regs, r::locate);
  }

  private static void nameTheFile(List<PolicyProblem> problems, int from, String file) {
    for (int p = from; p < problems.size(); p++) {
      PolicyProblem old = problems.get(p);
      problems.set(p, new PolicyProblem(old.location(), old.path(), "test file '" + file + "': " + old.message()));
    }
  }

  private static Optional<String> readEntry(DocReader r, Node node, String path, List<Registration> out) {
    Optional<DocReader.Fields> fields = r.fields(node, path, FIELDS);
    if (fields.isEmpty()) {
      return Optional.empty();
    }
    DocReader.Fields f = fields.get();
    Optional<String> file = f.requiredString("file");
    Optional<String> backend = f.requiredString("backend");
    Optional<String> suite = f.requiredString("suite");
    Optional<Double> est = f.required("est_time").flatMap(n -> r.number(n, f.path("est_time")));
    List<String> labels = f.stringList("labels");
    Optional<Boolean> nightly = f.bool("nightly");
    Optional<String> disabled = f.node("disabled").flatMap(n ->
        n instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.NULL ? Optional.empty()
            : r.string(n, f.path("disabled")));
    if (file.isPresent() && backend.isPresent() && suite.isPresent() && est.isPresent()) {
      Registration.Builder b = Registration.builder().file(file.get()).backend(backend.get())
          .suite(suite.get()).estTimeSeconds(est.get()).addAllLabels(labels);
      nightly.ifPresent(b::nightly);
      disabled.ifPresent(b::disabled);
      r.build(path, Map.of("estTimeSeconds", "est_time"), b::build).ifPresent(out::add);
    }
    return file;
  }
}
