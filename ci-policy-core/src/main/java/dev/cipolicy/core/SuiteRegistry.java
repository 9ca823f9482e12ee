package dev.cipolicy.core;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.RegistrationException;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.CadenceDefinition;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.api.suite.SkippedTest;
import dev.cipolicy.api.suite.SuiteRunPlan;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;

/**
 * Hardware backends, suites and the test registrations checked against them: selects a
 * suite's tests under a run policy, shards them, and plans a suite run. Immutable and thread-safe.
 *
 * <pre>{@code
 * SuiteRegistry registry = SuiteRegistry.of(resolver, registrations);
 * SuiteRunPlan plan = registry.plan("cuda", "stage-c-4-gpu-h200", runPolicy, false, Optional.empty());
 * }</pre>
 */
public final class SuiteRegistry {
  private static final Comparator<Registration> LPT_ORDER =
      Comparator.comparingDouble(Registration::estTimeSeconds).reversed().thenComparing(Registration::file);

  private final PolicyResolver resolver;
  private final Policy policy;
  private final List<Registration> registrations;
  private final Map<String, Backend> backends = new LinkedHashMap<>();
  private final Map<String, Suite> suites = new HashMap<>();
  private final Map<String, String> backendOfSuite = new HashMap<>();
  private final Map<String, List<Registration>> byFile = new HashMap<>();

  private SuiteRegistry(PolicyResolver resolver, List<Registration> registrations) {
    this.resolver = resolver;
    this.policy = resolver.policy();
    this.registrations = List.copyOf(registrations);
    for (Backend b : policy.backends()) {
      backends.put(b.name(), b);
      for (Suite s : b.suites()) {
        suites.put(s.name(), s);
        backendOfSuite.put(s.name(), b.name());
      }
    }
    for (Registration r : this.registrations) {
      byFile.computeIfAbsent(r.file(), f -> new ArrayList<>()).add(r);
    }
  }

  /**
   * Checks registrations built in code against the policy.
   *
   * @param resolver the checked policy
   * @param registrations the registrations
   * @return the registry
   * @throws RegistrationException listing every problem
   */
  public static SuiteRegistry of(PolicyResolver resolver, List<Registration> registrations) {
    return of(resolver, registrations, ProblemLocator.NONE);
  }

  /**
   * Checks registrations against the policy; problems are located with {@code locator}, whose paths
   * look like {@code [3].labels[0]}.
   *
   * @param resolver the checked policy
   * @param registrations the registrations, in manifest order
   * @param locator maps paths to document locations
   * @return the registry
   * @throws RegistrationException listing every problem
   */
  public static SuiteRegistry of(PolicyResolver resolver, List<Registration> registrations,
      ProblemLocator locator) {
    SuiteRegistry registry = new SuiteRegistry(resolver, registrations);
    List<PolicyProblem> problems = registry.check(locator);
    if (!problems.isEmpty()) {
      throw new RegistrationException(problems);
    }
    return registry;
  }

