package dev.cipolicy.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A trigger on a queue schema's job table that records every committed state change in
 * {@code <schema>.job_audit}, so a fault test checks "exactly once" against what the database committed rather
 * than against what the clients believe.
 */
final class JobAudit {

  private final DataSource ds;
  private final String schema;

  private JobAudit(DataSource ds, String schema) {
    this.ds = ds;
    this.schema = schema;
  }

  /** Installs the audit table and trigger in a migrated queue schema. */
  static JobAudit install(DataSource ds, String schema) throws SQLException {
    try (Connection c = ds.getConnection()) {
      for (String sql : List.of(
          "CREATE TABLE " + schema + ".job_audit (seq bigserial PRIMARY KEY, job_id bigint NOT NULL,"
              + " old_state text NOT NULL, new_state text NOT NULL, attempt integer NOT NULL,"
              + " at timestamptz NOT NULL DEFAULT clock_timestamp())",
          "CREATE FUNCTION " + schema + ".audit_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO "
              + schema + ".job_audit (job_id, old_state, new_state, attempt) VALUES (NEW.id, OLD.state, NEW.state,"
              + " NEW.attempt); RETURN NULL; END $$",
          "CREATE TRIGGER audit AFTER UPDATE OF state ON " + schema + ".queue_jobs FOR EACH ROW"
              + " WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION " + schema + ".audit_job()")) {
        try (PreparedStatement st = c.prepareStatement(sql)) {
          st.execute();
        }
      }
    }
    return new JobAudit(ds, schema);
  }

  /** A count over the schema: {@code %s} in the query stands for the schema. */
  long count(String sql) throws SQLException {
    try (Connection c = ds.getConnection(); PreparedStatement st = c.prepareStatement(String.format(sql, schema));
        ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Jobs with more than one committed terminal transition (must be none). */
  long finishedTwice() throws SQLException {
    return count("SELECT count(*) FROM (SELECT job_id FROM %s.job_audit WHERE new_state IN ('SUCCEEDED', 'FAILED',"
        + " 'CANCELLED') GROUP BY job_id HAVING count(*) > 1) o");
  }

  /** Jobs with exactly one committed terminal transition. */
  long finishedOnce() throws SQLException {
    return count("SELECT count(*) FROM (SELECT job_id FROM %s.job_audit WHERE new_state IN ('SUCCEEDED', 'FAILED',"
        + " 'CANCELLED') GROUP BY job_id HAVING count(*) = 1) o");
  }

  /** Committed transitions out of a terminal state (must be none). */
  long leftAnEnd() throws SQLException {
    return count("SELECT count(*) FROM %s.job_audit WHERE old_state IN ('SUCCEEDED', 'FAILED', 'CANCELLED')");
  }

  /** Leases that were rescued (leased back to queued). */
  long rescued() throws SQLException {
    return count("SELECT count(*) FROM %s.job_audit WHERE old_state = 'LEASED' AND new_state = 'QUEUED'");
  }

  /** The committed transitions of one job, e.g. {@code QUEUED->LEASED@1}. */
  List<String> transitions(long jobId) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = ds.getConnection(); PreparedStatement st = c.prepareStatement("SELECT old_state, new_state,"
        + " attempt FROM " + schema + ".job_audit WHERE job_id = ? ORDER BY seq")) {
      st.setLong(1, jobId);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1) + "->" + rs.getString(2) + "@" + rs.getInt(3));
        }
      }
    }
    return out;
  }
}
