package dev.cipolicy.workflow;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What happens in a simulated run: the event, the outputs jobs set, and the result of each job that runs
 * (a job that runs without one succeeds; a result for a job that is skipped is ignored).
 *
 * @param event the triggering event
 * @param outputs per job id, the outputs it sets ({@code needs.X.outputs.K}); an output the workflow declares
 *     but the scenario does not give is unknown
 * @param results per job id, its result when it runs
 * @param legResults per matrix job id, one result per leg (overrides {@code results} for that job)
 * @param runCancelled whether the run is cancelled ({@code cancelled()} is true)
 */
public record Scenario(Event event, Map<String, Map<String, String>> outputs, Map<String, InjectedResult> results,
    Map<String, List<InjectedResult>> legResults, boolean runCancelled) {
  /** Copies the maps. */
  public Scenario {
    Map<String, Map<String, String>> o = new HashMap<>();
    outputs.forEach((k, v) -> o.put(k, Map.copyOf(v)));
    outputs = Map.copyOf(o);
    results = Map.copyOf(results);
    Map<String, List<InjectedResult>> l = new HashMap<>();
    legResults.forEach((k, v) -> l.put(k, List.copyOf(v)));
    legResults = Map.copyOf(l);
  }

  /**
   * A scenario in which every job that runs succeeds.
   *
   * @param event the event
   * @return the scenario
   */
  public static Scenario of(Event event) {
    return new Scenario(event, Map.of(), Map.of(), Map.of(), false);
  }

  /**
   * This scenario with one more job result.
   *
   * @param job the job id
   * @param result its result when it runs
   * @return the new scenario
   */
  public Scenario withResult(String job, InjectedResult result) {
    Map<String, InjectedResult> r = new HashMap<>(results);
    r.put(job, result);
    return new Scenario(event, outputs, r, legResults, runCancelled);
  }

  /**
   * This scenario with one more job output.
   *
   * @param job the job id
   * @param key the output name
   * @param value its value
   * @return the new scenario
   */
  public Scenario withOutput(String job, String key, String value) {
    Map<String, Map<String, String>> o = new HashMap<>(outputs);
    Map<String, String> m = new HashMap<>(o.getOrDefault(job, Map.of()));
    m.put(key, value);
    o.put(job, m);
    return new Scenario(event, o, results, legResults, runCancelled);
  }

  /**
   * This scenario with per-leg results for a matrix job.
   *
   * @param job the job id
   * @param legs one result per leg
   * @return the new scenario
   */
  public Scenario withLegResults(String job, List<InjectedResult> legs) {
    Map<String, List<InjectedResult>> l = new HashMap<>(legResults);
    l.put(job, legs);
    return new Scenario(event, outputs, results, l, runCancelled);
  }

  /**
   * This scenario with the run cancelled or not.
   *
   * @param cancelled whether the run is cancelled
   * @return the new scenario
   */
  public Scenario withRunCancelled(boolean cancelled) {
    return new Scenario(event, outputs, results, legResults, cancelled);
  }
}
