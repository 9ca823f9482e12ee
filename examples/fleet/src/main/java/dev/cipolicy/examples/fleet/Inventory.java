package dev.cipolicy.examples.fleet;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.core.SuitePlanner;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.DocumentFormat;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.core.load.RegistrationLoader;
import dev.cipolicy.fleet.server.FleetView;
import dev.cipolicy.queue.JobPlanner;
import dev.cipolicy.queue.SuiteJobs;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Request;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The reference policy ({@code examples/policies/miles.yaml}) and inventory
 * ({@code examples/registrations/reference-inventory.json}), bundled in the jar, planned into queue jobs: a
 * master or try request runs the regular cadence, a nightly request (a release tag {@code nightly-...}) the
 * nightly cadence, every stage selected and every label matched (so master runs the GPU suites too). Estimates are scaled by the fleet's time scale, so that the queue's
 * reservations and the page's ETAs live in the same (scaled) time as the simulated jobs.
 */
public final class Inventory {
  /** The repository of the fleet's CI runs (its nightlies). */
  public static final String REPOSITORY = "example/fleet";

  private static final StageSelection EVERY_STAGE = new StageSelection(List.of(), List.of(), Optional.empty(),
      new Explanation("the fleet example runs every stage", List.of(), List.of()));

  private final Policy policy;
  private final List<PlannedJob> regular;
  private final List<PlannedJob> nightly;

  private Inventory(Policy policy, List<PlannedJob> regular, List<PlannedJob> nightly) {
    this.policy = policy;
    this.regular = regular;
    this.nightly = nightly;
  }

  /**
   * Loads the bundled reference policy and inventory.
   *
   * @return the inventory
   */
  public static Inventory reference() {
    LoadedPolicy loaded = PolicyLoader.load("miles.yaml", resource("miles.yaml"));
    SuiteRegistry registry = RegistrationLoader.load("reference-inventory.json", resource("reference-inventory.json"),
        DocumentFormat.fromFileName("reference-inventory.json"), loaded.resolver());
    SuitePlanner planner = SuitePlanner.of(registry);
    RunPolicy regularRun = loaded.resolver().resolveCadence("regular", List.of());
    RunPolicy nightlyRun = loaded.resolver().resolveCadence("nightly", List.of());
    // Master and try runs test every label (as a manual dispatch with all labels would): the GPU suites too.
    return new Inventory(loaded.policy(), planner.plan(regularRun, true, EVERY_STAGE),
        planner.plan(nightlyRun, true, EVERY_STAGE));
  }

  private static String resource(String name) {
    try (InputStream in = Inventory.class.getResourceAsStream("/fleet/" + name)) {
      if (in == null) {
        throw new IllegalStateException("the fleet example's jar lacks /fleet/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The policy.
   *
   * @return the loaded policy
   */
  public Policy policy() {
    return policy;
  }

  /**
   * The cadence a request runs: its CI run's cadence (a nightly is a CI run of cadence {@code nightly}), else
   * {@code regular}.
   *
   * @param request a request
   * @return the cadence name
   */
  public static String cadenceOf(Request request) {
    return FleetView.cadenceOf(request);
  }

  /**
   * The job specs of a cadence, with estimates scaled.
   *
   * @param cadence {@code regular} or {@code nightly}
   * @param scale simulated seconds per real second of the estimate (e.g. 0.01)
   * @return the specs
   */
  public List<JobSpec> specs(String cadence, double scale) {
    List<PlannedJob> planned = "nightly".equals(cadence) ? nightly : regular;
    // Each job carries its run's cadence, which the store's fleet shares cap.
    return SuiteJobs.specs(planned, cadence).stream().map(s -> s.withGpus(s.gpus(), scaled(s.estimate(), scale)))
        .toList();
  }

  /**
   * The planner of the fleet's requests.
   *
   * @param scale the time scale of the estimates
   * @return the planner
   */
  public JobPlanner planner(double scale) {
    List<JobSpec> regularSpecs = specs("regular", scale);
    List<JobSpec> nightlySpecs = specs("nightly", scale);
    return request -> "nightly".equals(cadenceOf(request)) ? nightlySpecs : regularSpecs;
  }

  /**
   * The fleet shares of the policy.
   *
   * @return the shares
   */
  public List<FleetShare> shares() {
    return policy.fleetShares();
  }

  static Duration scaled(Duration d, double scale) {
    return Duration.ofNanos(Math.max(1_000_000L, Math.round(d.toNanos() * scale)));
  }
}
