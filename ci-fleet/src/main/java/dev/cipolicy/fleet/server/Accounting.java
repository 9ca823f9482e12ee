package dev.cipolicy.fleet.server;

import dev.cipolicy.fleet.server.Api.AccountingDto;
import dev.cipolicy.fleet.server.Api.GpuHoursDto;
import dev.cipolicy.fleet.server.Api.ShareSeriesDto;
import dev.cipolicy.fleet.server.Api.WaitPercentilesDto;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The accounting an operator asks for after a week, computed from recorded facts only (no store access here):
 * GPU-hours per cadence and pool, the wait from ready to claim per GPU count (p50, p90, p99), and the sampled
 * share use over the window.
 *
 * <ul>
 *   <li><b>GPU-hours</b>: each job run ({@link JobRun}) with a known start counts its GPUs times the part of
 *       [start, end] inside [window start, now] (a run still going ends now), so a job that straddles the window
 *       start counts only its part inside the window.
 *   <li><b>Waits</b>: the job's first claim ({@link JobRun#claimedAt()}, else the run's start) minus the instant
 *       it became ready, for every job first claimed inside the window, grouped by the GPUs the job needs;
 *       percentiles by nearest rank.
 *   <li><b>Share use</b>: the samples of {@link ShareSamples} inside the window, one series per cadence and pool.
 * </ul>
 */
public final class Accounting {
  private Accounting() {}

  /** The window when none is asked for. */
  public static final Duration DEFAULT_WINDOW = Duration.ofDays(7);

  /** The longest window answered. */
  public static final Duration MAX_WINDOW = Duration.ofDays(31);

  /** The shortest window answered. */
  public static final Duration MIN_WINDOW = Duration.ofMinutes(1);

  private static final Pattern WINDOW = Pattern.compile("([0-9]{1,6})([mhd])");

  /**
   * One run of a job, as the store's records let it be reconstructed.
   *
   * @param jobId the job
   * @param cadence the cadence it runs for (its spec's, else its request's)
   * @param pool its pool (collector tag)
   * @param gpus the GPUs it holds while it runs
   * @param readyAt when it became claimable (the store's creation instant of the job)
   * @param claimedAt when it was first claimed (its first attempt's start), or null when the store recorded no
   *     attempt; the waits then take {@code startedAt}
   * @param startedAt when its last attempt started (the run GPU-hours count), or null when no record says
   * @param endedAt when it ended, or null while it runs
   */
  public record JobRun(long jobId, String cadence, String pool, int gpus, Instant readyAt,
      @Nullable Instant claimedAt, @Nullable Instant startedAt, @Nullable Instant endedAt) {}

