package dev.cipolicy.benchmarks.postgres;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's raw rate of single-row {@code UPDATE ... RETURNING} transactions, measured with pgbench: a
 * scratch schema holds a table of {@value #ROWS} rows; each pgbench transaction updates one random row and
 * returns its new value (one statement, auto-commit, prepared protocol). This is the practical ceiling of
 * any queue on this server that needs a durable commit per job.
 */
final class Pgbench {
  static final int ROWS = 1000;
  private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");

  private Pgbench() {
  }

  /** The pgbench executable: on PATH, or PostgreSQL 15's, or null when neither exists. */
  static String executable() {
    for (String candidate : List.of("/usr/lib/postgresql/15/bin/pgbench", "/usr/bin/pgbench")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    return "";
  }

  /** pgbench's version line, e.g. {@code pgbench (PostgreSQL) 15.20}. */
  static String version(String pgbench) {
    return run(List.of(pgbench, "--version")).trim();
  }

  /**
   * Runs pgbench with {@code clients} connections for {@code seconds} on a fresh scratch schema, which it
   * drops afterwards.
   *
   * @return transactions (single-row updates) per second
   */
  static double tps(BenchDatabase db, String pgbench, int clients, int seconds) {
    String schema = BenchDatabase.freshSchema("pgbench_scratch");
    Path script = null;
    try {
      db.exec("CREATE SCHEMA " + schema);
      db.exec("CREATE TABLE " + schema + ".counters (id integer PRIMARY KEY, n bigint NOT NULL)");
      db.exec("INSERT INTO " + schema + ".counters SELECT i, 0 FROM generate_series(1, " + ROWS + ") i");
      db.exec("VACUUM ANALYZE " + schema + ".counters");
      script = Files.createTempFile("pgbench-update-returning", ".sql");
      Files.writeString(script, "\\set id random(1, " + ROWS + ")\n"
          + "UPDATE " + schema + ".counters SET n = n + 1 WHERE id = :id RETURNING n;\n", StandardCharsets.UTF_8);
      URI uri = URI.create(db.url.substring("jdbc:".length()));
      String host = uri.getHost() == null ? "127.0.0.1" : uri.getHost();
      int port = uri.getPort() < 0 ? 5432 : uri.getPort();
      String database = uri.getPath().substring(1);
      String out = run(List.of(pgbench, "-h", host, "-p", Integer.toString(port), "-U", db.user, "-n",
          "-M", "prepared", "-c", Integer.toString(clients), "-j", Integer.toString(Math.min(clients, 2)),
          "-T", Integer.toString(seconds), "-f", script.toString(), database));
      Matcher m = TPS.matcher(out);
      if (!m.find()) {
        throw new IllegalStateException("no tps in pgbench output:\n" + out);
      }
      return Double.parseDouble(m.group(1));
    } catch (IOException e) {
      throw new IllegalStateException("cannot write the pgbench script: " + e.getMessage(), e);
    } finally {
      db.dropSchema(schema);
      if (script != null) {
        try {
          Files.deleteIfExists(script);
        } catch (IOException e) {
          // a temporary file left behind is harmless
        }
      }
    }
  }

  private static String run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int code = p.waitFor();
      if (code != 0) {
        throw new IllegalStateException(String.join(" ", command) + " exited with " + code + ":\n" + out);
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static String format(double tps) {
    return String.format(Locale.ROOT, "%.0f", tps);
  }
}
