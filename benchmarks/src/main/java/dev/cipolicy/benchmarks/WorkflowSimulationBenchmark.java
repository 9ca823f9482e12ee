package dev.cipolicy.benchmarks;

import dev.cipolicy.workflow.load.WorkflowLoader;
import dev.cipolicy.workflow.Event;
import dev.cipolicy.workflow.InjectedResult;
import dev.cipolicy.workflow.JobResult;
import dev.cipolicy.workflow.Scenario;
import dev.cipolicy.workflow.Simulation;
import dev.cipolicy.workflow.WorkflowSimulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of simulating one scenario of the example workflows: the fixed GPU pipeline of
 * {@code examples/workflows/model/fixed.yml} on a nightly whose CPU stage fails with the fast-fail gate
 * bypassed (every job decided, the reasons built), the same scenario on the buggy variant, and a labelled
 * pull request on {@code examples/workflows/pr-test.yml}; plus the exhaustive mode of the fixed pipeline.
 * The workflows are read once, in setup; the simulator is built once too (it is immutable).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class WorkflowSimulationBenchmark {
  private WorkflowSimulator fixed =
      WorkflowSimulator.of(WorkflowLoader.load("placeholder.yml", "on: push\njobs:\n  a:\n    runs-on: x\n"));
  private WorkflowSimulator buggy = fixed;
  private WorkflowSimulator prTest = fixed;
  private Scenario nightlyCpuFails = Scenario.of(Event.named("push"));
  private Scenario nightly = nightlyCpuFails;
  private Scenario labelledPullRequest = nightlyCpuFails;

  /**
   * Reads the three workflows (the examples directory can be moved with {@code -Dci.examples=DIR}) and
   * checks that each scenario decides every job, so that the measured path is the whole one.
   *
   * @throws IOException when a workflow cannot be read
   */
  @Setup
  public void setUp() throws IOException {
    Path examples = Path.of(System.getProperty("ci.examples", "examples/workflows"));
    fixed = simulator(examples.resolve("model/fixed.yml"));
    buggy = simulator(examples.resolve("model/buggy.yml"));
    prTest = simulator(examples.resolve("pr-test.yml"));
    nightly = Scenario.of(new Event("schedule", Optional.empty(), Optional.of("0 15 * * 0-5"), Map.of(), List.of(),
            Optional.empty()))
        .withOutput("policy", "cadence", "nightly")
        .withOutput("policy", "labels", "")
        .withOutput("policy", "bypass_fastfail", "true")
        .withOutput("policy", "skipped_stages", "[]");
    nightlyCpuFails = nightly.withResult("stage-a-cpu", InjectedResult.FAILURE);
    labelledPullRequest = Scenario.of(new Event("pull_request", Optional.of("labeled"), Optional.empty(), Map.of(),
            List.of("run-ci-lora", "bypass-fastfail"), Optional.empty()))
        .withOutput("resolve-ci-policy", "cadence", "regular")
        .withOutput("resolve-ci-policy", "raw_labels", "run-ci-lora bypass-fastfail")
        .withOutput("resolve-ci-policy", "bypass_fastfail", "true")
        .withOutput("resolve-ci-policy", "skipped_stages", "[\"stage-b-2-gpu-h200\"]");
    require(fixed.simulate(nightlyCpuFails), "stage-c-gpu", "success");
    require(buggy.simulate(nightlyCpuFails), "stage-c-gpu", "skipped");
    Simulation pr = prTest.simulate(labelledPullRequest);
    if (pr.jobs().stream().anyMatch(j -> j.result() == JobResult.UNKNOWN)) {
      throw new IllegalStateException("pr-test.yml: a job is unknown in the benchmark's scenario: " + pr.jobs());
    }
  }

  private static WorkflowSimulator simulator(Path file) throws IOException {
    return WorkflowSimulator.of(WorkflowLoader.load(file.toString(), Files.readString(file)));
  }

  private static void require(Simulation s, String job, String result) {
    if (!s.result(job).word().equals(result)) {
      throw new IllegalStateException("expected " + job + " " + result + ", got " + s.job(job));
    }
  }

  /**
   * Simulates the fixed pipeline on a nightly whose CPU stage fails, the gate bypassed: six jobs, the GPU
   * stages still run.
   *
   * @return the simulation
   */
  @Benchmark
  public Simulation simulateFixedExample() {
    return fixed.simulate(nightlyCpuFails);
  }

  /**
   * The same scenario on the buggy pipeline: the image resolution and the GPU stages are skipped.
   *
   * @return the simulation
   */
  @Benchmark
  public Simulation simulateBuggyExample() {
    return buggy.simulate(nightlyCpuFails);
  }

  /**
   * Simulates {@code pr-test.yml} on a labelled pull request with its policy job's outputs given.
   *
   * @return the simulation
   */
  @Benchmark
  public Simulation simulatePrTestExample() {
    return prTest.simulate(labelledPullRequest);
  }

  /**
   * Every failure subset of the fixed pipeline's jobs on a nightly with the gate bypassed.
   *
   * @return the simulations
   */
  @Benchmark
  public List<Simulation> exhaustiveFixedExample() {
    return fixed.exhaustive(nightly);
  }
}