  /**
   * Parses a window such as {@code 7d}, {@code 24h} or {@code 90m}; blank is {@link #DEFAULT_WINDOW}.
   *
   * @param text the query parameter, or null
   * @return the window
   * @throws FleetView.BadRequest when it is not a number with a unit, or outside 1 minute to 31 days
   */
  public static Duration window(@Nullable String text) {
    if (text == null || text.isBlank()) {
      return DEFAULT_WINDOW;
    }
    Matcher m = WINDOW.matcher(text.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new FleetView.BadRequest("window '" + FleetView.BadRequest.printable(text) + "' is not a duration;"
          + " expected a number and a unit m, h or d, e.g. 7d, 24h or 90m");
    }
    long n = Long.parseLong(m.group(1));
    Duration d = switch (m.group(2)) {
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
    if (d.compareTo(MIN_WINDOW) < 0 || d.compareTo(MAX_WINDOW) > 0) {
      throw new FleetView.BadRequest("window '" + FleetView.BadRequest.printable(text)
          + "' is out of range; expected 1m to 31d");
    }
    return d;
  }

  /**
   * The accounting of a window ending now.
   *
   * @param now the store's clock
   * @param window how far back
   * @param runs the job runs that may overlap the window (others are ignored)
   * @param samples the share-use samples, oldest first (those before the window are ignored)
   * @param truncated whether the reader stopped before it reached the window start
   * @return the document
   */
  public static AccountingDto compute(Instant now, Duration window, List<JobRun> runs,
      List<ShareSamples.Sample> samples, boolean truncated) {
    Instant from = now.minus(window);
    Map<String, double[]> hours = new TreeMap<>(); // cadence|pool -> {gpu-hours, runs}
    Map<Integer, List<Double>> waits = new TreeMap<>();
    int withoutStart = 0;
    for (JobRun r : runs) {
      if (r.startedAt() == null) {
        if (r.endedAt() == null || !r.endedAt().isBefore(from)) {
          withoutStart++;
        }
        continue;
      }
      Instant start = r.startedAt();
      Instant end = r.endedAt() == null ? now : r.endedAt();
      Instant a = start.isBefore(from) ? from : start;
      Instant b = end.isAfter(now) ? now : end;
      if (b.isAfter(a)) {
        double[] h = hours.computeIfAbsent(r.cadence() + "|" + r.pool(), k -> new double[2]);
        h[0] += r.gpus() * seconds(Duration.between(a, b)) / 3600.0;
        h[1] += 1;
      }
      Instant claimed = r.claimedAt() == null ? start : r.claimedAt();
      if (!claimed.isBefore(from) && !claimed.isAfter(now)) {
        Instant ready = r.readyAt().isAfter(claimed) ? claimed : r.readyAt();
        waits.computeIfAbsent(r.gpus(), g -> new ArrayList<>()).add(seconds(Duration.between(ready, claimed)));
      }
    }
    List<GpuHoursDto> gpuHours = new ArrayList<>();
    hours.forEach((k, v) -> {
      int bar = k.indexOf('|');
      gpuHours.add(new GpuHoursDto(k.substring(0, bar), k.substring(bar + 1), round(v[0]), (int) v[1]));
    });
    List<WaitPercentilesDto> waitDtos = new ArrayList<>();
    waits.forEach((gpus, list) -> {
      List<Double> sorted = new ArrayList<>(list);
      sorted.sort(null);
      waitDtos.add(new WaitPercentilesDto(gpus, sorted.size(), percentile(sorted, 50), percentile(sorted, 90),
          percentile(sorted, 99)));
    });
    return new AccountingDto(now.toString(), from.toString(), seconds(window), gpuHours, waitDtos,
        series(from, samples), withoutStart, truncated);
  }

  private static List<ShareSeriesDto> series(Instant from, List<ShareSamples.Sample> samples) {
    Map<String, ShareSeriesBuilder> byKey = new TreeMap<>();
    for (ShareSamples.Sample s : samples) {
      if (s.at().isBefore(from)) {
        continue;
      }
      for (Api.ShareDto d : s.shares()) {
        ShareSeriesBuilder b = byKey.computeIfAbsent(d.cadence() + "|" + d.pool(),
            k -> new ShareSeriesBuilder(d.cadence(), d.pool(), d.unit()));
        b.limit = d.limit();
        b.at.add(s.at().toString());
        b.used.add(d.used());
      }
    }
    List<ShareSeriesDto> out = new ArrayList<>();
    byKey.values().forEach(b -> out.add(new ShareSeriesDto(b.cadence, b.pool, b.unit, b.limit, List.copyOf(b.at),
        List.copyOf(b.used))));
    return out;
  }

  private static final class ShareSeriesBuilder {
    final String cadence;
    final String pool;
    final String unit;
    int limit;
    final List<String> at = new ArrayList<>();
    final List<Integer> used = new ArrayList<>();

    ShareSeriesBuilder(String cadence, String pool, String unit) {
      this.cadence = cadence;
      this.pool = pool;
      this.unit = unit;
    }
  }

  /**
   * The nearest-rank percentile of sorted values: the smallest value with at least {@code p} percent of the
   * values at or below it.
   *
   * @param sorted ascending values
   * @param p the percentile, above 0 and at most 100
   * @return the value, or null when there are none
   */
  public static @Nullable Double percentile(List<Double> sorted, double p) {
    if (sorted.isEmpty()) {
      return null;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size(), rank) - 1));
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }
}
