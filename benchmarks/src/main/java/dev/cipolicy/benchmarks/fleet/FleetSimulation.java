package dev.cipolicy.benchmarks.fleet;

import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.core.load.RegistrationLoader;
import dev.cipolicy.queue.model.FleetShares;
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
      Path registrations, boolean longestFirst) {
    /**
     * The defaults: seed 1, 7 days, 0.5 PR runs an hour, sigma 0.25, 60 s claims, the reference files, a run's
     * jobs submitted in plan order.
     */
    public static Config defaults() {
      return new Config(1, 7, 0.5, 0.25, 60, Path.of("examples/policies/miles.yaml"),
          Path.of("examples/registrations/reference-inventory.json"), false);
    }
  }

  /**
   * Both setups' outcomes for one workload.
   *
   * @param workload the runs and hosts
   * @param policy the policy (for its fleet shares)
   * @param a today's static runners
   * @param b the job queue without fleet shares
   * @param bs the job queue with the policy's fleet shares
   * @param config the inputs
   */
  record Result(Workload workload, Policy policy, Outcome a, Outcome b, Outcome bs, Config config) {}

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
              c.policy(), c.registrations(), c.longestFirst());
          case "days" -> new Config(c.seed(), Integer.parseInt(v), c.prPerHour(), c.sigma(), c.claimIntervalSeconds(),
              c.policy(), c.registrations(), c.longestFirst());
          case "pr-rate" -> new Config(c.seed(), c.days(), Double.parseDouble(v), c.sigma(), c.claimIntervalSeconds(),
              c.policy(), c.registrations(), c.longestFirst());
          case "sigma" -> new Config(c.seed(), c.days(), c.prPerHour(), Double.parseDouble(v), c.claimIntervalSeconds(),
              c.policy(), c.registrations(), c.longestFirst());
          case "claim-interval" -> new Config(c.seed(), c.days(), c.prPerHour(), c.sigma(), Long.parseLong(v),
              c.policy(), c.registrations(), c.longestFirst());
          case "policy" -> new Config(c.seed(), c.days(), c.prPerHour(), c.sigma(), c.claimIntervalSeconds(),
              Path.of(v), c.registrations(), c.longestFirst());
          case "registrations" -> new Config(c.seed(), c.days(), c.prPerHour(), c.sigma(), c.claimIntervalSeconds(),
              c.policy(), Path.of(v), c.longestFirst());
          case "order" -> new Config(c.seed(), c.days(), c.prPerHour(), c.sigma(), c.claimIntervalSeconds(),
              c.policy(), c.registrations(), switch (v) {
                case "plan" -> false;
                case "longest" -> true;
                default -> throw new NumberFormatException("expected plan or longest");
              });
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
    Outcome b = QueueFleet.run(w, c.claimIntervalSeconds() * 1000, FleetShares.none(), c.longestFirst());
    // SHARES: the policy's fleet.shares as the queue enforces them.
    Outcome bs = QueueFleet.run(w, c.claimIntervalSeconds() * 1000,
        FleetShares.fromPolicy(policy.policy().fleetShares()), c.longestFirst());
    return new Result(w, policy.policy(), a, b, bs, c);
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
    sb.append("| metric | (a) static runners | (b) job queue | (b') queue + shares | (b)/(a) | (b')/(a) |\n"
        + "|---|---:|---:|---:|---:|---:|\n");
    List<Outcome> os = List.of(r.a(), r.b(), r.bs());
    timeRow(sb, "nightly makespan, mean", os, o -> mean(makespans(r, o, "nightly")));
    timeRow(sb, "nightly makespan, longest", os, o -> (double) percentile(makespans(r, o, "nightly"), 100));
    double bound = LowerBound.mean(w, "nightly");
    row(sb, "nightly physical lower bound, mean (per pool: GPU-hours / GPUs, and the longest test)", os, o -> h(bound));
    row(sb, "nightly makespan / lower bound", os, o -> ratio(mean(makespans(r, o, "nightly")), bound));
    double shareBound = LowerBound.meanWithinShares(w, r.policy(), "nightly");
    row(sb, "nightly lower bound held to its shares, mean (never borrowing)", os, o -> h(shareBound));
    row(sb, "nightly makespan / bound held to its shares", os,
        o -> ratio(mean(makespans(r, o, "nightly")), shareBound));
    for (String pool : w.poolGpus.keySet()) {
      timeRow(sb, "nightly makespan on " + pool + ", mean", os, o -> mean(poolMakespans(r, o, "nightly", pool)));
    }
    timeRow(sb, "weekly makespan, mean", os, o -> mean(makespans(r, o, "weekly")));
    timeRow(sb, "PR run makespan p50", os, o -> (double) percentile(makespans(r, o, "regular"), 50));
    timeRow(sb, "PR run makespan p90", os, o -> (double) percentile(makespans(r, o, "regular"), 90));
    row(sb, "GPU utilization, whole run", os, o -> pct(utilization(r, o)));
    row(sb, "GPU utilization, inside nightly windows", os, o -> pct(nightlyWindowUtilization(r, o)));
    row(sb, "jobs (a: suite shards; b: test files)", os, o -> Integer.toString(o.jobs));
    row(sb, "8-GPU jobs", os, o -> Integer.toString(o.eightGpuWaits.size()));
    for (int p : new int[] {50, 99, 100}) {
      row(sb, "8-GPU job wait " + (p == 100 ? "max" : "p" + p), os, o -> min(percentile(o.eightGpuWaits, p)));
    }
    for (int p : new int[] {50, 99}) {
      row(sb, "8-GPU test start after its trigger, p" + p, os, o -> min(percentile(eightGpuTestStarts(w, o), p)));
    }
    row(sb, "8-GPU heads past the reservation bound", os, o -> o == r.a() ? "— (no reservations)"
        : o.boundViolations + " of " + o.boundChecks + (o.boundViolations > 0 ? ", worst " + min(o.worstOverBound)
        + " over" : "") + (o.shareHeldViolations > 0 ? "; plus " + o.shareHeldViolations + " their own share refused or admitted only by borrowing" : "")
        + (o.provisionalViolations > 0 ? "; plus " + o.provisionalViolations + " reserved for only while a job its share held"
            + " back kept its reservation dormant" : ""));
    row(sb, "... past it with the holders' actual ends", os, o -> o == r.a() ? "—"
        : o.actualBoundViolations + " of " + o.boundChecks);
    row(sb, "devices leased twice", os, o -> o == r.a() ? "—" : Integer.toString(o.doubleBookings));
    for (String pool : w.poolGpus.keySet()) {
      Optional<FleetShare> share = r.policy().share("weekly", pool);
      String s = share.map(x -> x.amount() + " " + x.unit().documentName()).orElse("none");
      row(sb, "weekly peak on " + pool + ", jobs / GPUs (share: " + s + ")", os, o -> peak(o, pool));
    }
    double na = mean(makespans(r, r.a(), "nightly"));
    sb.append(String.format(Locale.ROOT, "%nGoal, nightly makespan at most 0.75 of (a): (b) %s, (b') %s. Weekly within"
        + " its share: (a) %s, (b) %s, (b') %s.%n", ratio(mean(makespans(r, r.b(), "nightly")), na),
        ratio(mean(makespans(r, r.bs(), "nightly")), na), withinShare(r, r.a()), withinShare(r, r.b()),
        withinShare(r, r.bs())));
    sb.append(String.format(Locale.ROOT, "Nightly against its physical lower bound (%s): (a) %s, (b) %s, (b') %s"
        + " (goal for (b'): at most 1.25); against the bound held to its shares (%s): (b') %s.%n", h(bound),
        ratio(na, bound), ratio(mean(makespans(r, r.b(), "nightly")), bound),
        ratio(mean(makespans(r, r.bs(), "nightly")), bound), h(shareBound),
        ratio(mean(makespans(r, r.bs(), "nightly")), shareBound)));
    return sb.toString();
  }

  /** The start of every 8-GPU test after its run's trigger (a shard's later tests start inside it). */
  private static List<Long> eightGpuTestStarts(Workload w, Outcome o) {
    List<Long> out = new ArrayList<>();
    for (Workload.Test t : w.tests) {
      if (t.gpus() == 8) {
        out.add(o.start[t.id()] - w.runs.get(t.run()).at());
      }
    }
    return out;
  }

  /** "yes", or the pools where the weekly run held more than its share at some instant. */
  static String withinShare(Result r, Outcome o) {
    List<String> over = new ArrayList<>();
    for (String pool : r.workload().poolGpus.keySet()) {
      Optional<FleetShare> share = r.policy().share("weekly", pool);
      int[] p = o.weeklyPeak.get(pool);
      if (share.isPresent() && p != null
          && p[share.get().unit() == FleetShare.Unit.GPUS ? 1 : 0] > share.get().amount()) {
        over.add(pool);
      }
    }
    return over.isEmpty() ? "yes" : "no, above on " + String.join(", ", over);
  }

  private static void timeRow(StringBuilder sb, String metric, List<Outcome> os,
      java.util.function.ToDoubleFunction<Outcome> f) {
    double a = f.applyAsDouble(os.get(0));
    double b = f.applyAsDouble(os.get(1));
    double bs = f.applyAsDouble(os.get(2));
    sb.append("| ").append(metric).append(" | ").append(h(a)).append(" | ").append(h(b)).append(" | ").append(h(bs))
        .append(" | ").append(ratio(b, a)).append(" | ").append(ratio(bs, a)).append(" |\n");
  }

  private static void row(StringBuilder sb, String metric, List<Outcome> os,
      java.util.function.Function<Outcome, String> f) {
    sb.append("| ").append(metric);
    for (Outcome o : os) {
      sb.append(" | ").append(f.apply(o));
    }
    sb.append(" | | |\n");
  }

  private static String peak(Outcome o, String pool) {
    int[] p = o.weeklyPeak.get(pool);
    return p == null ? "0 / 0" : p[0] + " / " + p[1];
  }
}
