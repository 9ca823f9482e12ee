package dev.cipolicy.fleet.server;

import org.jspecify.annotations.Nullable;

/**
 * Which waiting jobs an answer lists, as the page keeps it in its URL and the API takes it as query parameters
 * ({@code /api/v1/waiting-jobs}, {@code /api/v1/overview}): the matching jobs (after the {@link WorkFilter}) from
 * {@code offset}, at most {@code limit} of them. A queue of 10,000 jobs is not read row by row; the answer says
 * how many match ({@link Api.WaitingJobsPageDto}) and the next page is {@code offset + limit}.
 *
 * @param offset how many matching jobs to skip, 0 to {@value #MAX_OFFSET}
 * @param limit the most jobs listed, 1 to {@value #MAX_LIMIT}
 */
record WaitingPage(int offset, int limit) {

  /** The jobs listed unless a limit is given. */
  static final int DEFAULT_LIMIT = 100;

  /** The most jobs one answer lists. */
  static final int MAX_LIMIT = 500;

  /** The largest offset taken. */
  static final int MAX_OFFSET = 1_000_000;

  /** The first page, of {@value #DEFAULT_LIMIT} jobs. */
  static final WaitingPage FIRST = new WaitingPage(0, DEFAULT_LIMIT);

  /**
   * Reads the page from query parameters; absent or blank ones take their default (offset 0, limit
   * {@value #DEFAULT_LIMIT}).
   *
   * @param offset the {@code offset} parameter
   * @param limit the {@code limit} parameter
   * @return the page
   * @throws FleetView.BadRequest naming the parameter, its value and what was expected
   */
  static WaitingPage parse(@Nullable String offset, @Nullable String limit) {
    int o = number("offset", offset, 0, 0, MAX_OFFSET);
    int l = number("limit", limit, DEFAULT_LIMIT, 1, MAX_LIMIT);
    return new WaitingPage(o, l);
  }

  private static int number(String name, @Nullable String text, int absent, int min, int max) {
    if (text == null || text.isBlank()) {
      return absent;
    }
    String t = text.strip();
    long n;
    try {
      n = Long.parseLong(t);
    } catch (NumberFormatException e) {
      throw new FleetView.BadRequest(name + " '" + FleetView.BadRequest.printable(t) + "' is not a number; expected "
          + min + " to " + max);
    }
    if (n < min || n > max) {
      throw new FleetView.BadRequest(name + " " + n + " is out of range; expected " + min + " to " + max);
    }
    return (int) n;
  }
}
