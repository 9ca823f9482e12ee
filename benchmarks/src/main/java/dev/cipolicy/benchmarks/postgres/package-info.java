/**
 * The PostgreSQL queue benchmark: {@code PostgresQueueStore} (per-job and batched claiming) against
 * db-scheduler's lock-and-fetch polling and the server's raw pgbench rate, on one server in one run. Run
 * on demand, see docs/performance.md.
 */
@NullMarked
package dev.cipolicy.benchmarks.postgres;

import org.jspecify.annotations.NullMarked;
