package dev.cipolicy.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * One ordered set of versioned SQL scripts shipped in this jar, and the work that checks a schema's applied
 * versions against it and applies the ones the schema lacks, in a transaction the caller runs
 * ({@link PgTransactions}). Shared by the queue's and the metric history's migrators, which differ only in
 * their resource directory, version table, placeholders, retry policy and exception types.
 *
 * <p>The work takes an advisory transaction lock on the given key first, so that migrations from any number
 * of processes run one at a time; creates the schema and the version table if needed; reads the recorded
 * versions; and, unless the schema is already newer than this set, checks every recorded version against the
 * shipped script (its name and {@linkplain #checksum(String) checksum}), then runs each missing script and
 * records it with its checksum. A schema newer than the set is left untouched and its version returned, so the
 * caller can refuse it with its own exception; a recorded version that disagrees with the shipped script, and
 * a version table written by the pre-release migrator (without checksums), are {@link Refused}.
 */
final class SqlMigrationSet {

  /** A script of the set is missing from the jar or unreadable; the transaction is rolled back. */
  static final class ScriptUnavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ScriptUnavailable(String message, @Nullable Throwable cause) {
      super(message, cause);
    }

    @Override
    public String getMessage() {
      return Objects.requireNonNull(super.getMessage());
    }
  }

  /**
   * The schema's recorded migrations do not match this set (an edited migration, a gap, or a version table of
   * the pre-release chain); nothing was changed. The message is one line naming the migration, the schema and
   * the way out, for the caller to wrap in its own exception type.
   */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }

    @Override
    public String getMessage() {
      return Objects.requireNonNull(super.getMessage());
    }
  }

  /**
   * Where the refusals point to, and what they call the migrated objects.
   *
   * @param subject what the set's objects are, e.g. {@code tables ci_queue.queue_*}
   * @param versionTable the version table as an operator writes it, e.g. {@code ci_queue.queue_schema_version}
   * @param dropAdvice how to remove the objects so that the store creates them again
   */
  record Target(String subject, String versionTable, String dropAdvice) {}

  /** A recorded version: its number, script name and checksum. */
  private record Applied(int version, String script, String checksum) {}

  private final List<String> paths;
  private final int preReleaseVersion;

  /**
   * @param resourceDirectory the directory of the scripts relative to this package, e.g. {@code migrations}
   * @param scripts the script file names in version order (version n is element n-1)
   * @param preReleaseVersion the last version of the pre-release chain this set replaces (a version table of
   *     the pre-release migrator at that version can be adopted by hand, docs/postgres.md)
   */
  SqlMigrationSet(String resourceDirectory, List<String> scripts, int preReleaseVersion) {
    this(scripts.stream().map(s -> resourceDirectory + "/" + s).toList(), preReleaseVersion);
  }

  private SqlMigrationSet(List<String> paths, int preReleaseVersion) {
    this.paths = List.copyOf(paths);
    this.preReleaseVersion = preReleaseVersion;
  }

  /**
   * This set with one more version: the script at {@code resourcePath} (relative to this package).
   *
   * @param resourcePath the script, e.g. {@code later-migrations/V2__more.sql}
   * @return the longer set
   */
  SqlMigrationSet plus(String resourcePath) {
    List<String> longer = new ArrayList<>(paths);
    longer.add(resourcePath);
    return new SqlMigrationSet(longer, preReleaseVersion);
  }

  /** The latest version of the set. */
  int latestVersion() {
    return paths.size();
  }

  /** The script names in version order. */
  List<String> scripts() {
    return paths.stream().map(SqlMigrationSet::name).toList();
  }

  /**
   * The checksum this set ships for a version.
   *
   * @param version 1 to {@link #latestVersion()}
   * @return its script's {@linkplain #checksum(String) checksum}
   * @throws ScriptUnavailable when the script is missing from the jar
   */
  String checksum(int version) {
    return checksum(load(paths.get(version - 1)));
  }

  /**
   * The checksum of a script's text: the lower-case hex SHA-256 of its UTF-8 bytes after normalizing what
   * editors and checkouts change without changing the SQL — a leading byte order mark dropped, line ends
   * ({@code \r\n}, {@code \r}) made {@code \n}, white space at the end of each line and blank lines at the end
   * of the text removed. Everything else counts, comments included: a released script is never edited.
   * Placeholders are hashed unexpanded, so the checksum does not depend on the schema or the prefix.
   *
   * @param text the script as shipped
   * @return 64 hex digits
   */
  static String checksum(String text) {
    String t = text.startsWith("\uFEFF") ? text.substring(1) : text;
    t = t.replace("\r\n", "\n").replace('\r', '\n').replaceAll("[ \\t\\f]+\n", "\n").replaceAll("\\s+$", "");
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(t.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /**
   * Checks and applies the missing scripts on a connection in a transaction (the caller commits or rolls
   * back).
   *
   * @param c the connection, not in auto-commit mode
   * @param lockKey the advisory lock key (hashed with {@code hashtext})
   * @param quotedSchema the schema, already validated and quoted
   * @param versionTable the qualified version table, e.g. {@code "s".queue_schema_version}
   * @param expand replaces the placeholders of a script's text
   * @param target what refusals name
   * @return the version recorded before; greater than {@link #latestVersion()} when the schema is newer than
   *     this set, in which case nothing was changed
   * @throws SQLException when the database fails
   * @throws ScriptUnavailable when a script to apply or to compare is missing from the jar
   * @throws Refused when a recorded version disagrees with the shipped script, the recorded versions have a
   *     gap, or the version table is the pre-release migrator's
   */
  int apply(Connection c, String lockKey, String quotedSchema, String versionTable, UnaryOperator<String> expand,
      Target target) throws SQLException {
    try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
      lock.setString(1, lockKey);
      lock.execute();
    }
    exec(c, "CREATE SCHEMA IF NOT EXISTS " + quotedSchema);
    refusePreRelease(c, versionTable, target);
    exec(c, "CREATE TABLE IF NOT EXISTS " + versionTable + " (version integer PRIMARY KEY,"
        + " script text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
    List<Applied> applied = new ArrayList<>();
    try (PreparedStatement q = c.prepareStatement("SELECT version, script, checksum FROM " + versionTable
        + " ORDER BY version"); ResultSet rs = q.executeQuery()) {
      while (rs.next()) {
        applied.add(new Applied(rs.getInt(1), rs.getString(2), rs.getString(3)));
      }
    }
    int current = applied.isEmpty() ? 0 : applied.get(applied.size() - 1).version();
    if (current > paths.size()) {
      return current;
    }
    for (int i = 0; i < applied.size(); i++) {
      Applied a = applied.get(i);
      if (a.version() != i + 1) {
        throw new Refused(target.versionTable() + " records version " + a.version() + " but not version " + (i + 1)
            + ", so the migrations of " + target.subject() + " were not applied by this migrator; "
            + target.dropAdvice() + " and let the store create them again");
      }
      verify(a, target);
    }
    for (int v = current + 1; v <= paths.size(); v++) {
      String path = paths.get(v - 1);
      String text = load(path);
      exec(c, expand.apply(text));
      try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + versionTable
          + " (version, script, checksum) VALUES (?, ?, ?)")) {
        ins.setInt(1, v);
        ins.setString(2, name(path));
        ins.setString(3, checksum(text));
        ins.executeUpdate();
      }
    }
    return current;
  }

  /** Refuses a recorded version whose script name or checksum is not the shipped one's. */
  private void verify(Applied a, Target target) {
    String script = name(paths.get(a.version() - 1));
    String checksum = checksum(a.version());
    if (a.script().equals(script) && a.checksum().equals(checksum)) {
      return;
    }
    String as = a.script().equals(script) ? "" : " as " + oneLine(a.script());
    String shippedAs = a.script().equals(script) ? "" : " as " + script;
    throw new Refused("migration " + a.version() + " (" + script + ") of " + target.subject() + " was applied" + as
        + " with checksum " + oneLine(a.checksum()) + " (recorded in " + target.versionTable()
        + ") but this ci-postgres ships it" + shippedAs + " with checksum " + checksum
        + ": a migration was edited after it was applied, and the schema may not be what this version expects;"
        + " use the ci-postgres that applied it, or " + target.dropAdvice() + " and let the store create them"
        + " again, or, if you have made the schema match the shipped script, record its checksum: UPDATE "
        + target.versionTable() + " SET script = '" + script + "', checksum = '" + checksum + "' WHERE version = "
        + a.version());
  }

  /**
   * Refuses a version table written by the pre-release migrator (it has no checksum column): its schema was
   * built by the chain of scripts this set replaces, which this set does not upgrade.
   */
  private void refusePreRelease(Connection c, String versionTable, Target target) throws SQLException {
    boolean exists;
    boolean hasChecksums;
    try (PreparedStatement q = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL, EXISTS (SELECT 1 FROM"
        + " pg_attribute WHERE attrelid = to_regclass(?) AND attname = 'checksum' AND NOT attisdropped)")) {
      q.setString(1, versionTable);
      q.setString(2, versionTable);
      try (ResultSet rs = q.executeQuery()) {
        rs.next();
        exists = rs.getBoolean(1);
        hasChecksums = rs.getBoolean(2);
      }
    }
    if (!exists || hasChecksums) {
      return;
    }
    int version;
    try (PreparedStatement q = c.prepareStatement("SELECT coalesce(max(version), 0) FROM " + versionTable);
        ResultSet rs = q.executeQuery()) {
      rs.next();
      version = rs.getInt(1);
    }
    String adopt = version == preReleaseVersion
        ? ", or, since it is at the last pre-release version, adopt it as version 1 as docs/postgres.md"
            + " (\"Schemas from before 0.1.0\") describes, recording checksum " + checksum(1)
        : "";
    throw new Refused(target.subject() + " were created by a pre-release schema chain (" + target.versionTable()
        + " records version " + version + " of " + preReleaseVersion + " and no checksums), which this ci-postgres"
        + " does not upgrade; " + target.dropAdvice() + " and let the store create them again" + adopt);
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.execute();
    }
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /**
   * A recorded value as part of a one-line message: control characters (line breaks) shown as {@code ?}, at
   * most 100 characters.
   */
  private static String oneLine(String value) {
    String line = value.replaceAll("\\p{Cntrl}", "?");
    return line.length() <= 100 ? line : line.substring(0, 100) + "...";
  }

  private static String load(String path) {
    try (InputStream in = SqlMigrationSet.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new ScriptUnavailable("migration " + path + " is missing from the ci-postgres jar", null);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ScriptUnavailable("could not read migration " + path + ": " + e.getMessage(), e);
    }
  }
}
