package dev.cipolicy.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.fleet.server.FleetServer;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.spi.QueueStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy fleet serve}: the fleet server. It ticks the queue (the site loop: CI runs start, finished ones
 * complete, expired leases return their jobs), gives the store the policy's fleet shares, and serves the status page
 * and its JSON API ({@code /api/v1}) until SIGTERM or SIGINT. Its store is the PostgreSQL database of
 * {@code --store} [{@value FleetStoreOptions#URL_ENV}] when one is given, else an in-memory store of this process
 * (said on start). Read-only unless a token is given in the environment variable {@code --token-env} names.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Runs the fleet server: the site loop and the status page with its JSON API, until stopped.")
final class FleetServeCommand implements Callable<Integer> {
  @ParentCommand
  private @Nullable FleetCommand parent;

  @Mixin
  private FleetStoreOptions store = new FleetStoreOptions();

  @Option(names = "--policy", required = true, paramLabel = "FILE",
      description = "The policy document; its fleet shares are enforced at each claim and shown on the page.")
  private String policy = "";

  @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
      description = "The address to listen on; 0.0.0.0 for every interface (default: ${DEFAULT-VALUE}).")
  private String bind = "127.0.0.1";

  @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
      description = "The port to listen on; 0 for any free one (default: ${DEFAULT-VALUE}).")
  private int port = 8080;

  @Option(names = "--allowed-host", paramLabel = "NAME", description = "A host name users reach the server by"
      + " (repeatable), e.g. fleet.example.org; a request for a host not served is refused.")
  private List<String> allowedHosts = new ArrayList<>();

  @Option(names = "--token-env", paramLabel = "NAME", description = "The environment variable holding the"
      + " controls' token (at least 8 characters); without it the server is read-only.")
  private @Nullable String tokenEnv;

  @Option(names = "--trusted-proxy-header", paramLabel = "NAME", description = "A header naming the operator,"
      + " set by an authenticating reverse proxy, e.g. X-Forwarded-User; believed only from a --trusted-proxy"
      + " address, refused (403) from any other.")
  private @Nullable String proxyHeader;

  @Option(names = "--trusted-proxy", paramLabel = "ADDRESS", description = "An IP address of that proxy"
      + " (repeatable), e.g. 127.0.0.1 or 10.0.0.5; needed with --trusted-proxy-header.")
  private List<String> proxies = new ArrayList<>();

  @Option(names = "--store-pool", paramLabel = "N", defaultValue = "" + DEFAULT_POOL, description = "The most"
      + " PostgreSQL connections the server holds open for --store, 1 to " + FleetStoreOptions.MAX_POOL
      + " (default: ${DEFAULT-VALUE}).")
  private int storePool = DEFAULT_POOL;

  /**
   * The connections of {@code --store-pool} unless given: the site loop, the overview's refresh, the accounting's
   * and the requests that read the store (a job's page, the controls) each hold one while they read.
   */
  static final int DEFAULT_POOL = 4;

  @Option(names = "--lease-seconds", defaultValue = "60", description = "The collectors' lease time; a collector"
      + " without a heartbeat for as long is shown offline (default: ${DEFAULT-VALUE}).")
  private long leaseSeconds = 60;

  /** The connection pool of the PostgreSQL store while the server runs, else null; read by tests. */
  private volatile FleetStoreOptions.@Nullable Pooled pooled;

  /** Counted down when the server should stop (a signal's shutdown hook, or a test). */
  private final CountDownLatch stop = new CountDownLatch(1);

  /** The connection pool of the PostgreSQL store (closed once the server has stopped), or null. */
  @Nullable HikariDataSource pool() {
    FleetStoreOptions.Pooled p = pooled;
    return p == null ? null : p.pool();
  }

  /** Stops a running {@code serve}, as SIGTERM does. */
  void stop() {
    stop.countDown();
  }

  @Override
  public Integer call() {
    CiPolicyCli cli = Objects.requireNonNull(parent).cli();
    Map<String, String> env = cli.environment();
    try {
      LoadedPolicy loaded = Inputs.loadPolicy(cli, policy);
      if (leaseSeconds < 1) {
        throw new InvalidInputException("--lease-seconds " + leaseSeconds + " is below 1");
      }
      String token = token(env);
      boolean postgres = store.given(env);
      if (storePool < 1 || storePool > FleetStoreOptions.MAX_POOL) {
        throw new InvalidInputException("--store-pool " + storePool + " is out of range; expected 1 to "
            + FleetStoreOptions.MAX_POOL);
      }
      if (proxyHeader == null && !proxies.isEmpty()) {
        throw new InvalidInputException("--trusted-proxy " + proxies.get(0) + " is given without"
            + " --trusted-proxy-header; expected both, or neither");
      }
      // On PostgreSQL a small pool of connections, closed when the server stops (a connection per store call
      // made the overview of 200 requests in progress take tens of seconds).
      FleetStoreOptions.Pooled pooled = postgres ? store.openPooled(env, storePool, "ci-policy-fleet-serve") : null;
      this.pooled = pooled;
      try {
        return serve(cli, env, loaded, token, pooled);
      } finally {
        if (pooled != null) {
          pooled.close();
        }
      }
    } catch (CiPolicyException e) {
      Annotations.report(cli, e);
      return CiPolicyCli.EXIT_ERROR;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CiPolicyCli.EXIT_ERROR;
    }
  }

  /** Runs the server until stopped, on the pooled store or else an in-memory one; returns the exit code. */
  private int serve(CiPolicyCli cli, Map<String, String> env, LoadedPolicy loaded, @Nullable String token,
      FleetStoreOptions.@Nullable Pooled pooled) throws InterruptedException {
    boolean postgres = pooled != null;
    QueueStore queueStore = pooled != null ? pooled.store() : new InMemoryQueueStore(Clock.systemUTC());
    Duration lease = Duration.ofSeconds(leaseSeconds);
    // CI runs carry their jobs (fleet submit plans them from the policy): the site plans none of its own.
    JobQueue queue = JobQueue.of(queueStore, QueueSettings.builder().noJobs(true).leaseDuration(lease)
        .collectorTimeout(lease).build());
    FleetServer.Builder builder = FleetServer.builder(queue);
    if (proxyHeader != null) {
      builder.trustedProxy(proxyHeader, proxies);
    }
    FleetServer server = builder.shares(loaded.policy().fleetShares()).bind(bind).port(port)
        .allowedHosts(allowedHosts).token(token)
        .onSiteError(e -> cli.console().errLine("fleet serve: a site tick failed: " + e.getMessage()))
        .start();
    cli.console().line("fleet serve: " + (postgres ? "PostgreSQL store, schema " + store.schema(env)
        : "in-memory store (nothing is kept after the server stops; give --store for PostgreSQL)"));
    cli.console().line("fleet serve: " + (token == null && proxyHeader == null ? "read-only (no controls)"
        : "controls on for " + (token == null ? "" : "the token in " + tokenEnv) + (token != null && proxyHeader != null
            ? " and " : "") + (proxyHeader == null ? "" : "the user in " + proxyHeader + " from "
            + String.join(", ", proxies))));
    String shown = bind.equals("0.0.0.0") || bind.equals("::") ? "localhost" : bind.contains(":") ? "[" + bind + "]"
        : bind;
    cli.console().line("fleet serve: http://" + shown + ":" + server.port() + "/ (JSON: /api/v1)");
    // On SIGTERM or SIGINT: stop, and keep the JVM up until the server has closed (at most 10 s).
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stop();
      try {
        boolean unused = closed.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "fleet-serve-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      stop.await();
    } finally {
      server.close();
      if (pooled != null) {
        pooled.close();
      }
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // Shutting down already: the hook is running.
      }
    }
    cli.console().line("fleet serve: stopped");
    closed.countDown();
    return 0;
  }

  private @Nullable String token(Map<String, String> env) {
    if (tokenEnv == null) {
      return null;
    }
    String t = env.get(tokenEnv);
    if (t == null || t.length() < 8) {
      throw new InvalidInputException("--token-env " + tokenEnv + ": the environment variable "
          + (t == null ? "is not set" : "holds " + t.length() + " characters") + "; expected a token of at least 8"
          + " characters");
    }
    return t;
  }
}
