package dev.cipolicy.cli;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.CoordinateHistory;
import dev.cipolicy.gate.HistorySample;
import dev.cipolicy.gate.MetricHistoryStore;
import dev.cipolicy.gate.Revocation;
import dev.cipolicy.gate.RevocationResult;
import dev.cipolicy.gate.RunId;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.gate.WriteResult;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import dev.cipolicy.postgres.PostgresHistoryMigrations;
import dev.cipolicy.postgres.PostgresMetricHistoryStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine.Option;

/**
 * Where the gate commands keep baseline history: {@code --history-store memory} (the default; the in-memory
 * store persisted in the JSON file {@code --history}) or {@code --history-store postgres} (the
 * {@link PostgresMetricHistoryStore} in the schema {@code --pg-schema} of the database {@code --pg-url}).
 *
 * <p>PostgreSQL connection settings come from flags, else environment variables: {@code --pg-url}
 * [{@value #URL_ENV}], a JDBC URL such as {@code jdbc:postgresql://db:5432/ci}; {@code --pg-user}
 * [{@value #USER_ENV}]; {@code --pg-schema} [{@value #SCHEMA_ENV}], default {@value #DEFAULT_SCHEMA}. The
 * password is read only from {@value #PASSWORD_ENV} (or the URL), never from a flag, so that it stays out of
 * process listings and shell history. A missing URL, a URL that is not {@code jdbc:postgresql:}, a bad schema
 * name, or {@code --history} with the PostgreSQL store are unusable arguments (exit 1); a database that
 * cannot be reached is not — see {@link GateCommand} and docs/cli-gate.md.
 */
final class HistoryStoreOptions {
  static final String URL_ENV = "CI_POLICY_PG_URL";
  static final String USER_ENV = "CI_POLICY_PG_USER";
  static final String PASSWORD_ENV = "CI_POLICY_PG_PASSWORD";
  static final String SCHEMA_ENV = "CI_POLICY_PG_SCHEMA";
  static final String DEFAULT_SCHEMA = "ci_gate";

  @Option(names = "--history", paramLabel = "FILE",
      description = "The history file of the memory store (JSON); a baseline write creates it.")
  private @Nullable String history;

  @Option(names = "--history-store", defaultValue = "memory", paramLabel = "KIND",
      description = "Where history lives: memory (default; persisted in --history) or postgres.")
  private String kind = "memory";

  @Option(names = "--pg-url", paramLabel = "JDBC_URL",
      description = "The PostgreSQL database, e.g. jdbc:postgresql://db:5432/ci [" + URL_ENV + "].")
  private @Nullable String pgUrl;

  @Option(names = "--pg-user", paramLabel = "USER", description = "The PostgreSQL user [" + USER_ENV + "].")
  private @Nullable String pgUser;

  @Option(names = "--pg-schema", paramLabel = "SCHEMA",
      description = "The schema of the history tables [" + SCHEMA_ENV + "], default " + DEFAULT_SCHEMA + ".")
  private @Nullable String pgSchema;

  /** The history a command works on, and how to keep what it changed. */
  static final class OpenedHistory {
    private final MetricHistoryStore store;
    private final @Nullable Path file;
    private final String where;

    private OpenedHistory(MetricHistoryStore store, @Nullable Path file, String where) {
      this.store = store;
      this.file = file;
      this.where = where;
    }

    /** The store. */
    MetricHistoryStore store() {
      return store;
    }

    /** Whether written history outlives the command (a history file or a database). */
    boolean persistent() {
      return file != null || !(store instanceof InMemoryMetricHistoryStore);
    }

    /** Saves a memory store to its file; the database keeps its own writes. */
    void save() {
      if (file != null && store instanceof InMemoryMetricHistoryStore memory) {
        GateCommand.save(file, GateFiles.history(memory));
      }
    }

    /** Where the history lives, for messages. */
    String where() {
      return where;
    }
  }

