package dev.cipolicy.benchmarks.fleet;

import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.core.load.RegistrationLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A discrete-event simulation, in simulated time (nothing sleeps, no clock of the machine is read), of the
 * reference GPU fleet under the reference test inventory: (a) today's static runners per label against (b) the
 * job queue, on the same hosts, with the same runs and the same drawn test durations. Prints a Markdown table.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.cipolicy.benchmarks.fleet.FleetSimulation --seed=1 --days=7
 * </pre>
 *
 * <p>Arguments ({@code --name=value}): {@code seed} (1), {@code days} (7, starting on a Saturday),
 * {@code pr-rate} (pull-request runs per hour, 0.5), {@code sigma} (the lognormal spread of actual durations
 * around the estimates, 0.25), {@code claim-interval} (seconds, 60), {@code policy}
 * ({@code examples/policies/miles.yaml}) and {@code registrations}
 * ({@code examples/registrations/reference-inventory.json}). See docs/fleet-simulation.md.
 */
public final class FleetSimulation {
  private FleetSimulation() {}

  /**
   * The simulation's inputs.
   *
   * @param seed the seed of arrivals, labels and durations
   * @param days simulated days, the first a Saturday
   * @param prPerHour pull-request runs per hour (Poisson)
   * @param sigma the lognormal sigma of actual durations around the estimates
   * @param claimIntervalSeconds the collectors' claim interval
   * @param policy the policy file
   * @param registrations the registrations file
   */
  public record Config(long seed, int days, double prPerHour, double sigma, long claimIntervalSeconds, Path policy,
      Path registrations) {
    /** The defaults: seed 1, 7 days, 0.5 PR runs an hour, sigma 0.25, 60 s claims, the reference files. */
    public static Config defaults() {
      return new Config(1, 7, 0.5, 0.25, 60, Path.of("examples/policies/miles.yaml"),
          Path.of("examples/registrations/reference-inventory.json"));
    }
  }

  /**
   * Both setups' outcomes for one workload.
   *
   * @param workload the runs and hosts
   * @param policy the policy (for its fleet shares)
   * @param a today's static runners
   * @param b the job queue
   * @param config the inputs
   */
  record Result(Workload workload, Policy policy, Outcome a, Outcome b, Config config) {}