  private List<PolicyProblem> check(ProblemLocator locator) {
    List<PolicyProblem> problems = new ArrayList<>();
    Set<String> known = new TreeSet<>(policy.knownLabels());
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < registrations.size(); i++) {
      Registration r = registrations.get(i);
      String path = "[" + i + "]";
      String who = "test file '" + r.file() + "': ";
      java.util.function.BiConsumer<String, String> problem =
          (p, m) -> problems.add(new PolicyProblem(locator.locate(p), p, who + m));
      if (r.file().isBlank() || r.file().startsWith("/") || r.file().contains("\\")
          || List.of(r.file().split("/", -1)).stream().anyMatch(s -> s.isEmpty() || s.equals("..") || s.equals("."))) {
        problem.accept(path + ".file", "expected a repository-relative path like tests/e2e/test_x.py");
      }
      Backend backend = backends.get(r.backend());
      if (backend == null) {
        problem.accept(path + ".backend", "unknown backend '" + r.backend() + "'; expected one of "
            + backends.keySet());
      } else if (backend.suites().stream().noneMatch(s -> s.name().equals(r.suite()))) {
        String other = backendOfSuite.get(r.suite());
        problem.accept(path + ".suite", "suite '" + r.suite() + "' is not declared for backend '" + r.backend()
            + "'" + (other == null ? "" : " (it belongs to backend '" + other + "')") + "; its suites are "
            + backend.suites().stream().map(Suite::name).toList());
      }
      for (int j = 0; j < r.labels().size(); j++) {
        if (!known.contains(r.labels().get(j))) {
          problem.accept(path + ".labels[" + j + "]", "unknown label '" + r.labels().get(j)
              + "'; expected one of " + known);
        }
      }
      if (backend != null && backend.gpu() && r.labels().isEmpty()) {
        problem.accept(path + ".labels", "a " + r.backend() + " (GPU) registration needs at least one label");
      }
      Integer first = seen.putIfAbsent(r.file() + "\u0000" + r.backend() + "\u0000" + r.suite(), i);
      if (first != null) {
        problem.accept(path, "registered twice for " + r.backend() + "/" + r.suite() + " (first at [" + first
            + "])");
      }
    }
    return problems;
  }

  /**
   * The policy resolver this registry was checked against.
   *
   * @return the resolver
   */
  public PolicyResolver resolver() {
    return resolver;
  }

  /**
   * Every registration, in manifest order.
   *
   * @return the registrations
   */
  public List<Registration> registrations() {
    return registrations;
  }

  /**
   * The registrations of one test file.
   *
   * @param file the repository-relative path
   * @return its registrations, empty when unregistered
   */
  public List<Registration> registrationsOf(String file) {
    return byFile.getOrDefault(file, List.of());
  }

  /**
   * Looks up a suite of a backend.
   *
   * @param backend the backend name
   * @param suite the suite name
   * @return the suite
   * @throws InvalidInputException {@code Unknown suite <s> for backend <b>} (or an unknown backend)
   */
  public Suite suite(String backend, String suite) {
    Backend b = backends.get(backend);
    if (b == null) {
      throw new InvalidInputException("Unknown backend " + backend + "; expected one of " + backends.keySet());
    }
    return b.suites().stream().filter(s -> s.name().equals(suite)).findFirst()
        .orElseThrow(() -> new InvalidInputException("Unknown suite " + suite + " for backend " + backend));
  }

  /**
   * Whether a backend runs on GPUs.
   *
   * @param backend the backend name
   * @return true for GPU backends
   */
  public boolean isGpuBackend(String backend) {
    Backend b = backends.get(backend);
    return b != null && b.gpu();
  }

  /**
   * Whether a registration matches a run policy: not (nightly-only and not admitted), and no labels or
   * at least one included label.
   *
   * @param r the registration
   * @param policy the run policy
   * @param matchAllLabels whether every known label counts as included (manual dispatch on GPU stages)
   * @return true when the registration is selected
   */
  public boolean matches(Registration r, RunPolicy policy, boolean matchAllLabels) {
    if (r.nightly() && !policy.admitNightlyTests()) {
      return false;
    }
    if (r.labels().isEmpty() || (matchAllLabels && isGpuBackend(r.backend()))) {
      return true;
    }
    for (String l : r.labels()) {
      if (policy.includeLabels().contains(l)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The enabled tests of a suite under a run policy, in LPT order (longest first, then file), and the
   * disabled ones that would otherwise have been selected.
   *
   * @param backend the backend
   * @param suite the suite
   * @param policy the run policy
   * @param matchAllLabels manual dispatch: GPU stages match every known label
   * @return the selection
   * @throws InvalidInputException for an unknown backend or suite
   */
  public Selection select(String backend, String suite, RunPolicy policy, boolean matchAllLabels) {
    suite(backend, suite);
    List<Registration> enabled = new ArrayList<>();
    List<SkippedTest> skipped = new ArrayList<>();
    for (Registration r : registrations) {
      if (!r.backend().equals(backend) || !r.suite().equals(suite) || !matches(r, policy, matchAllLabels)) {
        continue;
      }
      if (r.disabled().isPresent()) {
        skipped.add(new SkippedTest(r.file(), r.disabled().get()));
      } else {
        enabled.add(r);
      }
    }
    enabled.sort(LPT_ORDER);
    skipped.sort(Comparator.comparing(SkippedTest::file));
    return new Selection(List.copyOf(enabled), List.copyOf(skipped));
  }

  /**
   * A suite's selected tests.
   *
   * @param enabled enabled registrations in LPT order
   * @param skipped disabled tests that would otherwise run
   */
  public record Selection(List<Registration> enabled, List<SkippedTest> skipped) {}

  /**
   * The largest shard count (partition size) a suite run may be split into: 1,000. Larger counts are
   * rejected by {@link #plan} with {@link InvalidInputException}.
   */
  public static final int MAX_SHARDS = Suite.MAX_SHARDS;

  /**
   * Greedy longest-processing-time sharding: tests sorted by (−est_time, file) go one by one to the
   * shard with the smallest total (ties to the lowest index). Returns shard {@code rank}'s tests in
   * assignment order; a size ≤ 0, an empty input or a rank outside {@code [0, size)} gives an empty list.
   * Runs in O(n log n) for n tests whatever the size: only the shards that receive a test exist (a heap of
   * at most n loads), so a huge size costs no memory.
   *
   * @param tests the enabled tests, in any order
   * @param rank the shard index
   * @param size the number of shards
   * @return the shard's tests
   */
  public static List<Registration> shard(List<Registration> tests, int rank, int size) {
    if (size <= 0 || rank < 0 || rank >= size || tests.isEmpty()) {
      return List.of();
    }
    List<Registration> sorted = new ArrayList<>(tests);
    sorted.sort(LPT_ORDER);
    // Shards that hold a test, keyed by (total, index); every shard not yet used has total 0 and an index
    // above all used ones, so the next unused shard competes as (0, nextUnused).
    PriorityQueue<ShardLoad> used = new PriorityQueue<>(SHARD_ORDER);
    int nextUnused = 0;
    List<Registration> mine = new ArrayList<>();
    for (Registration r : sorted) {
      ShardLoad head = used.peek();
      ShardLoad best;
      if (nextUnused < size && (head == null || head.total() > 0)) {
        best = new ShardLoad(0, nextUnused++);
      } else {
        best = used.poll();
      }
      int index = java.util.Objects.requireNonNull(best).index();
      used.add(new ShardLoad(best.total() + r.estTimeSeconds(), index));
      if (index == rank) {
        mine.add(r);
      }
    }
    return List.copyOf(mine);
  }

  /** The running total of one shard. */
  private record ShardLoad(double total, int index) {}

  /** The order in which the old linear scan picks a shard: smallest total, then lowest index. */
  private static final Comparator<ShardLoad> SHARD_ORDER = (a, b) -> {
    if (a.total() < b.total()) {
      return -1;
    }
    if (a.total() > b.total()) {
      return 1;
    }
    return Integer.compare(a.index(), b.index());
  };

  /**
   * The matrix max-parallel of a suite in a cadence: the cadence's GPU cap for GPU suites when it has
   * one (weekly: 1), otherwise the shard count.
   *
   * @param backend the backend
   * @param suite the suite
   * @param cadence the cadence
   * @return at least 1
   */
  public int maxParallel(String backend, String suite, String cadence) {
    Suite s = suite(backend, suite);
    CadenceDefinition c = resolver.cadence(cadence);
    if (isGpuBackend(backend) && c.gpuMaxParallel().isPresent()) {
      return Math.min(s.shards(), c.gpuMaxParallel().get());
    }
    return s.shards();
  }

  /**
   * Plans a suite run.
   *
   * @param backend the backend
   * @param suite the suite
   * @param policy the run policy
   * @param matchAllLabels manual dispatch: GPU stages match every known label
   * @param shard the shard to plan, or empty for the whole suite
   * @return the plan
   * @throws InvalidInputException for an unknown backend or suite, or a shard outside the matrix
   */
  public SuiteRunPlan plan(String backend, String suite, RunPolicy policy, boolean matchAllLabels,
      Optional<SuiteRunPlan.Shard> shard) {
    Selection selection = select(backend, suite, policy, matchAllLabels);
    if (shard.isPresent() && (shard.get().size() < 1 || shard.get().rank() < 0
        || shard.get().rank() >= shard.get().size())) {
      throw new InvalidInputException("Invalid partition " + shard.get().rank() + " of " + shard.get().size()
          + "; expected 0 <= partition-id < partition-size");
    }
    if (shard.isPresent() && shard.get().size() > MAX_SHARDS) {
      throw new InvalidInputException("Invalid partition size " + shard.get().size() + "; expected at most "
          + MAX_SHARDS + " shards");
    }
    List<Registration> run = shard.map(s -> shard(selection.enabled(), s.rank(), s.size()))
        .orElse(selection.enabled());
    Map<String, Long> timeouts = new LinkedHashMap<>();
    double total = 0;
    for (Registration r : run) {
      timeouts.put(r.file(), policy().timeouts().timeoutFor(r.estTimeSeconds()));
      total += r.estTimeSeconds();
    }
    String where = suite + " (" + backend + ")" + shard.map(s -> " shard " + s.rank() + "/" + s.size()).orElse("");
    String message = run.isEmpty()
        ? "No tests matched " + where + " under cadence " + policy.cadence() + "; nothing to run (success)"
        : run.size() + " test(s) selected for " + where + ", about " + Math.round(total) + " s estimated";
    List<Explanation.Reason> reasons = new ArrayList<>();
    reasons.add(new Explanation.Reason("suite.match", "a test is selected when it is not nightly-only (or nightly"
        + " tests are admitted: " + policy.admitNightlyTests() + ") and has no labels or one of "
        + (matchAllLabels && isGpuBackend(backend) ? "every known label (manual dispatch)"
        : "the included labels " + policy.includeLabels())));
    if (!selection.skipped().isEmpty()) {
      reasons.add(new Explanation.Reason("suite.disabled", selection.skipped().size()
          + " matching test(s) are disabled and skipped"));
    }
    shard.ifPresent(s -> reasons.add(new Explanation.Reason("suite.shard", "longest-processing-time sharding"
        + " gives shard " + s.rank() + " " + run.size() + " of " + selection.enabled().size() + " enabled test(s)")));
    return SuiteRunPlan.builder()
        .backend(backend)
        .suite(suite)
        .policyLine(policyLine(policy))
        .shard(shard)
        .addAllEnabled(run.stream().map(Registration::file).toList())
        .addAllSkipped(selection.skipped())
        .continueOnError(policy.bypassFastfail())
        .estTotalSeconds(total)
        .putAllTimeouts(timeouts)
        .maxParallel(maxParallel(backend, suite, policy.cadence()))
        .message(message)
        .explanation(new Explanation(message, reasons, List.of()))
        .build();
  }

  private Policy policy() {
    return policy;
  }

  /**
   * The run policy in one line, as a suite run prints it.
   *
   * @param p the run policy
   * @return e.g. {@code cadence=nightly include=[amd, ckpt] admit_nightly_tests=true bypass_fastfail=true write_baseline=true}
   */
  public static String policyLine(RunPolicy p) {
    return "cadence=" + p.cadence() + " include=" + p.includeLabels() + " admit_nightly_tests="
        + p.admitNightlyTests() + " bypass_fastfail=" + p.bypassFastfail() + " write_baseline=" + p.writeBaseline();
  }

  /**
   * The PR stages of a file's registrations.
   *
   * @param file the file
   * @return PR stage names, possibly empty
   */
  Set<String> prStagesOf(String file) {
    Set<String> out = new HashSet<>();
    for (Registration r : registrationsOf(file)) {
      if (policy.prStages().contains(r.suite())) {
        out.add(r.suite());
      }
    }
    return out;
  }
}
