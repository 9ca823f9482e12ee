package dev.cipolicy.benchmarks.fleet;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.HostLayout;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.RunnerPool;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.core.SuitePlanner;
import dev.cipolicy.core.SuiteRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * What the fleet runs in a simulation: the hosts the policy's {@code fleet:} section describes, and the runs
 * (weekly, nightly, pull requests) with every GPU test's estimate and its drawn actual duration. Both setups
 * run exactly these tests with exactly these durations. Times are milliseconds from the simulation's start, a
 * Saturday 00:00 UTC.
 */
final class Workload {
  static final long HOUR = 3_600_000L;
  static final long DAY = 24 * HOUR;
  static final String[] WEEKDAYS = {"Sat", "Sun", "Mon", "Tue", "Wed", "Thu", "Fri"};
  private static final StageSelection NOTHING_SKIPPED = new StageSelection(List.of(), List.of(), Optional.empty(),
      new Explanation("the simulation prunes no stage", List.of(), List.of()));

  /** One physical 8-GPU host: its name (also its collector's), pool and the policy's host layout. */
  record Host(String name, String pool, HostLayout layout) {}

  /** One GPU test of one run, with its estimate and its actual duration. */
  record Test(int id, int run, String backend, String suite, String file, int gpus, String pool, long estimate,
      long actual) {}

  /**
   * One suite of one run: its shards as the policy's LPT sharding gives them (tests in run order), the matrix's
   * max-parallel and the host layout its runners use.
   */
  record SuiteRun(int run, String backend, String suite, int gpus, String pool, String layout,
      List<List<Test>> shards, int maxParallel) {}

  /** A run: its cadence, trigger instant and suites. */
  record Run(int id, String cadence, long at, List<SuiteRun> suites, List<Test> tests, String what) {}

  final List<Host> hosts;
  final List<Run> runs;
  final List<Test> tests;
  final Map<String, Integer> poolGpus;

  private Workload(List<Host> hosts, List<Run> runs, List<Test> tests, Map<String, Integer> poolGpus) {
    this.hosts = hosts;
    this.runs = runs;
    this.tests = tests;
    this.poolGpus = poolGpus;
  }

  /**
   * The hosts of the policy's fleet: each pool's GPUs in 8-GPU hosts, given the layouts its suites name. A pool
   * whose suites name as many layouts as it has hosts gets one host of each (h200: the split node and the whole
   * one); a pool whose suites name one layout gets all its hosts in it (h100: two whole nodes).
   */
  static List<Host> hosts(Policy policy) {
    List<Host> hosts = new ArrayList<>();
    for (RunnerPool pool : policy.pools()) {
      List<String> layouts = new ArrayList<>();
      for (Backend b : policy.backends()) {
        for (Suite s : b.suites()) {
          if (s.pool().equals(Optional.of(pool.name())) && s.host().isPresent() && !layouts.contains(s.host().get())) {
            layouts.add(s.host().get());
          }
        }
      }
      int count = pool.gpus() / 8;
      if (pool.gpus() % 8 != 0 || layouts.isEmpty() || (layouts.size() != 1 && layouts.size() != count)) {
        throw new IllegalStateException("pool " + pool.name() + " (" + pool.gpus() + " GPUs, layouts " + layouts
            + ") does not map onto 8-GPU hosts");
      }
      for (int i = 0; i < count; i++) {
        String layoutName = layouts.get(layouts.size() == 1 ? 0 : i);
        HostLayout layout = policy.hosts().stream().filter(h -> h.name().equals(layoutName)).findFirst()
            .orElseThrow(() -> new IllegalStateException("no host layout " + layoutName));
        hosts.add(new Host(pool.name() + "-" + i, pool.name(), layout));
      }
    }
    return List.copyOf(hosts);
  }

