package dev.cipolicy.cli;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.RunnerPool;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.CiRunKey;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.QueueNames;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStoreException;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy fleet lease --gpus N [--pool P] -- CMD}: the cross-runner device lock of a GPU host whose
 * self-hosted runners stay (ADR 0006). It asks the fleet's store for N devices of this host, waits in the
 * store's queue order (reservations, fleet shares) printing why, runs CMD with the granted devices in the
 * backend's variables, renews the lease while CMD runs, and ends it when CMD exits (with CMD's exit code) or
 * when a signal stops it (CMD's process tree killed, exit non-zero). A lease process killed outright frees its
 * devices after one lease time.
 */
@Command(name = "lease", mixinStandardHelpOptions = true,
    description = "Runs a command on N devices of this GPU host, locked against every other lease of the host.")
final class FleetLeaseCommand implements Callable<Integer> {
  /** The group of every lease's job: how a collector daemon tells a lease pool from its own (one host each). */
  static final String LEASE_GROUP = "lease";

  /** Workflow run ids of GitHub stay below this; a lease's own request key starts above it. */
  static final long LEASE_RUN_IDS_FROM = 1L << 53;
  private static final Pattern PR_REF = Pattern.compile("refs/pull/(\\d{1,18})/(merge|head)");
  private static final SecureRandom RANDOM = new SecureRandom();

  @ParentCommand
  private @Nullable FleetCommand parent;

  @Mixin
  private FleetStoreOptions store = new FleetStoreOptions();

  @Mixin
  private FleetHostOptions hostOptions = new FleetHostOptions();

  @Option(names = "--gpus", required = true, paramLabel = "N", description = "How many devices of this host.")
  private int gpus;

  @Option(names = "--pool", paramLabel = "POOL", description = "The host's lease pool, which only this host"
      + " serves (default: the host's name); fleet shares of that pool name apply.")
  private @Nullable String pool;

  @Option(names = "--policy", paramLabel = "FILE", description = "The policy: --pool must be one of its fleet pools,"
      + " and --backend one of its backends.")
  private @Nullable String policy;

  @Option(names = "--backend", paramLabel = "NAME", description = "The policy's backend whose device_env carries"
      + " the devices (needs --policy).")
  private @Nullable String backend;

  @Option(names = "--device-env", paramLabel = "VAR", description = "A variable set to the granted devices, e.g."
      + " 0,1 (repeatable; default: the backend's device_env, else CUDA_VISIBLE_DEVICES).")
  private List<String> deviceEnv = new ArrayList<>();

  @Option(names = "--cadence", paramLabel = "NAME", defaultValue = "", description = "The cadence of the run"
      + " (e.g. nightly), for the fleet shares; empty for none.")
  private String cadence = "";

  @Option(names = "--estimate-minutes", paramLabel = "M", defaultValue = "0", description = "How long CMD is"
      + " expected to run; lets it run before a reserved larger lease when it ends in time (default: unknown).")
  private long estimateMinutes;

  @Option(names = "--lease-seconds", defaultValue = "60", description = "How long the lease lasts unless renewed;"
      + " a killed runner's devices come back after it (default: ${DEFAULT-VALUE}).")
  private long leaseSeconds = 60;

  @Parameters(paramLabel = "CMD", arity = "0..*", description = "The command and its arguments, after --.")
  private List<String> command = new ArrayList<>();

  @Override
  public Integer call() {
    CiPolicyCli cli = Objects.requireNonNull(parent).cli();
    Console console = cli.console();
    LeaseRun run = null;
    try {
      if (command.isEmpty()) {
        throw new InvalidInputException("no command to run; give it after --, e.g. ci-policy fleet lease --gpus 2"
            + " -- python -m pytest tests/gpu");
      }
      if (gpus < 1 || gpus > JobSpec.MAX_GPUS) {
        throw new InvalidInputException("--gpus " + gpus + " is not a device count; expected 1 to " + JobSpec.MAX_GPUS);
      }
      if (leaseSeconds < 2 || leaseSeconds > 86_400) {
        throw new InvalidInputException("--lease-seconds " + leaseSeconds + " is out of range; expected 2 to 86400");
      }
      if (estimateMinutes < 0 || estimateMinutes > 60 * 24 * 365) {
        throw new InvalidInputException("--estimate-minutes " + estimateMinutes + " is out of range; expected 0 to "
            + 60 * 24 * 365);
      }
      Map<String, String> env = cli.environment();
      String host = QueueNames.check(hostOptions.name(env), "--host");
      String leasePool = QueueNames.check(pool != null ? pool : host, "--pool");
      List<String> variables = variables(cli, leasePool);
      if (!cadence.isEmpty()) {
        QueueNames.check(cadence, "--cadence");
      }
      Devices inventory = hostOptions.inventory(cli.environment());
      if (gpus > inventory.size()) {
        throw new InvalidInputException("--gpus " + gpus + " is more than host " + host + " has: " + inventory.size()
            + " devices " + inventory.indices());
      }
      Duration lease = Duration.ofSeconds(leaseSeconds);
      JobQueue queue = JobQueue.of(PostgresQueueStore.create(store.dataSource(env), store.schema(env)),
          QueueSettings.builder().leaseDuration(lease).collectorTimeout(lease).noJobs(true).build());
      HostLease hostLease = new HostLease(queue, host, leasePool);
      Devices known = hostLease.register(inventory);
      if (gpus > known.size()) {
        throw new InvalidInputException("--gpus " + gpus + " is more than host " + host + " has in the store: "
            + known.size() + " devices " + known.indices());
      }
      JobSpec spec = JobSpec.builder().benchmarkGroup(LEASE_GROUP).collectorTag(leasePool).gpus(gpus)
          .estimate(Duration.ofMinutes(estimateMinutes)).cadence(cadence).build();
      run = new LeaseRun(console, hostLease, variables, lease);
      JobId id = run.submit(ciRun(env, host), spec);
      console.line("lease: job " + id.value() + " asks host " + host + " (pool " + leasePool + ") for " + gpus
          + (gpus == 1 ? " device" : " devices"));
      return run.run(command);
    } catch (CiPolicyException e) {
      if (run != null) {
        run.abandon("fleet lease failed: " + e.getMessage());
      }
      Annotations.report(cli, e);
      return CiPolicyCli.EXIT_ERROR;
    } catch (IOException e) {
      if (run != null) {
        run.abandon("fleet lease failed: " + e.getMessage());
      }
      console.error(Inputs.describe(e));
      return CiPolicyCli.EXIT_ERROR;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (run != null) {
        run.abandon("fleet lease interrupted");
      }
      return CiPolicyCli.EXIT_ERROR;
    } finally {
      if (run != null) {
        run.close();
      }
    }
  }

  /** The variables that carry the devices: the flags, else the backend's device_env, else CUDA_VISIBLE_DEVICES. */
  private List<String> variables(CiPolicyCli cli, String leasePool) {
    Optional<Backend> b = Optional.empty();
    if (policy != null) {
      LoadedPolicy loaded = Inputs.loadPolicy(cli, policy);
      List<String> pools = loaded.policy().pools().stream().map(RunnerPool::name).toList();
      if (!pools.contains(leasePool)) {
        throw new InvalidInputException("pool '" + leasePool + "' is not in the policy's fleet; expected one of "
            + pools + " (give --pool)");
      }
      if (!cadence.isEmpty() && !loaded.policy().cadenceNames().contains(cadence)) {
        // a misspelt cadence would escape its fleet share
        throw new InvalidInputException("--cadence '" + Console.plain(cadence) + "' is not a cadence of the policy;"
            + " expected one of " + loaded.policy().cadenceNames());
      }
      if (backend != null) {
        List<Backend> all = loaded.policy().backends();
        b = all.stream().filter(x -> x.name().equals(backend)).findFirst();
        if (b.isEmpty()) {
          throw new InvalidInputException("--backend '" + backend + "' is not in the policy; expected one of "
              + all.stream().map(Backend::name).toList());
        }
        if (b.get().deviceEnv().isEmpty() && deviceEnv.isEmpty()) {
          throw new InvalidInputException("backend '" + backend + "' declares no device_env; give --device-env VAR");
        }
      }
    } else if (backend != null) {
      throw new InvalidInputException("--backend '" + backend + "' needs --policy FILE to read its device_env");
    }
    List<String> vars = !deviceEnv.isEmpty() ? deviceEnv
        : b.map(Backend::deviceEnv).orElse(List.of("CUDA_VISIBLE_DEVICES"));
    for (String v : vars) {
      if (!v.matches("[A-Za-z_][A-Za-z0-9_]{0,127}")) {
        throw new InvalidInputException("--device-env '" + v.replaceAll("[^\\x20-\\x7e]", "?")
            + "' is not a variable name; expected letters, digits and _");
      }
    }
    return List.copyOf(vars);
  }

  /**
   * The lease's own CI run request: a key of its own (a random run id above GitHub's, attempt 1, no concurrency
   * group), so that two leases of one workflow run neither attach to nor supersede each other, with the run's
   * facts from the GitHub environment where present, for display.
   */
  static CiRun ciRun(Map<String, String> env, String host) {
    String repo = env.getOrDefault("GITHUB_REPOSITORY", "");
    try {
      CiRunKey.repository(repo);
    } catch (InvalidQueueInputException e) {
      String h = host.replaceAll("[^A-Za-z0-9_.-]", "-");
      repo = "local/" + (h.length() > 100 ? h.substring(0, 100) : h);
    }
    long runId = LEASE_RUN_IDS_FROM + RANDOM.nextLong(Long.MAX_VALUE - LEASE_RUN_IDS_FROM);
    CiRun run = CiRun.of(repo, runId, 1, token(env.get("GITHUB_SHA"), "unknown"),
        token(env.get("GITHUB_EVENT_NAME"), "fleet_lease"));
    Matcher pr = PR_REF.matcher(env.getOrDefault("GITHUB_REF", ""));
    if (pr.matches() && Long.parseLong(pr.group(1)) > 0) {
      run = run.withPr(Long.parseLong(pr.group(1)));
    }
    StringBuilder w = new StringBuilder("fleet lease on " + host);
    Optional.ofNullable(env.get("GITHUB_WORKFLOW")).filter(s -> !s.isBlank()).ifPresent(s -> w.append(": ").append(s));
    Optional.ofNullable(env.get("GITHUB_RUN_ID")).filter(s -> s.matches("\\d{1,19}"))
        .ifPresent(s -> w.append(" run ").append(s).append(" attempt ").append(
            Optional.ofNullable(env.get("GITHUB_RUN_ATTEMPT")).filter(a -> a.matches("\\d{1,9}")).orElse("1")));
    Optional.ofNullable(env.get("GITHUB_JOB")).filter(s -> !s.isBlank()).ifPresent(s -> w.append(" job ").append(s));
    String workflow = w.toString().replaceAll("[\\p{Cntrl}]", " ");
    return run.withWorkflow(workflow.length() > QueueNames.MAX_NAME ? workflow.substring(0, QueueNames.MAX_NAME)
        : workflow);
  }

  private static String token(@Nullable String value, String fallback) {
    if (value == null || value.isEmpty() || value.length() > QueueNames.MAX_NAME || !value.matches("\\S+")) {
      return fallback;
    }
    return value;
  }

  /** One lease process's life: waiting, running CMD, ending; stopped by a signal through a shutdown hook. */
  private static final class LeaseRun {
    private final Console console;
    private final HostLease hostLease;
    private final List<String> variables;
    private final Duration lease;
    private final Thread hook;
    private final Object lock = new Object();
    private boolean ended;
    private @Nullable Process process;
    private volatile @Nullable String lost;

    LeaseRun(Console console, HostLease hostLease, List<String> variables, Duration lease) {
      this.console = console;
      this.hostLease = hostLease;
      this.variables = variables;
      this.lease = lease;
      this.hook = new Thread(this::signalled, "fleet-lease-signal");
      Runtime.getRuntime().addShutdownHook(hook);
    }

    JobId submit(CiRun run, JobSpec spec) {
      synchronized (lock) {
        return hostLease.submit(run, spec);
      }
    }

    int run(List<String> command) throws IOException, InterruptedException {
      long waitStart = System.nanoTime();
      Duration poll = HostLease.pollInterval(lease);
      Lease held;
      long failingSince = 0;
      while (true) {
        Optional<Lease> got = Optional.empty();
        synchronized (lock) {
          if (ended) {
            return CiPolicyCli.EXIT_ERROR;
          }
          try {
            got = hostLease.poll(reason -> console.line("lease: waiting: " + reason));
            failingSince = 0;
          } catch (HostLease.Ended e) {
            ended = true;
            console.error("fleet lease: " + e.getMessage() + "; the command did not run");
            return CiPolicyCli.EXIT_ERROR;
          } catch (QueueStoreException e) {
            // A store that is away for less than a lease only delays the wait; longer, the wait gives up.
            if (failingSince == 0) {
              failingSince = System.nanoTime();
              console.line("lease: waiting: the store did not answer (" + e.getMessage() + "); trying again");
            } else if (System.nanoTime() - failingSince > lease.toNanos()) {
              throw e;
            }
          }
        }
        if (got.isPresent()) {
          held = got.get();
          break;
        }
        Thread.sleep(poll.toMillis());
      }
      String devices = held.devices().stream().map(String::valueOf).collect(Collectors.joining(","));
      ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
      for (String v : variables) {
        pb.environment().put(v, devices);
      }
      pb.environment().put("CI_POLICY_DEVICES", devices);
      synchronized (lock) {
        if (ended) {
          return CiPolicyCli.EXIT_ERROR;
        }
        console.line(String.format(Locale.ROOT, "lease: devices %s of host %s after %.1f s: %s=%s", devices,
            held.collector(), (System.nanoTime() - waitStart) / 1e9, String.join(",", variables), devices));
        try {
          process = pb.start();
        } catch (IOException e) {
          ended = true;
          hostLease.finish(held, 127);
          throw new InvalidInputException("cannot start " + command.get(0) + ": " + Inputs.describe(e)
              + "; expected a program on the"
              + " PATH or the path of an executable (there is no shell: write -- bash -c '...' for one)");
        }
      }
      Process p = Objects.requireNonNull(process);
      Thread renewer = new Thread(() -> renew(held, p), "fleet-lease-renew");
      renewer.setDaemon(true);
      renewer.start();
      long runStart = System.nanoTime();
      int code = p.waitFor();
      renewer.interrupt();
      synchronized (lock) {
        if (ended) {
          return CiPolicyCli.EXIT_ERROR; // stopped by a signal: the hook ended the lease
        }
        ended = true;
        String why = lost;
        if (why != null) {
          hostLease.abandon("fleet lease lost: " + why);
          console.error("fleet lease: " + why + "; the command was stopped");
          return CiPolicyCli.EXIT_ERROR;
        }
        try {
          hostLease.finish(held, code);
        } catch (QueueStoreException e) {
          console.warning("fleet lease: the lease could not be ended (" + e.getMessage() + "); its devices come back"
              + " when it expires, within " + lease.toSeconds() + " s");
          return code;
        }
        console.line(String.format(Locale.ROOT, "lease: the command exited with code %d after %.1f s; devices %s"
            + " released", code, (System.nanoTime() - runStart) / 1e9, devices));
        return code;
      }
    }

    /** Renews the lease every third of it; a lease no longer ours stops the command. */
    private void renew(Lease held, Process p) {
      long every = Math.max(200, lease.toMillis() / 3);
      long lastOk = System.nanoTime();
      while (p.isAlive()) {
        try {
          Thread.sleep(every);
        } catch (InterruptedException e) {
          return;
        }
        try {
          LeaseStatus s = hostLease.renew(held);
          if (s == LeaseStatus.OK) {
            lastOk = System.nanoTime();
            continue;
          }
          lost = s == LeaseStatus.CANCELLED ? "the lease's request was cancelled" : "the lease is no longer held ("
              + s.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")";
        } catch (QueueStoreException e) {
          if (System.nanoTime() - lastOk < lease.toNanos()) {
            continue;
          }
          lost = "the store did not renew the lease within " + lease.toSeconds() + " s: " + e.getMessage();
        }
        killTree(p);
        return;
      }
    }

    /** SIGTERM or SIGINT (or the end of the JVM before the lease ended): kill CMD, end the lease. */
    private void signalled() {
      synchronized (lock) {
        if (ended) {
          return;
        }
        ended = true;
        Process p = process;
        if (p != null) {
          killTree(p);
        }
        try {
          hostLease.abandon("fleet lease stopped by a signal");
          console.errLine("fleet lease: stopped by a signal; the command was killed and the lease ended");
        } catch (RuntimeException e) {
          console.errLine("fleet lease: stopped by a signal; the lease ends by expiry (" + e.getMessage() + ")");
        }
      }
    }

    void abandon(String reason) {
      synchronized (lock) {
        if (!ended) {
          ended = true;
          try {
            hostLease.abandon(reason);
          } catch (RuntimeException e) {
            // the lease ends by expiry
          }
        }
      }
    }

    void close() {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook runs
      }
    }

    private static void killTree(Process p) {
      List<ProcessHandle> tree = p.descendants().toList();
      p.destroy();
      tree.forEach(ProcessHandle::destroy);
      try {
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
  }
}