  /**
   * Opens the history.
   *
   * @param cli the CLI: environment and paths
   * @param fileRequired whether the memory store needs an existing {@code --history} file (revoke, replay)
   * @param migrateLazily for the PostgreSQL store: connect and migrate on first use (gate: inside the hook,
   *     which reports a failure as a value), else attach to an already migrated schema at once
   */
  OpenedHistory open(CiPolicyCli cli, boolean fileRequired, boolean migrateLazily) {
    switch (kind) {
      case "memory" -> {
        if (history == null) {
          if (fileRequired) {
            throw new Inputs.InputException("--history FILE is required with --history-store memory");
          }
          return new OpenedHistory(new InMemoryMetricHistoryStore(), null, "memory");
        }
        Path path = cli.resolvePath(history);
        if (fileRequired && !Files.exists(path)) {
          throw new Inputs.InputException("cannot read history file " + history + ": no such file");
        }
        return new OpenedHistory(GateCommand.loadHistory(Optional.of(path), history), path, history);
      }
      case "postgres" -> {
        if (history != null) {
          throw new Inputs.InputException("--history names the memory store's file; with --history-store postgres"
              + " the history lives in the database (drop --history)");
        }
        Map<String, String> env = cli.environment();
        String url = Inputs.flagOrEnv(pgUrl, env, URL_ENV).filter(s -> !s.isBlank()).orElseThrow(() ->
            new Inputs.InputException("--history-store postgres needs --pg-url or " + URL_ENV
                + " (a JDBC URL such as jdbc:postgresql://db:5432/ci)"));
        String schema = Inputs.flagOrEnv(pgSchema, env, SCHEMA_ENV).filter(s -> !s.isBlank()).orElse(DEFAULT_SCHEMA);
        try {
          PostgresHistoryMigrations.validSchema(schema);
        } catch (InvalidInputException e) {
          throw new Inputs.InputException("--pg-schema: " + e.getMessage());
        }
        DataSource dataSource = postgres("--pg-url", url, Inputs.flagOrEnv(pgUser, env, USER_ENV)
            .filter(s -> !s.isBlank()), Optional.ofNullable(env.get(PASSWORD_ENV)).filter(s -> !s.isEmpty()),
            "ci-policy gate");
        String where = "PostgreSQL schema " + schema;
        if (migrateLazily) {
          return new OpenedHistory(new Deferred(() -> PostgresMetricHistoryStore.create(dataSource, schema)), null,
              where);
        }
        return new OpenedHistory(PostgresMetricHistoryStore.attach(dataSource, schema), null, where);
      }
      default -> throw new Inputs.InputException("unknown --history-store '" + kind
          + "'; expected memory or postgres");
    }
  }

  /**
   * A PostgreSQL data source of the CLI: the URL checked (a {@code jdbc:postgresql:} URL the driver accepts), the
   * user and password set when given, the application name shown in {@code pg_stat_activity}.
   *
   * @param flag the flag the URL came from, for the error
   * @param url the JDBC URL
   * @param user the user, if not in the URL
   * @param password the password, if not in the URL
   * @param application the application name
   * @return the data source
   * @throws Inputs.InputException when the URL is not a PostgreSQL JDBC URL
   */
  static PGSimpleDataSource postgres(String flag, String url, Optional<String> user, Optional<String> password,
      String application) {
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new Inputs.InputException(flag + " '" + url + "' is not a PostgreSQL JDBC URL; expected"
          + " jdbc:postgresql://host:port/database");
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    try {
      ds.setURL(url);
    } catch (IllegalArgumentException e) {
      throw new Inputs.InputException(flag + " '" + url + "' is not a valid PostgreSQL JDBC URL: " + e.getMessage());
    }
    user.ifPresent(ds::setUser);
    password.ifPresent(ds::setPassword);
    ds.setApplicationName(application);
    return ds;
  }

  /**
   * The PostgreSQL store, opened (and migrated) on first use: a run that declares no gate never connects, and
   * a database that cannot be reached fails inside the gate hook, which reports it and never throws.
   */
  private static final class Deferred implements MetricHistoryStore {
    private final Supplier<MetricHistoryStore> open;
    private @Nullable MetricHistoryStore store;

    Deferred(Supplier<MetricHistoryStore> open) {
      this.open = open;
    }

    private synchronized MetricHistoryStore store() {
      MetricHistoryStore s = store;
      if (s == null) {
        s = open.get();
        store = s;
      }
      return s;
    }

    @Override
    public Map<Coordinate, CoordinateHistory> read(SeriesKey series, Set<Coordinate> coordinates, int trustedLimit,
        int recentLimit) {
      return store().read(series, coordinates, trustedLimit, recentLimit);
    }

    @Override
    public WriteResult write(RunRecord run) {
      return store().write(run);
    }

    @Override
    public RevocationResult revoke(Revocation revocation) {
      return store().revoke(revocation);
    }

    @Override
    public int acceptLevelShift(SeriesKey series, Coordinate coordinate, List<RunId> runs) {
      return store().acceptLevelShift(series, coordinate, runs);
    }

    @Override
    public List<HistorySample> history(SeriesKey series, Coordinate coordinate) {
      return store().history(series, coordinate);
    }

    @Override
    public List<Coordinate> coordinates(SeriesKey series) {
      return store().coordinates(series);
    }
  }
}
