package dev.cipolicy.benchmarks;

import dev.cipolicy.workflow.load.WorkflowLoader;
import dev.cipolicy.workflow.Event;
import dev.cipolicy.workflow.InjectedResult;
import dev.cipolicy.workflow.JobResult;
import dev.cipolicy.workflow.Scenario;
import dev.cipolicy.workflow.Simulation;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.WorkflowSimulator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of the workflow simulator's exhaustive mode, and how it grows with the number of jobs that can fail:
 * a generated workflow of N jobs, every one of which runs whatever the others did, so that exhaustive mode
 * simulates all 2^N failure subsets.
 *
 * <p>The generated workflow has the shape of a staged test pipeline: {@code job-0} (the policy job) declares
 * the outputs {@code bypass} and {@code skipped}; each later {@code job-k} needs {@code job-0} and
 * {@code job-(k-1)}, so its transitive {@code needs} closure is every earlier job, and runs when
 * <code>!cancelled() &amp;&amp; (needs.job-(k-1).result == 'success' || needs.job-0.outputs.bypass == 'true')
 * &amp;&amp; !contains(needs.job-0.outputs.skipped, 'job-k')</code>. With {@code bypass} true and nothing skipped
 * every job runs in every combination. The workflow is generated as YAML text and read by
 * {@link WorkflowLoader} in setup, which also checks the number of simulations.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class WorkflowExhaustiveBenchmark {
  /** The number of jobs, all of which can fail: 2^jobs simulations per operation. */
  @Param({"4", "8", "10", "12", "14"})
  public int jobs;

  private WorkflowSimulator simulator = WorkflowSimulator.of(generate(1));
  private Scenario base = Scenario.of(Event.named("push"));
  private Scenario allFail = base;

  /** Generates and reads the workflow, and checks that exhaustive mode gives 2^jobs simulations. */
  @Setup
  public void setUp() {
    simulator = WorkflowSimulator.of(generate(jobs));
    base = Scenario.of(Event.named("push")).withOutput("job-0", "bypass", "true").withOutput("job-0", "skipped", "");
    Scenario s = base;
    for (int k = 0; k < jobs; k++) {
      s = s.withResult("job-" + k, InjectedResult.FAILURE);
    }
    allFail = s;
    List<Simulation> all = simulator.exhaustive(base);
    if (all.size() != 1 << jobs) {
      throw new IllegalStateException("expected " + (1 << jobs) + " simulations, got " + all.size());
    }
    Simulation failed = simulator.simulate(allFail);
    if (failed.jobs().stream().anyMatch(j -> j.result() != JobResult.FAILURE)) {
      throw new IllegalStateException("with every job failing, every job should run and fail: " + failed.jobs());
    }
  }

  /**
   * A workflow of {@code n} jobs as YAML text, read by the workflow loader.
   *
   * @param n the number of jobs, at least 1
   * @return the workflow
   */
  public static Workflow generate(int n) {
    StringBuilder y = new StringBuilder("name: generated\non:\n  push:\njobs:\n");
    y.append("  job-0:\n    runs-on: ubuntu-latest\n    outputs:\n")
        .append("      bypass: ${{ steps.resolve.outputs.bypass }}\n")
        .append("      skipped: ${{ steps.resolve.outputs.skipped }}\n")
        .append("    steps:\n      - id: resolve\n        run: ./resolve\n");
    for (int k = 1; k < n; k++) {
      String id = "job-" + k;
      String previous = "job-" + (k - 1);
      y.append("  ").append(id).append(":\n");
      y.append("    needs: ").append(k == 1 ? "[job-0]" : "[job-0, " + previous + "]").append('\n');
      y.append("    if: ${{ !cancelled() && (needs.").append(previous).append(".result == 'success'")
          .append(" || needs.job-0.outputs.bypass == 'true') && !contains(needs.job-0.outputs.skipped, '")
          .append(id).append("') }}\n");
      y.append("    runs-on: [self-hosted, gpu]\n    steps:\n      - run: ./run-suite ").append(id).append('\n');
    }
    return WorkflowLoader.load("generated-" + n + ".yml", y.toString());
  }

  /**
   * Every failure subset of the generated workflow's jobs: 2^jobs simulations.
   *
   * @return the simulations
   */
  @Benchmark
  public List<Simulation> exhaustive() {
    return simulator.exhaustive(base);
  }

  /**
   * One scenario of the generated workflow, every job failing (every job runs and every reason is built).
   *
   * @return the simulation
   */
  @Benchmark
  public Simulation simulateOne() {
    return simulator.simulate(allFail);
  }
}
