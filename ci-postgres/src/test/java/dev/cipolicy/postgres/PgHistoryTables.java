package dev.cipolicy.postgres;

/** Test helpers for the metric history tables in a {@link PgTestDatabase} schema. */
final class PgHistoryTables {
  private PgHistoryTables() {}

  /** Empties every metric history table and restarts ids, as for a fresh store. */
  static void truncate(PgTestDatabase db) {
    String s = db.schema;
    db.exec("TRUNCATE " + s + ".gate_level_starts, " + s + ".gate_values, " + s + ".gate_runs, " + s
        + ".gate_coordinates, " + s + ".gate_series RESTART IDENTITY");
  }
}
