package dev.cipolicy.core.load;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.CadenceDefinition;
import dev.cipolicy.api.policy.DomainLabel;
import dev.cipolicy.api.policy.EventRule;
import dev.cipolicy.api.policy.FileRunRules;
import dev.cipolicy.api.policy.HostLayout;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.RetryRules;
import dev.cipolicy.api.policy.RunCommand;
import dev.cipolicy.api.policy.ScheduleRule;
import dev.cipolicy.api.policy.ScopeRule;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.policy.SuiteNaming;
import dev.cipolicy.api.policy.TimeoutRule;
import dev.cipolicy.api.policy.WorkflowLabel;
import dev.cipolicy.core.PolicyResolver;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Loads a policy document (YAML or JSON text) into a {@link Policy} and runs the static checks. The host
 * reads the file; this class only parses the text it is given, so errors name the source the host
 * passes, with line and column.
 *
 * <pre>{@code
 * LoadedPolicy loaded = PolicyLoader.load("miles.yaml", Files.readString(path));
 * RunPolicy run = loaded.resolver().resolveCadence("nightly", List.of());
 * }</pre>
 */
public final class PolicyLoader {
  /** The document version this loader reads. */
  public static final int POLICY_VERSION = 1;

  /**
   * The optional root key naming the document's JSON Schema ({@code schemas/policy.schema.json}), so that a JSON
   * document can name its schema as a YAML one does with a {@code yaml-language-server} comment. It must be a
   * string and is otherwise ignored.
   */
  static final String SCHEMA_FIELD = "$schema";

  private static final Set<String> ROOT_FIELDS = Set.of(SCHEMA_FIELD,
      "policy_version", "name", "label_prefix", "labels", "workflow_labels", "cadences", "events",
      "schedules", "scopes", "hosts", "backends", "container_image", "pr_stages", "non_gpu_paths", "retry",
      "timeouts", "file_run", "suite_naming", WorkflowsSection.FIELD, GatesSection.FIELD, FleetSection.FIELD);

  private static final Set<String> WORKFLOW_LABEL_FIELDS = Set.of("description", "switches_cadence", "bypass_fastfail");
  private static final Set<String> CADENCE_FIELDS = Set.of("description", "admit_nightly_tests", "bypass_fastfail",
      "write_baseline", "gpu_max_parallel");
  private static final Set<String> EVENT_FIELDS = Set.of("source", "cadence", "match_all_labels");
  private static final Set<String> SCHEDULE_FIELDS = Set.of("cron", "cadence", "labels", "description");
  private static final Set<String> SCOPE_FIELDS = Set.of("name", "description", "when_labels", "when_cadences", "except");
  private static final Set<String> HOST_FIELDS = Set.of("gpus", "partitions");
  private static final Set<String> BACKEND_FIELDS = Set.of("gpu", "suites", RunSection.FIELD,
      RunSection.DEVICE_ENV_FIELD);
  private static final Set<String> SUITE_FIELDS = Set.of("runner_labels", "shards", "github_hosted",
      "externally_scheduled", "host", "description", "gpus", "hardware", "pool", "gpu_budget", RunSection.FIELD);
  private static final Set<String> CONTAINER_IMAGE_FIELDS = Set.of("repository");
  private static final Set<String> RETRY_FIELDS = Set.of("non_retriable", "metric_assertion_patterns", "assertion_token");
  private static final Set<String> TIMEOUT_FIELDS = Set.of("base_seconds", "factor");
  private static final Set<String> FILE_RUN_FIELDS = Set.of("command", "test_directory", "test_roots", "file_prefix",
      "file_suffix", "backends", "default_image_tag");
  private static final Set<String> SUITE_NAMING_FIELDS = Set.of("pattern", "description");

  /** The name of an entry of a named map is its key: a problem with the name points at the entry. */
  private static final Map<String, String> NAME_IS_KEY = Map.of("name", "");

  private PolicyLoader() {}

