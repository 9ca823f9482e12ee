package dev.cipolicy.postgres;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL cluster of the test's own, for faults the shared server must never see (a restart): created
 * with {@code initdb} in a temporary directory, started with {@code pg_ctl} on a free port of 127.0.0.1 (trust
 * authentication, user {@code postgres}, {@code fsync} off: the data is thrown away), and always stopped and
 * deleted by {@link #close()} (and by a shutdown hook if the test JVM ends first).
 *
 * <p>The binaries come from {@code CI_POLICY_PG_BINDIR}, else {@code pg_config --bindir}, else the newest
 * {@code /usr/lib/postgresql/<version>/bin}. {@code initdb} refuses to run as root, so as root the commands run
 * as the {@code postgres} OS user through {@code runuser}, with the directory owned by it. When the binaries
 * or these privileges are missing, or the cluster does not start, the test is skipped with the reason, or
 * fails when {@code CI_POLICY_PG_REQUIRED=true}.
 */
final class PrivatePostgresCluster implements AutoCloseable {

  private static final long COMMAND_TIMEOUT_SECONDS = 60;

  private final Path binDir;
  private final List<String> asUser;
  private final Path dir;
  private final Path data;
  private final Path log;
  private final int port;
  private final Thread cleanup;
  private boolean closed;

  private PrivatePostgresCluster(Path binDir, List<String> asUser, Path dir, int port) {
    this.binDir = binDir;
    this.asUser = asUser;
    this.dir = dir;
    this.data = dir.resolve("data");
    this.log = dir.resolve("postgres.log");
    this.port = port;
    this.cleanup = new Thread(this::stopAndDelete, "private-postgres-cleanup");
  }

  /**
   * Creates and starts a cluster, or skips the test (fails it when PostgreSQL is required) with the reason.
   *
   * @return the running cluster
   */
  static PrivatePostgresCluster startOrSkip() {
    try {
      return start();
    } catch (Unavailable e) {
      String reason = "a private PostgreSQL cluster (for the restart test) is not available: " + e.getMessage();
      if ("true".equalsIgnoreCase(System.getenv("CI_POLICY_PG_REQUIRED"))) {
        fail("CI_POLICY_PG_REQUIRED=true but " + reason);
      }
      Assumptions.abort(reason);
      throw e;
    }
  }

  private static PrivatePostgresCluster start() {
    Path binDir = binDir().orElseThrow(() -> new Unavailable("no PostgreSQL server binaries (initdb, pg_ctl) in"
        + " CI_POLICY_PG_BINDIR, pg_config --bindir or /usr/lib/postgresql/*/bin"));
    List<String> asUser = List.of();
    Path dir;
    try {
      dir = Files.createTempDirectory("cipolicy-pg");
    } catch (IOException e) {
      throw new Unavailable("could not create a data directory: " + e.getMessage());
    }
    try {
      if ("root".equals(System.getProperty("user.name"))) {
        Path runuser = Stream.of("/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser").map(Path::of)
            .filter(Files::isExecutable).findFirst().orElseThrow(() -> new Unavailable("running as root, initdb"
                + " needs another OS user, but runuser is not installed"));
        UserPrincipal postgres;
        try {
          postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
        } catch (IOException e) {
          throw new Unavailable("running as root, initdb needs the OS user 'postgres', which does not exist");
        }
        Files.setOwner(dir, postgres);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        asUser = List.of(runuser.toString(), "-u", "postgres", "--");
      }
    } catch (IOException | Unavailable e) {
      deleteTree(dir);
      throw e instanceof Unavailable u ? u : new Unavailable("could not prepare " + dir + ": " + e.getMessage());
    }
    Unavailable last = null;
    for (int tries = 0; tries < 3; tries++) {
      PrivatePostgresCluster cluster = new PrivatePostgresCluster(binDir, asUser, dir, freePort());
      try {
        if (tries == 0) {
          cluster.run("initdb", "-D", cluster.data.toString(), "-A", "trust", "-U", "postgres", "-E", "UTF8",
              "--locale=C", "--no-sync");
        }
        Runtime.getRuntime().addShutdownHook(cluster.cleanup);
        cluster.pgCtl("start");
        return cluster;
      } catch (Unavailable e) {
        last = e;
        cluster.closeKeepingData();
      }
    }
    deleteTree(dir);
    throw last;
  }

  /** The JDBC URL of the {@code postgres} database, user {@code postgres}. */
  String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  /**
   * Restarts the server ({@code pg_ctl restart}): every session is cut.
   *
   * @param mode {@code fast} (roll back and shut down cleanly) or {@code immediate} (no shutdown checkpoint:
   *     the start recovers from the WAL, like after a crash)
   */
  void restart(String mode) {
    pgCtl("restart", "-m", mode);
  }

  /**
   * Stops the server ({@code pg_ctl stop}) until {@link #startAgain()}: every session is cut and no connection
   * can be had meanwhile.
   *
   * @param mode {@code fast} or {@code immediate}, as for {@link #restart}
   */
  void stopServer(String mode) {
    pgCtl("stop", "-m", mode);
  }

  /** Starts the server stopped by {@link #stopServer} again, on the same port, and waits until it accepts. */
  void startAgain() {
    pgCtl("start");
  }

  /** The server log, for failure messages. */
  String log() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private void pgCtl(String action, String... more) {
    List<String> args = new ArrayList<>(List.of("pg_ctl", "-D", data.toString(), "-l", log.toString(), "-w", "-t",
        "30", "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off"
            + " -c full_page_writes=off -c max_connections=40 -c shared_buffers=16MB", action));
    args.addAll(List.of(more));
    run(args.toArray(String[]::new));
  }

  private void run(String... command) {
    List<String> full = new ArrayList<>(asUser);
    full.add(binDir.resolve(command[0]).toString());
    full.addAll(List.of(command).subList(1, command.length));
    Path out = null;
    try {
      out = Files.createTempFile("cipolicy-pg-cmd", ".log");
      Process p = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(out.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
      if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new Unavailable(String.join(" ", full) + " did not finish within " + COMMAND_TIMEOUT_SECONDS + " s");
      }
      if (p.exitValue() != 0) {
        throw new Unavailable(String.join(" ", full) + " exited with " + p.exitValue() + ": "
            + Files.readString(out, StandardCharsets.UTF_8).strip() + "\n" + log());
      }
    } catch (IOException e) {
      throw new Unavailable("could not run " + String.join(" ", full) + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unavailable("interrupted while running " + String.join(" ", full));
    } finally {
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException e) {
          // a leftover temporary file
        }
      }
    }
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      try {
        Runtime.getRuntime().removeShutdownHook(cleanup);
      } catch (IllegalStateException e) {
        // the JVM is shutting down; the hook runs anyway
      }
      stopAndDelete();
    }
  }

  private void stopAndDelete() {
    stop();
    deleteTree(dir);
  }

  private void closeKeepingData() {
    try {
      Runtime.getRuntime().removeShutdownHook(cleanup);
    } catch (IllegalStateException | IllegalArgumentException e) {
      // not registered, or shutting down
    }
    stop();
  }

  private void stop() {
    if (Files.exists(data.resolve("postmaster.pid"))) {
      try {
        run("pg_ctl", "-D", data.toString(), "-w", "-t", "30", "-m", "immediate", "stop");
      } catch (Unavailable e) {
        // already stopped, or it will die with its directory
      }
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException | UncheckedIOException e) {
      // best effort: the directory is in the temporary directory
    }
  }

  private static Optional<Path> binDir() {
    String env = System.getenv("CI_POLICY_PG_BINDIR");
    List<Path> candidates = new ArrayList<>();
    if (env != null && !env.isBlank()) {
      candidates.add(Path.of(env));
    }
    try {
      Process p = new ProcessBuilder("pg_config", "--bindir").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && !out.isEmpty()) {
        candidates.add(Path.of(out));
      }
    } catch (IOException e) {
      // no pg_config on the PATH
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Path lib = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(lib)) {
      try (Stream<Path> versions = Files.list(lib)) {
        versions.filter(v -> v.getFileName().toString().matches("\\d+(\\.\\d+)?"))
            .sorted(Comparator.comparingDouble((Path v) -> Double.parseDouble(v.getFileName().toString())).reversed())
            .forEach(v -> candidates.add(v.resolve("bin")));
      } catch (IOException e) {
        // not listable
      }
    }
    return candidates.stream().filter(d -> Files.isExecutable(d.resolve("initdb")) && Files.isExecutable(
        d.resolve("pg_ctl"))).findFirst();
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new Unavailable("no free port on 127.0.0.1: " + e.getMessage());
    }
  }

  /** The cluster cannot be had here. */
  private static final class Unavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unavailable(String message) {
      super(message);
    }
  }
}
