package dev.cipolicy.postgres;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One {@link QueueWorkerMain} JVM started with the current {@code java} and the test class path. */
final class WorkerProcess {

  final String label;
  final Process process;
  final Path log;

  private WorkerProcess(String label, Process process, Path log) {
    this.label = label;
    this.process = process;
    this.log = log;
  }

  /** Worker arguments: {@code key=value} for each shared setting, then the worker's own. */
  static List<String> args(java.util.Map<String, String> common, String... extra) {
    List<String> out = new java.util.ArrayList<>();
    common.forEach((k, v) -> out.add(k + "=" + v));
    out.addAll(List.of(extra));
    return out;
  }

  static WorkerProcess start(String label, Path logDir, List<String> args) throws IOException {
    String java = ProcessHandle.current().info().command()
        .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), QueueWorkerMain.class.getName()));
    command.addAll(args);
    Path log = logDir.resolve(label + ".log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new WorkerProcess(label, process, log);
  }

  /** Waits up to the timeout; returns the exit code, or -1 (after killing it) when it did not end. */
  int await(long timeoutMillis) throws InterruptedException {
    if (!process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      return -1;
    }
    return process.exitValue();
  }

  String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Stops the process with SIGSTOP: it keeps its sockets and runs no code until {@link #resume()}. */
  void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** Lets a paused process go on (SIGCONT). */
  void resume() throws IOException, InterruptedException {
    if (process.isAlive()) {
      signal("CONT");
    }
  }

  private void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).redirectErrorStream(true)
        .start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed: "
          + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  /** Waits up to the timeout for a line of the log starting with {@code prefix}; null when none came. */
  String awaitLine(String prefix, long timeoutMillis) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (System.nanoTime() < until) {
      String line = output().lines().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
      if (line != null) {
        return line;
      }
      if (!process.isAlive()) {
        return output().lines().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
      }
      Thread.sleep(20);
    }
    return null;
  }

  void kill() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