  /**
   * The keys each mapping of a policy document may have, by where the mapping is: {@code ""} is the root,
   * {@code a.b} a field, {@code a.*} every entry of the named map {@code a}, {@code a[]} every item of the list
   * {@code a}. The schema tests compare these with {@code schemas/policy.schema.json}.
   */
  static Map<String, Set<String>> fieldSets() {
    Map<String, Set<String>> m = new LinkedHashMap<>();
    m.put("", ROOT_FIELDS);
    m.put("workflow_labels.*", WORKFLOW_LABEL_FIELDS);
    m.put("cadences.*", CADENCE_FIELDS);
    m.put("events.*", EVENT_FIELDS);
    m.put("schedules[]", SCHEDULE_FIELDS);
    m.put("scopes[]", SCOPE_FIELDS);
    m.put("hosts.*", HOST_FIELDS);
    m.put("backends.*", BACKEND_FIELDS);
    m.put("backends.*.suites.*", SUITE_FIELDS);
    m.put("backends.*." + RunSection.FIELD, RunSection.RUN_FIELDS);
    m.put("backends.*.suites.*." + RunSection.FIELD, RunSection.RUN_FIELDS);
    m.put("container_image", CONTAINER_IMAGE_FIELDS);
    m.put("retry", RETRY_FIELDS);
    m.put("timeouts", TIMEOUT_FIELDS);
    m.put("file_run", FILE_RUN_FIELDS);
    m.put("suite_naming", SUITE_NAMING_FIELDS);
    m.put(WorkflowsSection.FIELD + ".*", WorkflowsSection.WORKFLOW_FIELDS);
    m.put(WorkflowsSection.FIELD + ".*.roles", WorkflowsSection.ROLE_FIELDS);
    m.put(WorkflowsSection.FIELD + ".*.roles.outputs", WorkflowsSection.OUTPUT_FIELDS);
    m.put(GatesSection.FIELD, GatesSection.SECTION_FIELDS);
    m.put(GatesSection.FIELD + ".defaults.*", GatesSection.DEFAULT_FIELDS);
    m.put(GatesSection.FIELD + ".defaults.*.constraint", Set.copyOf(GateConstraint.FIELDS));
    m.put(FleetSection.FIELD, FleetSection.SECTION_FIELDS);
    m.put(FleetSection.FIELD + ".pools.*", FleetSection.POOL_FIELDS);
    m.put(FleetSection.FIELD + ".shares.*.*", FleetSection.SHARE_FIELDS);
    return Collections.unmodifiableMap(m);
  }

  /**
   * Parses and checks a policy document, picking YAML or JSON from the source name's extension.
   *
   * @param sourceName the name used in error messages, typically the file path
   * @param text the document text
   * @return the policy with its resolver and load-time warnings
   * @throws InvalidPolicyException with every problem found, each with its location
   */
  public static LoadedPolicy load(String sourceName, String text) {
    return load(sourceName, text, DocumentFormat.fromFileName(sourceName));
  }

  /**
   * Parses and checks a policy document in the given format.
   *
   * @param sourceName the name used in error messages
   * @param text the document text
   * @param format the syntax of {@code text}
   * @return the policy with its resolver and load-time warnings
   * @throws InvalidPolicyException with every problem found, each with its location
   */
  public static LoadedPolicy load(String sourceName, String text, DocumentFormat format) {
    Node root = TreeParser.parse(sourceName, text, format);
    DocReader r = new DocReader();
    Optional<Policy> policy = r.fields(root, "", ROOT_FIELDS).flatMap(f -> readPolicy(r, f));
    if (!r.problems().isEmpty()) {
      throw new InvalidPolicyException(r.problems());
    }
    if (!r.valueProblems().isEmpty() || policy.isEmpty()) {
      throw new InvalidPolicyException(r.valueProblems());
    }
    PolicyResolver resolver = PolicyResolver.of(policy.get(), r::locate);
    return new LoadedPolicy(policy.get(), resolver, r::locate);
  }

