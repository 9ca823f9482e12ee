package dev.cipolicy.benchmarks.postgres;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A {@link DataSource} that counts, on the client side, what its users send to the server: SQL statements
 * (a JDBC batch counts each of its statements), round trips (one per execute, per batch, per commit and per
 * rollback) and commits (explicit {@link Connection#commit()} calls plus every statement executed in
 * auto-commit mode, which the server commits by itself). The benchmark uses it because
 * {@code pg_stat_statements} is not loaded on the shared server and {@code pg_stat_database} counts every
 * client of the database, not only this one.
 */
final class CountingDataSource implements DataSource {

  /** A snapshot of the counters. */
  record Counts(long statements, long roundTrips, long commits, long rollbacks) {

    Counts minus(Counts before) {
      return new Counts(statements - before.statements, roundTrips - before.roundTrips, commits - before.commits,
          rollbacks - before.rollbacks);
    }
  }

  private final DataSource delegate;
  private final LongAdder statements = new LongAdder();
  private final LongAdder roundTrips = new LongAdder();
  private final LongAdder commits = new LongAdder();
  private final LongAdder rollbacks = new LongAdder();

  CountingDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  Counts counts() {
    return new Counts(statements.sum(), roundTrips.sum(), commits.sum(), rollbacks.sum());
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return wrap(delegate.getConnection(username, password));
  }

  private Connection wrap(Connection connection) {
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
        new ConnectionHandler(connection));
  }

  private static @Nullable Object call(Object target, Method method, @Nullable Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** Counts commits and rollbacks, and wraps the statements it creates. */
  private final class ConnectionHandler implements InvocationHandler {
    private final Connection connection;

    ConnectionHandler(Connection connection) {
      this.connection = connection;
    }

    @Override
    public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
      switch (method.getName()) {
        case "commit" -> {
          commits.increment();
          roundTrips.increment();
        }
        case "rollback" -> {
          if (args == null) {
            rollbacks.increment();
            roundTrips.increment();
          }
        }
        default -> {
          // counted where executed
        }
      }
      Object result = call(connection, method, args);
      if (result instanceof Statement statement && Statement.class.isAssignableFrom(method.getReturnType())) {
        Class<?> type = method.getReturnType();
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
            new StatementHandler(connection, statement));
      }
      return result;
    }
  }

  /** Counts executions and batches of one statement. */
  private final class StatementHandler implements InvocationHandler {
    private final Connection connection;
    private final Statement statement;
    private int batched;

    StatementHandler(Connection connection, Statement statement) {
      this.connection = connection;
      this.statement = statement;
    }

    @Override
    public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
      String name = method.getName();
      if (name.equals("addBatch")) {
        batched++;
      } else if (name.equals("clearBatch")) {
        batched = 0;
      } else if (name.equals("executeBatch") || name.equals("executeLargeBatch")) {
        if (batched > 0) {
          statements.add(batched);
          roundTrips.increment();
          if (connection.getAutoCommit()) {
            commits.add(batched);
          }
        }
        batched = 0;
      } else if (name.startsWith("execute")) {
        statements.increment();
        roundTrips.increment();
        if (connection.getAutoCommit()) {
          commits.increment();
        }
      }
      return call(statement, method, args);
    }
  }

  @Override
  public @Nullable PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(@Nullable PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    if (iface.isInstance(this)) {
      return iface.cast(this);
    }
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return iface.isInstance(this) || delegate.isWrapperFor(iface);
  }
}
