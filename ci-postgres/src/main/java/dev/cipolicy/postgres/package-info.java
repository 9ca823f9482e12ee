/**
 * The PostgreSQL {@link dev.cipolicy.queue.spi.QueueStore}: the job queue over plain JDBC on a host-supplied
 * {@link javax.sql.DataSource}, with every invariant enforced inside the database and its schema shipped as
 * versioned SQL migrations.
 */
@NullMarked
package dev.cipolicy.postgres;

import org.jspecify.annotations.NullMarked;