  private static Optional<Policy> readPolicy(DocReader r, DocReader.Fields root) {
    root.integer("policy_version").ifPresent(v -> {
      if (v != POLICY_VERSION) {
        r.problem(root.node("policy_version").orElseThrow().location(), "policy_version",
            "unsupported policy_version " + v + "; expected " + POLICY_VERSION);
      }
    });
    root.string(SCHEMA_FIELD);
    Policy.Builder b = Policy.builder();
    root.requiredString("name").ifPresent(b::name);
    root.string("label_prefix").ifPresent(b::labelPrefix);
    root.node("labels").flatMap(n -> r.namedMap(n, "labels")).ifPresent(m -> {
      for (Node.Entry e : m.view().values()) {
        String path = DocReader.child("labels", e.key());
        String description = e.value() instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.NULL
            ? "" : r.string(e.value(), path).orElse("");
        r.mark(path, e.keyLocation());
        r.build(path, NAME_IS_KEY, () -> DomainLabel.builder().name(e.key()).description(description).build())
            .ifPresent(b::addDomainLabels);
      }
    });
    root.node("workflow_labels").flatMap(n -> r.namedMap(n, "workflow_labels"))
        .ifPresent(m -> m.view().values().forEach(e -> readWorkflowLabel(r, e).ifPresent(b::addWorkflowLabels)));
    root.node("cadences").flatMap(n -> r.namedMap(n, "cadences"))
        .ifPresent(m -> m.view().values().forEach(e -> readCadence(r, e).ifPresent(b::addCadences)));
    root.node("events").flatMap(n -> r.namedMap(n, "events"))
        .ifPresent(m -> m.view().values().forEach(e -> readEvent(r, e).ifPresent(b::addEvents)));
    root.node("schedules").flatMap(n -> r.list(n, "schedules")).ifPresent(l -> {
      for (int i = 0; i < l.items().size(); i++) {
        readSchedule(r, l.items().get(i), DocReader.index("schedules", i)).ifPresent(b::addSchedules);
      }
    });
    root.node("scopes").flatMap(n -> r.list(n, "scopes")).ifPresent(l -> {
      for (int i = 0; i < l.items().size(); i++) {
        readScope(r, l.items().get(i), DocReader.index("scopes", i)).ifPresent(b::addScopes);
      }
    });
    root.node("hosts").flatMap(n -> r.namedMap(n, "hosts"))
        .ifPresent(m -> m.view().values().forEach(e -> readHost(r, e).ifPresent(b::addHosts)));
    root.node("backends").flatMap(n -> r.namedMap(n, "backends"))
        .ifPresent(m -> m.view().values().forEach(e -> readBackend(r, e).ifPresent(b::addBackends)));
    root.node("container_image")
        .flatMap(n -> r.fields(n, "container_image", CONTAINER_IMAGE_FIELDS))
        .flatMap(f -> f.requiredString("repository"))
        .ifPresent(b::containerImageRepository);
    root.node("suite_naming").flatMap(n -> r.fields(n, "suite_naming", SUITE_NAMING_FIELDS))
        .ifPresent(f -> {
          SuiteNaming.Builder nb = SuiteNaming.builder();
          Optional<String> pattern = f.requiredString("pattern");
          f.string("description").ifPresent(nb::description);
          pattern.flatMap(p -> r.build("suite_naming", Map.of(), nb.pattern(p)::build)).ifPresent(b::suiteNaming);
        });
    root.node("retry").flatMap(n -> r.fields(n, "retry", RETRY_FIELDS)).ifPresent(f -> {
          RetryRules.Builder rb = RetryRules.builder();
          f.node("non_retriable").ifPresent(n -> rb.nonRetriable(r.stringList(n, f.path("non_retriable"))));
          f.node("metric_assertion_patterns").ifPresent(n ->
              rb.metricAssertionPatterns(r.stringList(n, f.path("metric_assertion_patterns"))));
          f.string("assertion_token").ifPresent(rb::assertionToken);
          r.build("retry", Map.of(), rb::build).ifPresent(b::retry);
        });
    root.node("timeouts").flatMap(n -> r.fields(n, "timeouts", TIMEOUT_FIELDS))
        .ifPresent(f -> {
          TimeoutRule.Builder tb = TimeoutRule.builder();
          f.integer("base_seconds").ifPresent(tb::baseSeconds);
          f.node("factor").flatMap(n -> r.number(n, f.path("factor"))).ifPresent(tb::factor);
          r.build("timeouts", Map.of(), tb::build).ifPresent(b::timeouts);
        });
    root.node("file_run").flatMap(n -> r.fields(n, "file_run", FILE_RUN_FIELDS)).ifPresent(f -> {
          FileRunRules.Builder fb = FileRunRules.builder();
          f.string("command").ifPresent(fb::command);
          f.string("test_directory").ifPresent(fb::testDirectory);
          f.string("file_prefix").ifPresent(fb::filePrefix);
          f.string("file_suffix").ifPresent(fb::fileSuffix);
          f.node("test_roots").ifPresent(n -> fb.testRoots(r.stringList(n, f.path("test_roots"))));
          f.node("backends").ifPresent(n -> fb.backends(r.stringList(n, f.path("backends"))));
          f.string("default_image_tag").ifPresent(fb::defaultImageTag);
          r.build("file_run", Map.of(), fb::build).ifPresent(b::fileRun);
        });
    b.addAllPrStages(root.stringList("pr_stages"));
    b.addAllNonGpuPaths(root.stringList("non_gpu_paths"));
    WorkflowsSection.read(r, root, b);
    GatesSection.read(r, root, b);
    FleetSection.read(r, root, b);
    return r.problems().isEmpty() ? r.build("", Map.of(), b::build) : Optional.empty();
  }

