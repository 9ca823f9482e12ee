/**
 * The PostgreSQL adapters: the job queue's {@link dev.cipolicy.queue.spi.QueueStore} and the metric gate's
 * {@link dev.cipolicy.gate.MetricHistoryStore}, each over plain JDBC on a host-supplied
 * {@link javax.sql.DataSource}, with invariants enforced inside the database and schemas shipped as versioned
 * SQL migrations.
 */
@NullMarked
package dev.cipolicy.postgres;

import org.jspecify.annotations.NullMarked;
