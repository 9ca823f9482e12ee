/**
 * The PostgreSQL adapters of the job queue's {@code QueueStore} and the gate's {@code MetricHistoryStore},
 * over plain JDBC on a host-supplied {@code DataSource}, with their SQL migrations as resources.
 */
module dev.cipolicy.postgres {
  requires transitive dev.cipolicy.queue;
  requires transitive dev.cipolicy.gate;
  requires static transitive org.jspecify;
  // The host's DataSource and the SQLExceptions of the adapters' API.
  requires transitive java.sql;
  // LISTEN/NOTIFY wake-ups use the driver's PGConnection and PGNotification internally.
  requires org.postgresql.jdbc;

  exports dev.cipolicy.postgres;
}