  private static Optional<WorkflowLabel> readWorkflowLabel(DocReader r, Node.Entry e) {
    String path = DocReader.child("workflow_labels", e.key());
    return r.fields(e.value(), path, WORKFLOW_LABEL_FIELDS)
        .flatMap(f -> {
          WorkflowLabel.Builder b = WorkflowLabel.builder().name(e.key());
          f.string("description").ifPresent(b::description);
          f.string("switches_cadence").ifPresent(b::switchesCadence);
          f.bool("bypass_fastfail").ifPresent(b::bypassFastfail);
          return r.build(path, NAME_IS_KEY, b::build);
        });
  }

  private static Optional<CadenceDefinition> readCadence(DocReader r, Node.Entry e) {
    String path = DocReader.child("cadences", e.key());
    return r.fields(e.value(), path, CADENCE_FIELDS)
        .flatMap(f -> {
          CadenceDefinition.Builder b = CadenceDefinition.builder().name(e.key());
          f.string("description").ifPresent(b::description);
          Optional<Boolean> admit = f.requiredBool("admit_nightly_tests");
          Optional<Boolean> bypass = f.requiredBool("bypass_fastfail");
          Optional<Boolean> write = f.requiredBool("write_baseline");
          f.integer("gpu_max_parallel").ifPresent(b::gpuMaxParallel);
          if (admit.isEmpty() || bypass.isEmpty() || write.isEmpty()) {
            return Optional.empty();
          }
          b.admitNightlyTests(admit.get()).bypassFastfail(bypass.get()).writeBaseline(write.get());
          return r.build(path, NAME_IS_KEY, b::build);
        });
  }

