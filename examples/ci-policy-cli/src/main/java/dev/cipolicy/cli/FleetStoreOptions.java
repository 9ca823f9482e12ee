package dev.cipolicy.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.queue.spi.QueueStore;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine.Option;

/**
 * The fleet's shared queue store: the PostgreSQL database {@code --store} [{@value #URL_ENV}], a JDBC URL such as
 * {@code jdbc:postgresql://db:5432/ci}, in the schema {@code --store-schema} [{@value #SCHEMA_ENV}], default
 * {@value #DEFAULT_SCHEMA}; user and password as in the URL or {@value #USER_ENV} and {@value #PASSWORD_ENV} (the
 * password never from a flag). Connecting gives up after {@value #CONNECT_SECONDS} s and a statement after
 * {@value #SOCKET_SECONDS} s.
 */
final class FleetStoreOptions {
  static final String URL_ENV = "CI_POLICY_FLEET_STORE";
  static final String SCHEMA_ENV = "CI_POLICY_FLEET_SCHEMA";
  static final String USER_ENV = "CI_POLICY_PG_USER";
  static final String PASSWORD_ENV = "CI_POLICY_PG_PASSWORD";
  static final String DEFAULT_SCHEMA = "ci_fleet";
  static final int CONNECT_SECONDS = 10;
  static final int SOCKET_SECONDS = 60;

  @Option(names = "--store", paramLabel = "JDBC_URL",
      description = "The fleet's PostgreSQL database, e.g. jdbc:postgresql://db:5432/ci [" + URL_ENV + "].")
  private @Nullable String url;

  @Option(names = "--store-schema", paramLabel = "SCHEMA",
      description = "The schema of the queue tables [" + SCHEMA_ENV + "], default " + DEFAULT_SCHEMA + ".")
  private @Nullable String schema;

  /** Whether a store is given, by the flag or the environment. */
  boolean given(Map<String, String> env) {
    return Inputs.flagOrEnv(url, env, URL_ENV).filter(s -> !s.isBlank()).isPresent();
  }

  /** The data source of the store, from flags, else the environment. */
  DataSource dataSource(Map<String, String> env) {
    String u = Inputs.flagOrEnv(url, env, URL_ENV).filter(s -> !s.isBlank()).orElseThrow(() ->
        new InvalidInputException("no fleet store: give --store jdbc:postgresql://HOST:PORT/DB or set " + URL_ENV));
    PGSimpleDataSource ds = HistoryStoreOptions.postgres("--store", u,
        Optional.ofNullable(env.get(USER_ENV)).filter(s -> !s.isBlank()), Optional.ofNullable(env.get(PASSWORD_ENV)),
        "ci-policy fleet");
    ds.setConnectTimeout(CONNECT_SECONDS);
    ds.setSocketTimeout(SOCKET_SECONDS);
    return ds;
  }

  /** The schema, from the flag, else the environment, else the default. */
  String schema(Map<String, String> env) {
    String s = schema != null ? schema : env.getOrDefault(SCHEMA_ENV, DEFAULT_SCHEMA);
    if (!s.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new InvalidInputException("--store-schema '" + s.replaceAll("[^\\x20-\\x7e]", "?")
          + "' is not a schema name; expected [a-z_][a-z0-9_]* of at most 63 characters");
    }
    return s;
  }

  /** The store, its schema created or migrated when needed. */
  QueueStore open(Map<String, String> env) {
    return PostgresQueueStore.create(dataSource(env), schema(env));
  }

  /**
   * The store over a pool of at most {@code size} connections (HikariCP), for a long-running command: without
   * one, every store call opens a connection, a PostgreSQL backend process of its own (about 0.1 s on a loaded
   * machine, against under 1 ms for the query itself). The schema is created or migrated first over a single
   * connection, as {@link #open} does, so an unreachable database is reported the same way. Waiting for a free
   * connection gives up after {@value #CONNECT_SECONDS} s.
   *
   * @param env the environment
   * @param size the most connections, 1 to {@value #MAX_POOL} (checked by the command's option)
   * @param name the pool's name, e.g. {@code ci-policy-fleet-serve}
   * @return the store and its pool, which the caller closes
   */
  Pooled openPooled(Map<String, String> env, int size, String name) {
    DataSource single = dataSource(env);
    String s = schema(env);
    PostgresQueueStore.create(single, s);
    HikariConfig config = new HikariConfig();
    config.setDataSource(single);
    config.setPoolName(name);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(CONNECT_SECONDS * 1000L);
    // The database was reached just above: the pool opens its connections when they are first needed.
    config.setInitializationFailTimeout(-1);
    HikariDataSource pool = new HikariDataSource(config);
    return new Pooled(PostgresQueueStore.attach(pool, s), pool);
  }

  /** The most connections a pool of {@link #openPooled} holds. */
  static final int MAX_POOL = 64;

  /**
   * A store over a connection pool; closing it closes the pool's connections.
   *
   * @param store the store
   * @param pool its connections
   */
  record Pooled(QueueStore store, HikariDataSource pool) implements AutoCloseable {
    @Override
    public void close() {
      pool.close();
    }
  }
}
