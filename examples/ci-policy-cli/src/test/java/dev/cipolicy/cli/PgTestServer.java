package dev.cipolicy.cli;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server of the CLI's tests: {@code CI_POLICY_PG_URL}, default
 * {@code jdbc:postgresql://127.0.0.1:5432/test}, as {@code CI_POLICY_PG_USER}, default {@code postgres}. A test
 * that needs it is skipped when it is unreachable, unless {@code CI_POLICY_PG_REQUIRED=true}, when it fails.
 *
 * @param url the JDBC URL
 * @param user the user
 */
record PgTestServer(String url, String user) {

  /** The server, checked reachable (else the test is aborted, or fails when the server is required). */
  static PgTestServer reachable() {
    String u = System.getenv("CI_POLICY_PG_URL");
    String url = u == null || u.isBlank() ? "jdbc:postgresql://127.0.0.1:5432/test" : u;
    String n = System.getenv("CI_POLICY_PG_USER");
    String user = n == null || n.isBlank() ? "postgres" : n;
    try (Connection c = DriverManager.getConnection(url, user, null)) {
      c.isValid(2);
    } catch (SQLException e) {
      String reason = "PostgreSQL is unreachable at " + url + " as " + user + " (" + e.getMessage() + ")";
      if ("true".equalsIgnoreCase(System.getenv("CI_POLICY_PG_REQUIRED"))) {
        fail("CI_POLICY_PG_REQUIRED=true but " + reason);
      }
      Assumptions.abort(reason);
    }
    return new PgTestServer(url, user);
  }

  /** A fresh schema name with the prefix, for one test. */
  static String freshSchema(String prefix) {
    return (prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12)).toLowerCase(Locale.ROOT);
  }

  /** Runs one statement: the first column of its first row when it returns rows, else its update count. */
  long sql(String statement) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, null);
        PreparedStatement st = c.prepareStatement(statement)) {
      if (st.execute()) {
        try (ResultSet rs = st.getResultSet()) {
          rs.next();
          return rs.getLong(1);
        }
      }
      return st.getUpdateCount();
    }
  }
}