  /**
   * Builds the workload: on each simulated day the scheduled run at 15:00 UTC (weekly on Saturdays, nightly
   * otherwise), and pull-request runs arriving as a Poisson process all day, each requesting one to three
   * domain labels chosen uniformly.
   */
  static Workload build(SuiteRegistry registry, long seed, int days, double prPerHour, double sigma) {
    Policy policy = registry.resolver().policy();
    Random random = new Random(seed);
    List<Host> hosts = hosts(policy);
    Map<String, Integer> poolGpus = new LinkedHashMap<>();
    for (Host h : hosts) {
      poolGpus.merge(h.pool(), h.layout().gpus(), Integer::sum);
    }
    List<long[]> arrivals = new ArrayList<>(); // {at, kind (0 scheduled, 1 PR)}
    for (int d = 0; d < days; d++) {
      arrivals.add(new long[] {d * DAY + 15 * HOUR, 0});
    }
    if (prPerHour > 0) {
      double t = 0;
      while (true) {
        t += -Math.log(1 - random.nextDouble()) / prPerHour * HOUR;
        if (t >= days * DAY) {
          break;
        }
        arrivals.add(new long[] {(long) t, 1});
      }
    }
    arrivals.sort((x, y) -> Long.compare(x[0], y[0]));
    List<String> labels = policy.knownLabels();
    List<Run> runs = new ArrayList<>();
    List<Test> tests = new ArrayList<>();
    for (long[] a : arrivals) {
      int id = runs.size();
      String cadence;
      List<String> raw = new ArrayList<>();
      String what;
      if (a[1] == 0) {
        int weekday = (int) ((a[0] / DAY) % 7);
        cadence = weekday == 0 ? "weekly" : "nightly";
        what = cadence + " " + WEEKDAYS[weekday];
      } else {
        cadence = "regular";
        int k = 1 + random.nextInt(3);
        List<String> pool = new ArrayList<>(labels);
        for (int i = 0; i < k; i++) {
          raw.add(policy.labelPrefix() + pool.remove(random.nextInt(pool.size())));
        }
        what = "PR " + raw;
      }
      RunPolicy run = registry.resolver().resolveCadence(cadence, raw);
      List<PlannedJob> planned = SuitePlanner.of(registry).plan(run, NOTHING_SKIPPED);
      Map<String, List<PlannedJob>> bySuite = new LinkedHashMap<>();
      for (PlannedJob j : planned) {
        if (j.gpus() > 0) {
          bySuite.computeIfAbsent(j.backend() + "/" + j.suite(), x -> new ArrayList<>()).add(j);
        }
      }
      List<SuiteRun> suites = new ArrayList<>();
      List<Test> runTests = new ArrayList<>();
      for (List<PlannedJob> jobs : bySuite.values()) {
        PlannedJob first = jobs.get(0);
        Map<String, Registration> byFile = new HashMap<>();
        for (Registration r : registry.select(first.backend(), first.suite(), run, false).enabled()) {
          byFile.put(r.file(), r);
        }
        Suite suite = registry.suite(first.backend(), first.suite());
        List<List<Test>> shards = new ArrayList<>();
        for (PlannedJob j : jobs) {
          List<Test> shard = new ArrayList<>();
          for (String file : j.tests()) {
            long estimate = Math.round(byFile.get(file).estTimeSeconds() * 1000);
            long actual = Math.max(1, Math.round(estimate * Math.exp(sigma * random.nextGaussian())));
            Test t = new Test(tests.size(), id, j.backend(), j.suite(), file, j.gpus(), j.pool().orElseThrow(),
                estimate, actual);
            tests.add(t);
            shard.add(t);
            runTests.add(t);
          }
          shards.add(List.copyOf(shard));
        }
        suites.add(new SuiteRun(id, first.backend(), first.suite(), first.gpus(), first.pool().orElseThrow(),
            suite.host().orElseThrow(), List.copyOf(shards),
            registry.maxParallel(first.backend(), first.suite(), cadence)));
      }
      runs.add(new Run(id, cadence, a[0], List.copyOf(suites), List.copyOf(runTests), what));
    }
    return new Workload(hosts, List.copyOf(runs), List.copyOf(tests), poolGpus);
  }

  int fleetGpus() {
    return poolGpus.values().stream().mapToInt(Integer::intValue).sum();
  }
}
