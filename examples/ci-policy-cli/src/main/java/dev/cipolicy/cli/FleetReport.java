package dev.cipolicy.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What {@code fleet submit --wait} prints about the jobs it follows: a line when a job starts (host, device
 * indices, time waited) and when it ends (outcome, time run), each failed job's log tail in a collapsible
 * group, the step summary table, and the exit code. Every text that comes from the queue (host names, error
 * messages, log lines) is printed through {@link Console#plain} or {@link ResolveSummary#cell}, so none of it
 * can become a workflow command or Markdown markup.
 */
final class FleetReport {

  /** Every required job succeeded. */
  static final int EXIT_SUCCEEDED = 0;
  /** A required job failed, was cancelled, or did not finish. */
  static final int EXIT_JOB_FAILED = 1;
  /** The run could not be planned or submitted: bad policy, environment, template or a job no host fits. */
  static final int EXIT_BAD_INPUT = 3;
  /** The store did not answer within its budget. */
  static final int EXIT_STORE_UNREACHABLE = 4;

  /** The most log lines of a failed job printed in its group. */
  static final int MAX_TAIL_LINES = 200;

  private FleetReport() {}

  /** How a followed job ended, or that it has not. */
  enum Outcome {
    /** Queued, not started. */
    WAITING,
    /** Leased by a host and running. */
    RUNNING,
    /** Ended with success. */
    SUCCEEDED,
    /** Ended with a failure. */
    FAILED,
    /** Cancelled before it ended. */
    CANCELLED;

    /** The outcome's word in the output. */
    String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * What the submitter knows of one followed job.
   *
   * @param id the job's id in the store ({@code ci-policy fleet logs ID} prints its log)
   * @param name the job's name (a queue token: letters, digits, {@code ._-})
   * @param required whether its failure fails the step
   * @param host the host that runs or ran it; null while it waits
   * @param devices the device indices of its lease; empty for none
   * @param waited how long it was queued before it started; null while it waits
   * @param ran how long it ran; null until it ends
   * @param outcome where it stands
   * @param error the failure's message; null when it did not fail
   * @param logTail the end of its log as stored; empty when none
   * @param logLink where its whole log can be read; null when there is no such page (the summary then names the
   *     {@code fleet logs} command)
   */
  record Job(long id, String name, boolean required, @Nullable String host, List<Integer> devices,
      @Nullable Duration waited, @Nullable Duration ran, Outcome outcome, @Nullable String error, String logTail,
      @Nullable String logLink) {

    Job {
      devices = List.copyOf(devices);
    }
  }

  /** The line printed when a job starts. */
  static String started(Job job) {
    return Console.plain("started " + job.name() + " on " + orDash(job.host()) + " " + devices(job.devices())
        + (job.waited() == null ? "" : " after waiting " + duration(job.waited())));
  }

  /** The line printed when a job ends. */
  static String ended(Job job) {
    String line = job.outcome().word() + " " + job.name() + " on " + orDash(job.host())
        + (job.ran() == null ? "" : " in " + duration(job.ran()));
    if (job.error() != null) {
      line += ": " + job.error();
    }
    return Console.plain(line);
  }

  /**
   * The collapsible group with a failed job's log tail: a {@code ::group::} line, at most
   * {@value #MAX_TAIL_LINES} lines of the tail (each through {@link Console#plain}, so a log line can never act
   * as a workflow command), and {@code ::endgroup::}.
   */
  static List<String> failureGroup(Job job) {
    List<String> lines = new ArrayList<>();
    lines.add(Console.commandLine("group", java.util.Map.of(), groupTitle(job)));
    List<String> tail = job.logTail().isEmpty() ? List.of() : List.of(job.logTail().split("\r?\n", -1));
    int from = Math.max(0, tail.size() - MAX_TAIL_LINES);
    if (from > 0) {
      lines.add("[" + from + " earlier lines of the tail left out]");
    }
    for (String l : tail.subList(from, tail.size())) {
      lines.add(Console.plain(l));
    }
    if (tail.isEmpty()) {
      lines.add("(the job wrote no output)");
    }
    lines.add("::endgroup::");
    return lines;
  }

  /** The title of a failed job's group: its name, outcome and "log tail". */
  static String groupTitle(Job job) {
    return job.name() + " (" + job.outcome().word() + "): log tail";
  }

  /** The step summary: a heading and one table row per job, in the order given. */
  static String summary(String title, List<Job> jobs) {
    StringBuilder sb = new StringBuilder();
    sb.append("### ").append(ResolveSummary.cell(title)).append("\n\n");
    long ok = jobs.stream().filter(j -> j.outcome() == Outcome.SUCCEEDED).count();
    sb.append(ok).append(" of ").append(jobs.size()).append(" jobs succeeded.\n\n");
    sb.append("| Job | Host | Devices | Waited | Ran | Outcome | Log |\n");
    sb.append("|---|---|---|---|---|---|---|\n");
    for (Job j : jobs) {
      sb.append("| ").append(ResolveSummary.cell(j.name())).append(j.required() ? "" : " (optional)")
          .append(" | ").append(ResolveSummary.cell(orDash(j.host())))
          .append(" | ").append(j.devices().isEmpty() ? "-" : indices(j.devices()))
          .append(" | ").append(j.waited() == null ? "-" : duration(j.waited()))
          .append(" | ").append(j.ran() == null ? "-" : duration(j.ran()))
          .append(" | ").append(j.outcome().word())
          .append(j.error() == null ? "" : ": " + ResolveSummary.cell(j.error()))
          .append(" | ").append(link(j.id(), j.logLink()))
          .append(" |\n");
    }
    return sb.toString();
  }

  /**
   * The exit code for the followed jobs: {@value #EXIT_SUCCEEDED} only when every required job succeeded,
   * otherwise {@value #EXIT_JOB_FAILED}. Optional jobs never fail the step.
   */
  static int exitCode(List<Job> jobs) {
    return jobs.stream().filter(Job::required).allMatch(j -> j.outcome() == Outcome.SUCCEEDED)
        ? EXIT_SUCCEEDED
        : EXIT_JOB_FAILED;
  }

  /** A duration as people read it: {@code 45s}, {@code 3m 12s}, {@code 1h 02m}. */
  static String duration(Duration d) {
    long s = Math.max(0, d.toSeconds());
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m " + String.format(Locale.ROOT, "%02d", s % 60) + "s";
    }
    return (s / 3600) + "h " + String.format(Locale.ROOT, "%02d", (s % 3600) / 60) + "m";
  }

  private static String devices(List<Integer> devices) {
    return devices.isEmpty() ? "(no GPU)" : (devices.size() == 1 ? "device " : "devices ") + indices(devices);
  }

  private static String indices(List<Integer> devices) {
    return devices.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  private static String orDash(@Nullable String s) {
    return s == null ? "-" : s;
  }

  private static String link(long id, @Nullable String url) {
    return Optional.ofNullable(url)
        .filter(u -> u.startsWith("https://") || u.startsWith("http://"))
        .map(u -> "[log](" + urlSafe(u) + ")")
        .orElse("`ci-policy fleet logs " + id + "`");
  }

  /** A URL with every character outside the unreserved, reserved and {@code %} sets percent-encoded. */
  private static String urlSafe(String url) {
    StringBuilder sb = new StringBuilder(url.length());
    for (byte b : url.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xFF);
      boolean safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "-._~:/?#@!$&*+,;=%".indexOf(c) >= 0;
      if (safe) {
        sb.append(c);
      } else {
        sb.append(String.format(Locale.ROOT, "%%%02X", (int) c));
      }
    }
    return sb.toString();
  }
}