  private static Optional<EventRule> readEvent(DocReader r, Node.Entry e) {
    String path = DocReader.child("events", e.key());
    return r.fields(e.value(), path, EVENT_FIELDS)
        .flatMap(f -> {
          EventRule.Builder b = EventRule.builder().event(e.key());
          f.string("cadence").ifPresent(b::cadence);
          f.bool("match_all_labels").ifPresent(b::matchAllLabels);
          Optional<String> source = f.string("source");
          EventRule.Source s = EventRule.Source.FIXED;
          if (source.isPresent()) {
            try {
              s = EventRule.Source.valueOf(source.get().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException ex) {
              r.problem(f.node("source").orElseThrow().location(), f.path("source"),
                  "unknown event source '" + source.get()
                      + "'; expected one of [fixed, pull_request_labels, schedule_table]");
              return Optional.empty();
            }
          }
          b.source(s);
          return r.build(path, Map.of("event", ""), b::build);
        });
  }

  private static Optional<ScheduleRule> readSchedule(DocReader r, Node node, String path) {
    return r.fields(node, path, SCHEDULE_FIELDS).flatMap(f -> {
      ScheduleRule.Builder b = ScheduleRule.builder();
      Optional<String> cron = f.requiredString("cron");
      Optional<String> cadence = f.requiredString("cadence");
      b.addAllLabels(f.stringList("labels"));
      f.string("description").ifPresent(b::description);
      if (cron.isEmpty() || cadence.isEmpty()) {
        return Optional.empty();
      }
      b.cron(cron.get()).cadence(cadence.get());
      return r.build(path, Map.of(), b::build);
    });
  }

  private static Optional<ScopeRule> readScope(DocReader r, Node node, String path) {
    return r.fields(node, path, SCOPE_FIELDS)
        .flatMap(f -> {
          ScopeRule.Builder b = ScopeRule.builder();
          Optional<String> name = f.requiredString("name");
          f.string("description").ifPresent(b::description);
          b.addAllWhenLabels(f.stringList("when_labels"));
          b.addAllWhenCadences(f.stringList("when_cadences"));
          b.addAllExcept(f.stringList("except"));
          return name.flatMap(n -> r.build(path, Map.of(), b.name(n)::build));
        });
  }

  private static Optional<HostLayout> readHost(DocReader r, Node.Entry e) {
    String path = DocReader.child("hosts", e.key());
    return r.fields(e.value(), path, HOST_FIELDS).flatMap(f -> {
      Optional<Integer> gpus = f.requiredInteger("gpus");
      var partitions = f.intList("partitions");
      return gpus.flatMap(g -> r.build(path, NAME_IS_KEY,
          () -> HostLayout.builder().name(e.key()).gpus(g).addAllPartitions(partitions).build()));
    });
  }

  private static Optional<Backend> readBackend(DocReader r, Node.Entry e) {
    String path = DocReader.child("backends", e.key());
    return r.fields(e.value(), path, BACKEND_FIELDS).flatMap(f -> {
      Backend.Builder b = Backend.builder().name(e.key());
      f.bool("gpu").ifPresent(b::gpu);
      Map<String, RunCommand> suiteRuns = new LinkedHashMap<>();
      f.node("suites").flatMap(n -> r.namedMap(n, f.path("suites"))).ifPresent(m -> {
        for (Node.Entry s : m.view().values()) {
          readSuite(r, s, DocReader.child(f.path("suites"), s.key())).ifPresent(suite -> {
            b.addSuites(suite);
            suite.run().ifPresent(run -> suiteRuns.put(suite.name(), run));
          });
        }
      });
      Optional<RunCommand> run = RunSection.read(r, f);
      run.ifPresent(b::run);
      b.addAllDeviceEnv(f.stringList(RunSection.DEVICE_ENV_FIELD));
      return r.build(path, RunSection.backendKeys(run, suiteRuns), b::build);
    });
  }

  private static Optional<Suite> readSuite(DocReader r, Node.Entry e, String path) {
    return r.fields(e.value(), path, SUITE_FIELDS)
        .flatMap(f -> {
          Suite.Builder b = Suite.builder().name(e.key());
          f.integer("gpus").ifPresent(b::gpus);
          f.string("hardware").ifPresent(b::hardware);
          f.string("pool").ifPresent(b::pool);
          f.integer("gpu_budget").ifPresent(b::gpuBudget);
          b.addAllRunnerLabels(f.stringList("runner_labels"));
          f.integer("shards").ifPresent(b::shards);
          f.bool("github_hosted").ifPresent(b::githubHosted);
          f.bool("externally_scheduled").ifPresent(b::externallyScheduled);
          f.string("host").ifPresent(b::host);
          f.string("description").ifPresent(b::description);
          RunSection.read(r, f).ifPresent(b::run);
          return r.build(path, NAME_IS_KEY, b::build);
        });
  }
}
