package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.ResultPayload;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A {@link JobRunner} that runs each job as an operating-system process: the command is a function of the job
 * (its spec, its devices), the environment gets {@value #CUDA_VISIBLE_DEVICES} set to the lease's device
 * indices, comma-separated ({@code 0,1}; empty for a job on no device), and standard output and error go,
 * merged, into the job's bounded {@link JobLog}.
 *
 * <p>Exit code 0 is a success (its result, when {@linkplain Builder#resultFromLog asked for}, the log's kept
 * text); any other exit code is a failure, permanent for the {@linkplain Builder#permanentExitCodes permanent
 * codes} and transient otherwise, its detail naming the code and the last line of output. A process that
 * cannot start is a transient failure.
 *
 * <p>When the job is stopped ({@link JobContext#isCancelled()}, noticed within {@value #POLL_MILLIS} ms, or the
 * runner's thread is interrupted) or runs past the runner's {@linkplain Builder#timeout timeout}, the whole
 * process tree is killed: every descendant of the process ({@link ProcessHandle#descendants()}) and the process
 * itself get a termination request, and whatever still lives after the {@linkplain Builder#killGrace kill
 * grace} is killed forcibly. Descendants are also looked up while the process runs, so that a background
 * process left behind by a main process that exited is killed too once the job ends. A timeout fails the job
 * (transient unless configured otherwise).
 */
public final class ProcessJobRunner implements JobRunner {

  /** The environment variable that tells CUDA programs which devices they may use. */
  public static final String CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";
  /** How often the runner checks the stop signal, the timeout and the process's descendants, in ms. */
  public static final int POLL_MILLIS = 50;
  /** The default kill grace: how long a killed tree may take to exit before it is killed forcibly. */
  public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(2);

  private final Function<JobContext, List<String>> command;
  private final @Nullable Function<JobContext, Path> directory;
  private final Map<String, String> environment;
  private final @Nullable Duration timeout;
  private final Failure.Kind timeoutKind;
  private final Set<Integer> permanentExitCodes;
  private final boolean resultFromLog;
  private final Duration killGrace;

  private ProcessJobRunner(Builder b) {
    this.command = b.command;
    this.directory = b.directory;
    this.environment = Map.copyOf(b.environment);
    this.timeout = b.timeout;
    this.timeoutKind = b.timeoutKind;
    this.permanentExitCodes = Set.copyOf(b.permanentExitCodes);
    this.resultFromLog = b.resultFromLog;
    this.killGrace = b.killGrace;
  }

  /**
   * A builder of a runner that runs the command the function gives for each job.
   *
   * @param command the program and its arguments for a job, e.g.
   *     {@code ctx -> List.of("./bench.sh", ctx.spec().benchmarkGroup())}
   * @return the builder
   */
  public static Builder builder(Function<JobContext, List<String>> command) {
    return new Builder(Settings.present(command, "process command"));
  }

  /**
   * A runner of the same command for every job, with the defaults.
   *
   * @param command the program and its arguments
   * @return the runner
   */
  public static ProcessJobRunner of(String... command) {
    List<String> fixed = List.copyOf(Arrays.asList(Settings.present(command, "process command")));
    return builder(ctx -> fixed).build();
  }

  /**
   * The value of {@value #CUDA_VISIBLE_DEVICES} for devices: their indices, comma-separated, in order.
   *
   * @param devices the device indices
   * @return e.g. {@code 0,1}; empty for none
   */
  public static String visibleDevices(List<Integer> devices) {
    return devices.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  @Override
  public JobOutcome run(JobContext context) throws InterruptedException {
    List<String> cmd = command.apply(context);
    if (cmd == null || cmd.isEmpty() || cmd.stream().anyMatch(arg -> arg == null)) {
      throw new InvalidQueueInputException("the command of job " + context.job().id().value()
          + " is missing or empty; expected a program and its arguments");
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (directory != null) {
      pb.directory(directory.apply(context).toFile());
    }
    pb.environment().putAll(environment);
    pb.environment().put(CUDA_VISIBLE_DEVICES, visibleDevices(context.devices()));
    JobLog log = context.log();
    Process process;
    try {
      process = pb.start();
    } catch (IOException e) {
      return JobOutcome.transientFailure(Settings.oneLine("cannot start " + cmd.get(0) + ": " + e.getMessage(),
          1000));
    }
    Thread pump = new Thread(() -> pump(process.getInputStream(), log), Thread.currentThread().getName() + "-log");
    pump.setDaemon(true);
    pump.start();
    Set<ProcessHandle> seen = new LinkedHashSet<>();
    long start = System.nanoTime();
    try {
      while (!process.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(seen::add);
        if (context.isCancelled()) {
          killTree(process, seen);
          log.line("[stopped: " + context.stopReason().map(Enum::name).orElse("cancelled") + "]");
          return JobOutcome.transientFailure("stopped: " + context.stopReason().map(Enum::name).orElse("cancelled"));
        }
        if (timeout != null && System.nanoTime() - start > timeout.toNanos()) {
          killTree(process, seen);
          log.line("[timed out after " + timeout + "]");
          return JobOutcome.failed(new Failure(timeoutKind, "timed out after " + timeout + ": " + cmd.get(0)));
        }
      }
    } catch (InterruptedException e) {
      killTree(process, seen);
      log.line("[interrupted]");
      throw e;
    } finally {
      // Orphans: descendants seen while the process ran that outlived it.
      killTree(process, seen);
      awaitPump(pump, process);
    }
    int code = process.exitValue();
    if (code == 0) {
      if (!resultFromLog) {
        return JobOutcome.success();
      }
      byte[] bytes = log.text().getBytes(StandardCharsets.UTF_8);
      if (bytes.length > ResultPayload.MAX_BYTES) {
        bytes = Arrays.copyOfRange(bytes, bytes.length - ResultPayload.MAX_BYTES, bytes.length);
      }
      return JobOutcome.success(ResultPayload.ofBytes(bytes));
    }
    Failure.Kind kind = permanentExitCodes.contains(code) ? Failure.Kind.PERMANENT : Failure.Kind.TRANSIENT;
    String last = lastLine(log.text());
    return JobOutcome.failed(new Failure(kind, Settings.oneLine(cmd.get(0) + " exited with code " + code
        + (last.isEmpty() ? "" : "; last output: " + last), 1000)));
  }

  private static void pump(InputStream in, JobLog log) {
    byte[] buffer = new byte[8192];
    try (in) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        log.write(buffer, 0, n);
      }
    } catch (IOException e) {
      // The stream was closed: the process is gone.
    }
  }

  private static void awaitPump(Thread pump, Process process) {
    boolean interrupted = Thread.interrupted();
    try {
      pump.join(1000);
      if (pump.isAlive()) {
        // Something that escaped the tree still holds the output open: stop reading.
        process.getInputStream().close();
        pump.join(1000);
      }
    } catch (InterruptedException | IOException e) {
      interrupted = true;
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Kills the process, its current descendants and those seen before: a termination request to each, then,
   * after the kill grace, a forced kill of whatever still lives.
   */
  private void killTree(Process process, Set<ProcessHandle> seen) {
    List<ProcessHandle> tree = new ArrayList<>();
    process.descendants().forEach(tree::add);
    for (ProcessHandle h : seen) {
      if (!tree.contains(h)) {
        tree.add(h);
      }
    }
    List<ProcessHandle> alive = tree.stream().filter(ProcessHandle::isAlive).collect(Collectors.toCollection(ArrayList::new));
    if (process.isAlive()) {
      alive.add(process.toHandle());
    }
    if (alive.isEmpty()) {
      return;
    }
    alive.forEach(ProcessHandle::destroy);
    // Polls: ProcessHandle.onExit() of a process that is not our child is itself polled, and slowly.
    long deadline = System.nanoTime() + killGrace.toNanos();
    boolean interrupted = false;
    while (alive.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        interrupted = true;
        break;
      }
    }
    for (ProcessHandle h : alive) {
      if (h.isAlive()) {
        h.destroyForcibly();
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static String lastLine(String text) {
    String stripped = text.strip();
    if (stripped.isEmpty()) {
      return "";
    }
    return Settings.oneLine(stripped.substring(stripped.lastIndexOf('\n') + 1), 200);
  }

  /** Builds a {@link ProcessJobRunner}; every setter checks its argument. */
  public static final class Builder {
    private final Function<JobContext, List<String>> command;
    private @Nullable Function<JobContext, Path> directory;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private @Nullable Duration timeout;
    private Failure.Kind timeoutKind = Failure.Kind.TRANSIENT;
    private final Set<Integer> permanentExitCodes = new TreeSet<>();
    private boolean resultFromLog;
    private Duration killGrace = DEFAULT_KILL_GRACE;

    private Builder(Function<JobContext, List<String>> command) {
      this.command = command;
    }

    /**
     * The working directory of each job's process; default the host process's.
     *
     * @param directory the directory for a job
     * @return this builder
     */
    public Builder directory(Function<JobContext, Path> directory) {
      this.directory = Settings.present(directory, "process directory");
      return this;
    }

    /**
     * A variable added to the process's environment (on top of the host's; {@value ProcessJobRunner#CUDA_VISIBLE_DEVICES}
     * is always the lease's).
     *
     * @param name the variable
     * @param value its value
     * @return this builder
     */
    public Builder environment(String name, String value) {
      Settings.present(name, "environment variable name");
      if (name.isEmpty() || name.contains("=") || name.equals(CUDA_VISIBLE_DEVICES)) {
        throw new InvalidQueueInputException("environment variable name '" + name + "' is empty, holds '=' or"
            + " is " + CUDA_VISIBLE_DEVICES + ", which the runner sets from the lease");
      }
      environment.put(name, Settings.present(value, "environment variable " + name));
      return this;
    }

    /**
     * The longest a job's process may run before its tree is killed and the job failed; default none.
     *
     * @param timeout 1 ms to 366 days
     * @return this builder
     */
    public Builder timeout(Duration timeout) {
      this.timeout = Settings.between(timeout, Duration.ofMillis(1), Duration.ofDays(366), "process timeout");
      return this;
    }

    /**
     * How a timed-out job fails; default transient.
     *
     * @param kind the failure kind
     * @return this builder
     */
    public Builder timeoutFailure(Failure.Kind kind) {
      this.timeoutKind = Settings.present(kind, "timeout failure kind");
      return this;
    }

    /**
     * Exit codes that fail the job permanently (every other non-zero code is transient); default none.
     *
     * @param codes the codes, 1 to 255
     * @return this builder
     */
    public Builder permanentExitCodes(int... codes) {
      for (int code : Settings.present(codes, "permanent exit codes")) {
        permanentExitCodes.add(Settings.between(code, 1, 255, "permanent exit code"));
      }
      return this;
    }

    /**
     * Whether a success carries the log's kept text as its result (its last {@value ResultPayload#MAX_BYTES}
     * bytes at most); default false.
     *
     * @param resultFromLog true to keep the output as the result
     * @return this builder
     */
    public Builder resultFromLog(boolean resultFromLog) {
      this.resultFromLog = resultFromLog;
      return this;
    }

    /**
     * How long a killed process tree may take to exit after the termination request before it is killed
     * forcibly; default 2 s.
     *
     * @param grace zero to 1 minute
     * @return this builder
     */
    public Builder killGrace(Duration grace) {
      this.killGrace = Settings.between(grace, Duration.ZERO, Duration.ofMinutes(1), "kill grace");
      return this;
    }

    /**
     * The runner.
     *
     * @return the runner
     */
    public ProcessJobRunner build() {
      return new ProcessJobRunner(this);
    }
  }
}
