package dev.cipolicy.fleet.server;

import dev.cipolicy.queue.model.Request;
import java.util.Collection;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The filters of the waiting work, as the page keeps them in its URL and the API takes them as query parameters
 * ({@code /api/v1/waiting-jobs}, {@code /api/v1/queue}, {@code /api/v1/overview}): {@code pool}, {@code cadence},
 * {@code state} ({@code waiting}: a queued job of a request in progress, or a request in progress;
 * {@code not-started}: a job of a request not started yet, or that request), {@code pr} (a pull request number)
 * and {@code q}, a search matched against a request's pull request ({@code 123} or {@code #123}), its CI run id,
 * and its commit (a prefix of at least 4 characters of the SHA). Absent or blank parameters filter nothing;
 * every given filter must match.
 *
 * @param pool the pool, or null
 * @param cadence the request's cadence, or null
 * @param state {@code waiting} or {@code not-started}, or null
 * @param pr the pull request, or null
 * @param q the search text, or null
 */
record WorkFilter(@Nullable String pool, @Nullable String cadence, @Nullable String state, @Nullable Long pr,
    @Nullable String q) {

  /** The state of a queued job of a request in progress. */
  static final String WAITING = "waiting";

  /** The state of a job of a request that has not started. */
  static final String NOT_STARTED = "not-started";

  /** No filter. */
  static final WorkFilter NONE = new WorkFilter(null, null, null, null, null);

  /** The longest filter value taken. */
  private static final int MAX_LENGTH = 200;

  /**
   * Reads the filters from query parameters.
   *
   * @param pool the {@code pool} parameter
   * @param cadence the {@code cadence} parameter
   * @param state the {@code state} parameter
   * @param pr the {@code pr} parameter
   * @param q the {@code q} parameter
   * @return the filter
   * @throws FleetView.BadRequest naming the parameter, its value and what was expected
   */
  static WorkFilter parse(@Nullable String pool, @Nullable String cadence, @Nullable String state,
      @Nullable String pr, @Nullable String q) {
    String s = text("state", state);
    if (s != null && !s.equals(WAITING) && !s.equals(NOT_STARTED)) {
      throw new FleetView.BadRequest("state '" + printable(s) + "' is not a state of waiting work; expected "
          + WAITING + " or " + NOT_STARTED);
    }
    String p = text("pr", pr);
    Long number = null;
    if (p != null) {
      String digits = p.startsWith("#") ? p.substring(1) : p;
      try {
        number = Long.parseLong(digits);
      } catch (NumberFormatException e) {
        number = -1L;
      }
      if (number < 1) {
        throw new FleetView.BadRequest("pr '" + printable(p) + "' is not a pull request number; expected a positive"
            + " number such as 123");
      }
    }
    return new WorkFilter(text("pool", pool), text("cadence", cadence), s, number, text("q", q));
  }

  private static @Nullable String text(String name, @Nullable String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String v = value.strip();
    if (v.length() > MAX_LENGTH) {
      throw new FleetView.BadRequest(name + " has " + v.length() + " characters; expected at most " + MAX_LENGTH);
    }
    return v;
  }

  private static String printable(String s) {
    return s.replaceAll("[^\\x20-\\x7e]", "?");
  }

  /**
   * Whether a row of waiting work matches.
   *
   * @param request the request of the row, or null when unknown
   * @param cadence the request's cadence
   * @param pools the pools of the row (a job's pool; a request's jobs' pools)
   * @param rowState {@link #WAITING} or {@link #NOT_STARTED}
   * @return true when every given filter matches
   */
  boolean matches(@Nullable Request request, String cadence, Collection<String> pools, String rowState) {
    if (pool != null && !pools.contains(pool)) {
      return false;
    }
    if (this.cadence != null && !this.cadence.equals(cadence)) {
      return false;
    }
    if (state != null && !state.equals(rowState)) {
      return false;
    }
    if (pr == null && q == null) {
      return true;
    }
    if (request == null) {
      return false;
    }
    Long own = prOf(request);
    if (pr != null && !pr.equals(own)) {
      return false;
    }
    String term = q;
    return term == null || search(term, request, own);
  }

  private static boolean search(String text, Request r, @Nullable Long own) {
    String term = text.toLowerCase(Locale.ROOT);
    String digits = term.startsWith("#") ? term.substring(1) : term;
    if (!digits.isEmpty() && digits.chars().allMatch(Character::isDigit)) {
      if (own != null && digits.equals(Long.toString(own))) {
        return true;
      }
      if (r.ciRun().isPresent() && digits.equals(Long.toString(r.ciRun().get().runId()))) {
        return true;
      }
    }
    if (term.length() < 4) {
      return false;
    }
    if (r.tag().isPresent() && r.tag().get().toLowerCase(Locale.ROOT).startsWith(term)) {
      return true;
    }
    return r.ciRun().isPresent() && r.ciRun().get().commitSha().toLowerCase(Locale.ROOT).startsWith(term);
  }

  /** A request's pull request: its own (a try), else its CI run's. */
  static @Nullable Long prOf(Request r) {
    if (r.pr().isPresent()) {
      return r.pr().getAsLong();
    }
    return r.ciRun().filter(c -> c.pr().isPresent()).map(c -> c.pr().getAsLong()).orElse(null);
  }
}
