package dev.cipolicy.benchmarks.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Structural facts of a small fleet simulation (two days, the reference policy and inventory): both setups run
 * every test exactly once, never hold more GPUs of a pool than it has, the queue never leases a device twice,
 * makespans are at least the longest single test, utilization stays within 0 and 1, and a seed gives the same
 * report every time. No timing is measured here; the figures are the harness's (docs/fleet-simulation.md).
 */
class FleetSimulationTest {
  private static FleetSimulation.Config config(long seed, double sigma) {
    return config(seed, sigma, false);
  }

  private static FleetSimulation.Config config(long seed, double sigma, boolean longestFirst) {
    return new FleetSimulation.Config(seed, 2, 0.5, sigma, 60, Path.of("../examples/policies/miles.yaml"),
        Path.of("../examples/registrations/reference-inventory.json"), longestFirst);
  }

  @Test
  void theFleetIsTheHostsOfThePolicysFleetSection() throws IOException {
    FleetSimulation.Result r = FleetSimulation.simulate(config(3, 0.25));
    assertThat(r.workload().hosts).extracting(h -> h.name() + "=" + h.layout().name()).containsExactly(
        "h100-0=h100-whole", "h100-1=h100-whole", "h200-0=h200-split", "h200-1=h200-whole", "b200-0=b200-whole",
        "mi350-0=mi350-node");
    assertThat(r.workload().fleetGpus()).isEqualTo(48);
    assertThat(r.workload().runs).extracting(Workload.Run::cadence).contains("weekly", "nightly", "regular");
  }

  @ParameterizedTest(name = "longest first: {0}")
  @ValueSource(booleans = {false, true})
  void everyTestRunsExactlyOnceInBothSetupsWithinThePoolsGpus(boolean longestFirst) throws IOException {
    FleetSimulation.Result r = FleetSimulation.simulate(config(3, 0.25, longestFirst));
    Workload w = r.workload();
    assertThat(w.tests).hasSizeGreaterThan(100);
    for (Outcome o : List.of(r.a(), r.b(), r.bs())) {
      for (Workload.Test t : w.tests) {
        assertThat(o.timesRun[t.id()]).as("%s: times %s ran", o.setup, t).isEqualTo(1);
        assertThat(o.start[t.id()]).as("%s: %s starts after its run's trigger", o.setup, t)
            .isGreaterThanOrEqualTo(w.runs.get(t.run()).at());
        assertThat(o.end[t.id()] - o.start[t.id()]).isEqualTo(t.actual());
      }
      for (Map.Entry<String, Integer> pool : w.poolGpus.entrySet()) {
        assertThat(peakGpus(w, o, pool.getKey())).as("%s: GPUs of %s in use at once", o.setup, pool.getKey())
            .isLessThanOrEqualTo(pool.getValue());
      }
      for (Workload.Run run : w.runs) {
        long longest = run.tests().stream().mapToLong(Workload.Test::actual).max().orElse(0);
        assertThat(o.makespan(run)).as("%s: makespan of %s", o.setup, run.what()).isGreaterThanOrEqualTo(longest);
        assertThat(LowerBound.of(w, run)).isGreaterThanOrEqualTo(longest);
        assertThat(o.makespan(run)).as("%s: makespan of %s against its physical lower bound", o.setup, run.what())
            .isGreaterThanOrEqualTo(LowerBound.of(w, run));
      }
      assertThat(FleetSimulation.utilization(r, o)).isGreaterThan(0).isLessThanOrEqualTo(1);
      assertThat(FleetSimulation.nightlyWindowUtilization(r, o)).isGreaterThan(0).isLessThanOrEqualTo(1);
    }
    for (Workload.Run run : w.runs) {
      assertThat(LowerBound.withinShares(w, r.policy(), run)).as("bound of %s held to its shares", run.what())
          .isGreaterThanOrEqualTo(LowerBound.of(w, run));
      if (run.cadence().equals("weekly")) {
        // the weekly's shares do not borrow, so no schedule that holds them beats the bound held to them
        assertThat(r.bs().makespan(run)).as("(b'): makespan of %s against its bound held to its shares", run.what())
            .isGreaterThanOrEqualTo(LowerBound.withinShares(w, r.policy(), run))
            .isGreaterThan(LowerBound.of(w, run));
      }
    }
    assertThat(r.b().doubleBookings).isZero();
    assertThat(r.bs().doubleBookings).isZero();
    assertThat(r.b().jobs).isEqualTo(w.tests.size());
    assertThat(r.bs().jobs).isEqualTo(w.tests.size());
    assertThat(r.a().jobs).isLessThan(w.tests.size());
  }

  @Test
  void withExactEstimatesNoEightGpuHeadWaitsPastTheReservationBound() throws IOException {
    FleetSimulation.Result r = FleetSimulation.simulate(config(5, 0));
    assertThat(r.b().boundChecks).isPositive();
    assertThat(r.b().boundViolations).isZero();
    assertThat(r.b().actualBoundViolations).isZero();
    assertThat(r.bs().boundChecks).isPositive();
    assertThat(r.bs().boundViolations).as("heads past the bound that their own share did not refuse").isZero();
    assertThat(r.bs().actualBoundViolations).isZero();
  }

  @Test
  void withThePolicysSharesTheWeeklyHoldsOneRunnerOfEachPoolAndWithoutThemMore() throws IOException {
    FleetSimulation.Result r = FleetSimulation.simulate(config(3, 0.25));
    assertThat(r.bs().weeklyPeak).isNotEmpty();
    r.bs().weeklyPeak.forEach((pool, peak) -> assertThat(peak[0]).as("weekly jobs at once on %s", pool).isEqualTo(1));
    assertThat(FleetSimulation.withinShare(r, r.bs())).isEqualTo("yes");
    assertThat(r.b().weeklyPeak.get("h200")[0]).isGreaterThan(1);
    assertThat(FleetSimulation.withinShare(r, r.b())).startsWith("no, above on");
  }

  @Test
  void aSeedGivesTheSameReportAndAnotherSeedAnotherOne() throws IOException {
    String once = FleetSimulation.table(FleetSimulation.simulate(config(11, 0.25)));
    assertThat(FleetSimulation.table(FleetSimulation.simulate(config(11, 0.25)))).isEqualTo(once);
    assertThat(FleetSimulation.table(FleetSimulation.simulate(config(12, 0.25)))).isNotEqualTo(once);
    assertThat(once).contains("| nightly makespan, mean |", "| weekly makespan, mean |", "| devices leased twice | — | 0 | 0 |");
  }

  /** The most GPUs of a pool held at once, from the recorded start and end of every test (ends first on a tie). */
  private static int peakGpus(Workload w, Outcome o, String pool) {
    List<long[]> edges = new ArrayList<>();
    for (Workload.Test t : w.tests) {
      if (t.pool().equals(pool)) {
        edges.add(new long[] {o.start[t.id()], 1, t.gpus()});
        edges.add(new long[] {o.end[t.id()], 0, -t.gpus()});
      }
    }
    edges.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    int now = 0;
    int peak = 0;
    for (long[] e : edges) {
      now += (int) e[2];
      peak = Math.max(peak, now);
    }
    return peak;
  }
}
