package dev.cipolicy.benchmarks;

import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.core.PolicyResolver;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
 * Cost of the policy engine's hot paths on the reference policy: resolving a pull-request trigger,
 * a scheduled trigger, a run policy from a cadence and labels, and loading (parsing and statically
 * checking, including the 28-year cron overlap proof) the whole policy document.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PolicyResolutionBenchmark {
  private String policyText = "";
  private PolicyResolver resolver = null;
  private final TriggerInput pullRequest = TriggerInput.builder().eventName("pull_request")
      .prLabels(List.of("run-ci-megatron", "run-ci-image", "bypass-fastfail", "documentation", "run-ci-long"))
      .build();
  private final TriggerInput schedule = TriggerInput.builder().eventName("schedule").schedule("0 15 * * 6").build();
  private final List<String> labels = List.of("run-ci-image", "run-ci-long", "megatron");

  /**
   * Loads the reference policy; the path can be overridden with {@code -Dci.policy=FILE}.
   *
   * @throws IOException when the policy file cannot be read
   */
  @Setup
  public void setUp() throws IOException {
    Path path = Path.of(System.getProperty("ci.policy", "examples/policies/miles.yaml"));
    policyText = Files.readString(path);
    resolver = PolicyLoader.load(path.toString(), policyText).resolver();
  }

  /**
   * Resolves a pull-request trigger with five labels (JSON decoding, canonical filter, scope rules).
   *
   * @return the resolution
   */
  @Benchmark
  public TriggerResolution resolvePullRequest() {
    return resolver.resolve(pullRequest);
  }

  /**
   * Resolves a scheduled trigger (exact cron lookup, full scope).
   *
   * @return the resolution
   */
  @Benchmark
  public TriggerResolution resolveSchedule() {
    return resolver.resolve(schedule);
  }

  /**
   * Resolves a run policy from a cadence and raw labels.
   *
   * @return the run policy
   */
  @Benchmark
  public RunPolicy resolveRunPolicy() {
    return resolver.resolveCadence("nightly", labels);
  }

  /**
   * Parses and statically checks the whole reference policy.
   *
   * @return the loaded policy
   */
  @Benchmark
  public LoadedPolicy loadAndCheckPolicy() {
    return PolicyLoader.load("miles.yaml", policyText);
  }
}
