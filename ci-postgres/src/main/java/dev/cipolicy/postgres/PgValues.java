package dev.cipolicy.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How the PostgreSQL stores bind and read values, the same way in every store: text and NULL, and instants as
 * {@code timestamptz}, which holds microseconds. An instant is truncated to the microsecond (toward the past)
 * before it is bound, never left to the driver, which would round it; so the value a store keeps is the one it
 * computed with, and the queue's rule (every store keeps microseconds) holds for the bound values too. A store
 * that must keep nanoseconds (the metric history's run times) binds the microseconds here and the
 * nano-of-second in a column of its own.
 */
final class PgValues {

  /** The precision of {@code timestamptz}. */
  static final ChronoUnit TIMESTAMPTZ_PRECISION = ChronoUnit.MICROS;

  private PgValues() {}

  /**
   * The instant as {@code timestamptz} keeps it.
   *
   * @param value any instant
   * @return the instant truncated to the microsecond
   */
  static Instant stored(Instant value) {
    return value.truncatedTo(TIMESTAMPTZ_PRECISION);
  }

  /** Binds an instant, truncated to the microsecond, or NULL. */
  static void setInstant(PreparedStatement st, int i, @Nullable Instant value) throws SQLException {
    if (value == null) {
      st.setNull(i, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      st.setObject(i, OffsetDateTime.ofInstant(stored(value), ZoneOffset.UTC));
    }
  }

  /** Binds a text, or NULL. */
  static void setText(PreparedStatement st, int i, @Nullable String value) throws SQLException {
    if (value == null) {
      st.setNull(i, Types.VARCHAR);
    } else {
      st.setString(i, value);
    }
  }

  /** Binds an optional text: its value, or NULL. */
  static void setText(PreparedStatement st, int i, Optional<String> value) throws SQLException {
    setText(st, i, value.orElse(null));
  }

  /** Binds a number, or NULL. */
  static void setLong(PreparedStatement st, int i, @Nullable Long value) throws SQLException {
    if (value == null) {
      st.setNull(i, Types.BIGINT);
    } else {
      st.setLong(i, value);
    }
  }

  /** Reads a {@code timestamptz} column as an instant, or null. */
  static @Nullable Instant instant(ResultSet rs, int i) throws SQLException {
    OffsetDateTime value = rs.getObject(i, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }
}