  /**
   * Runs the simulation and prints its table.
   *
   * @param args {@code --name=value} arguments, see the class comment
   * @throws IOException when the policy or registrations cannot be read
   */
  public static void main(String[] args) throws IOException {
    Config c = Config.defaults();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        System.err.println("expected --name=value, got " + arg);
        System.exit(2);
      }
      String name = arg.substring(2, eq);
      String v = arg.substring(eq + 1);
      try {
        c = switch (name) {
          case "seed" -> new Config(Long.parseLong(v), c.days(), c.prPerHour(), c.sigma(), c.claimIntervalSeconds(),
              c.policy(), c.registrations());
          case "days" -> new Config(c.seed(), Integer.parseInt(v), c.prPerHour(), c.sigma(), c.claimIntervalSeconds(),
              c.policy(), c.registrations());
          case "pr-rate" -> new Config(c.seed(), c.days(), Double.parseDouble(v), c.sigma(), c.claimIntervalSeconds(),
              c.policy(), c.registrations());
          case "sigma" -> new Config(c.seed(), c.days(), c.prPerHour(), Double.parseDouble(v), c.claimIntervalSeconds(),
              c.policy(), c.registrations());
          case "claim-interval" -> new Config(c.seed(), c.days(), c.prPerHour(), c.sigma(), Long.parseLong(v),
              c.policy(), c.registrations());
          case "policy" -> new Config(c.seed(), c.days(), c.prPerHour(), c.sigma(), c.claimIntervalSeconds(),
              Path.of(v), c.registrations());
          case "registrations" -> new Config(c.seed(), c.days(), c.prPerHour(), c.sigma(), c.claimIntervalSeconds(),
              c.policy(), Path.of(v));
          default -> throw new NumberFormatException("unknown argument --" + name);
        };
      } catch (NumberFormatException e) {
        System.err.println("bad argument " + arg + ": " + e.getMessage());
        System.exit(2);
      }
    }
    if (c.days() < 1 || c.prPerHour() < 0 || c.sigma() < 0 || c.claimIntervalSeconds() < 1) {
      System.err.println("expected days >= 1, pr-rate >= 0, sigma >= 0, claim-interval >= 1");
      System.exit(2);
    }
    System.out.print(table(simulate(c)));
  }

  /** Loads the inputs, builds the workload and runs both setups on it. */
  static Result simulate(Config c) throws IOException {
    LoadedPolicy policy = PolicyLoader.load(c.policy().getFileName().toString(), Files.readString(c.policy()));
    SuiteRegistry registry = RegistrationLoader.load(c.registrations().getFileName().toString(),
        Files.readString(c.registrations()), policy.resolver());
    Workload w = Workload.build(registry, c.seed(), c.days(), c.prPerHour(), c.sigma());
    Outcome a = StaticFleet.run(w, c.seed());
    Outcome b = QueueFleet.run(w, c.claimIntervalSeconds() * 1000);
    return new Result(w, policy.policy(), a, b, c);
  }

  private static List<Long> makespans(Result r, Outcome o, String cadence) {
    List<Long> m = new ArrayList<>();
    for (Workload.Run run : r.workload().runs) {
      if (run.cadence().equals(cadence) && !run.tests().isEmpty()) {
        m.add(o.makespan(run));
      }
    }
    return m;
  }

  private static List<Long> poolMakespans(Result r, Outcome o, String cadence, String pool) {
    List<Long> m = new ArrayList<>();
    for (Workload.Run run : r.workload().runs) {
      if (run.cadence().equals(cadence) && run.tests().stream().anyMatch(t -> t.pool().equals(pool))) {
        m.add(o.makespan(run, pool));
      }
    }
    return m;
  }

  static double mean(List<Long> xs) {
    return xs.stream().mapToLong(Long::longValue).average().orElse(Double.NaN);
  }

  static long percentile(List<Long> xs, double p) {
    if (xs.isEmpty()) {
      return -1;
    }
    List<Long> s = new ArrayList<>(xs);
    Collections.sort(s);
    int rank = (int) Math.ceil(p / 100 * s.size());
    return s.get(Math.max(0, Math.min(s.size() - 1, rank - 1)));
  }

  /** Busy GPU-time over available GPU-time from the first arrival to the last end. */
  static double utilization(Result r, Outcome o) {
    long from = r.workload().runs.isEmpty() ? 0 : r.workload().runs.get(0).at();
    long to = o.lastEnd();
    return to <= from ? 0 : o.busyIn(from, to) / ((double) (to - from) * r.workload().fleetGpus());
  }

  /** The mean over nightly runs of busy ÷ available GPU-time inside each nightly's own makespan window. */
  static double nightlyWindowUtilization(Result r, Outcome o) {
    double sum = 0;
    int n = 0;
    for (Workload.Run run : r.workload().runs) {
      long m = run.cadence().equals("nightly") ? o.makespan(run) : 0;
      if (m > 0) {
        sum += o.busyIn(run.at(), run.at() + m) / ((double) m * r.workload().fleetGpus());
        n++;
      }
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  private static String h(double millis) {
    return Double.isNaN(millis) || millis < 0 ? "—" : String.format(Locale.ROOT, "%.2f h", millis / 3_600_000.0);
  }

  private static String min(long millis) {
    return millis < 0 ? "—" : String.format(Locale.ROOT, "%.1f min", millis / 60_000.0);
  }

  private static String pct(double x) {
    return Double.isNaN(x) ? "—" : String.format(Locale.ROOT, "%.1f %%", 100 * x);
  }

  private static String ratio(double b, double a) {
    return a > 0 && b >= 0 ? String.format(Locale.ROOT, "%.2f", b / a) : "—";
  }

  /** The Markdown report. */
  static String table(Result r) {
    StringBuilder sb = new StringBuilder();
    Workload w = r.workload();
    long prs = w.runs.stream().filter(x -> x.cadence().equals("regular")).count();
    Config c = r.config();
    sb.append(String.format(Locale.ROOT, "Fleet simulation: seed %d, %d days from a Saturday, %.2f PR runs/h (%d PR runs),"
        + " sigma %.2f, claim interval %d s; %d hosts, %d GPUs; %d GPU tests run%n%n", c.seed(), c.days(),
        c.prPerHour(), prs, c.sigma(), c.claimIntervalSeconds(), w.hosts.size(), w.fleetGpus(), w.tests.size()));
    sb.append("| metric | (a) static runners | (b) job queue | (b)/(a) |\n|---|---:|---:|---:|\n");
    List<Long> na = makespans(r, r.a(), "nightly");
    List<Long> nb = makespans(r, r.b(), "nightly");
    row(sb, "nightly makespan, mean of " + na.size(), h(mean(na)), h(mean(nb)), ratio(mean(nb), mean(na)));
    row(sb, "nightly makespan, longest", h(percentile(na, 100)), h(percentile(nb, 100)),
        ratio(percentile(nb, 100), percentile(na, 100)));
    for (String pool : w.poolGpus.keySet()) {
      List<Long> qa = poolMakespans(r, r.a(), "nightly", pool);
      List<Long> qb = poolMakespans(r, r.b(), "nightly", pool);
      row(sb, "nightly makespan on " + pool + ", mean", h(mean(qa)), h(mean(qb)), ratio(mean(qb), mean(qa)));
    }
    List<Long> wa = makespans(r, r.a(), "weekly");
    List<Long> wb = makespans(r, r.b(), "weekly");
    row(sb, "weekly makespan, mean of " + wa.size(), h(mean(wa)), h(mean(wb)), ratio(mean(wb), mean(wa)));
    List<Long> pa = makespans(r, r.a(), "regular");
    List<Long> pb = makespans(r, r.b(), "regular");
    row(sb, "PR run makespan p50", h(percentile(pa, 50)), h(percentile(pb, 50)),
        ratio(percentile(pb, 50), percentile(pa, 50)));
    row(sb, "PR run makespan p90", h(percentile(pa, 90)), h(percentile(pb, 90)),
        ratio(percentile(pb, 90), percentile(pa, 90)));
    row(sb, "GPU utilization, whole run", pct(utilization(r, r.a())), pct(utilization(r, r.b())), "");
    row(sb, "GPU utilization, inside nightly windows", pct(nightlyWindowUtilization(r, r.a())),
        pct(nightlyWindowUtilization(r, r.b())), "");
    row(sb, "jobs (a: suite shards, b: test files)", Integer.toString(r.a().jobs), Integer.toString(r.b().jobs), "");
    row(sb, "8-GPU jobs", Integer.toString(r.a().eightGpuWaits.size()), Integer.toString(r.b().eightGpuWaits.size()), "");
    for (int p : new int[] {50, 99, 100}) {
      row(sb, "8-GPU job wait " + (p == 100 ? "max" : "p" + p), min(percentile(r.a().eightGpuWaits, p)),
          min(percentile(r.b().eightGpuWaits, p)), "");
    }
    row(sb, "8-GPU heads past the reservation bound", "— (no reservations)", r.b().boundViolations + " of "
        + r.b().boundChecks + (r.b().boundViolations > 0 ? " (worst " + min(r.b().worstOverBound) + " over)" : ""), "");
    row(sb, "... past the bound taken with the holders' actual ends", "—", r.b().actualBoundViolations + " of "
        + r.b().boundChecks, "");
    row(sb, "devices leased twice", "—", Integer.toString(r.b().doubleBookings), "");
    for (Map.Entry<String, Integer> pool : w.poolGpus.entrySet()) {
      Optional<FleetShare> share = r.policy().share("weekly", pool.getKey());
      String s = share.map(x -> x.amount() + " " + x.unit().documentName()).orElse("none");
      row(sb, "weekly peak on " + pool.getKey() + " (jobs / GPUs; share " + s + ")", peak(r.a(), pool.getKey()),
          peak(r.b(), pool.getKey()), "");
    }
    sb.append(String.format(Locale.ROOT, "%nGoal: nightly makespan (b)/(a) <= 0.75: %s (%s). Weekly share: not"
        + " enforced by the queue store yet (see the SHARES marks in QueueFleet).%n",
        mean(nb) <= 0.75 * mean(na) ? "met" : "not met", ratio(mean(nb), mean(na))));
    return sb.toString();
  }

  private static String peak(Outcome o, String pool) {
    int[] p = o.weeklyPeak.get(pool);
    return p == null ? "0 / 0" : p[0] + " / " + p[1];
  }

  private static void row(StringBuilder sb, String metric, String a, String b, String ratio) {
    sb.append("| ").append(metric).append(" | ").append(a).append(" | ").append(b).append(" | ").append(ratio)
        .append(" |\n");
  }
}
