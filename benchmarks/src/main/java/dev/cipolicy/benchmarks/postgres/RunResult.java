package dev.cipolicy.benchmarks.postgres;

import java.util.Locale;

/**
 * One measured drain (after a lead of completions on the same pool that is not measured, so that the
 * connections' server sessions have planned and cached the statements, as in a running application): {@code jobs} pre-enqueued jobs claimed and completed by {@code threads} collector
 * threads in {@code seconds}, with the client-side counts of what was sent and the server-side counts of
 * what it did, both taken over the measured interval only.
 *
 * @param system which queue, e.g. {@code store-batched-16}
 * @param threads collector (or executor) threads
 * @param round the repetition, from 1
 * @param jobs jobs completed inside the measured window
 * @param seconds wall time of the measured window: from the completion that opens it (the {@code lead}-th of
 *     the run, or the start when {@code lead} is 0) to the last completion
 * @param serverJobs jobs the server counts cover: the whole run including the lead (the server's counters
 *     cannot be read at an instant inside a run)
 * @param client statements, round trips and commits sent through the pool inside the measured window
 * @param server the database's commits (every client of the database), the schema's row writes and the
 *     server's WAL bytes
 * @param loadBefore the machine's 1-minute load average before the run
 * @param loadAfter the machine's 1-minute load average after the run
 */
record RunResult(String system, int threads, int round, long jobs, double seconds, long serverJobs,
    CountingDataSource.Counts client, BenchDatabase.ServerStats server, double loadBefore, double loadAfter) {

  double jobsPerSecond() {
    return jobs / seconds;
  }

  double perJob(long count) {
    return (double) count / jobs;
  }

  double perServerJob(long count) {
    return (double) count / serverJobs;
  }

  String line() {
    return String.format(Locale.ROOT, "round %d | %-26s | %2d threads | %6d jobs | %7.2f s | %8.0f jobs/s"
        + " | %5.2f stmt/job | %5.2f rt/job | %5.2f commit/job | %d rollbacks"
        + " | server: %5.2f xact/job (database-wide), %5.2f rows/job (%2.0f%% HOT updates),"
        + " %5.0f WAL bytes/job (server-wide) | load %.1f -> %.1f",
        round, system, threads, jobs, seconds, jobsPerSecond(),
        perJob(client.statements()), perJob(client.roundTrips()), perJob(client.commits()), client.rollbacks(),
        perServerJob(server.xactCommit()), perServerJob(server.rowsWritten()),
        server.updated() == 0 ? 0.0 : 100.0 * server.hotUpdated() / server.updated(), perServerJob(server.walBytes()),
        loadBefore, loadAfter);
  }
}
