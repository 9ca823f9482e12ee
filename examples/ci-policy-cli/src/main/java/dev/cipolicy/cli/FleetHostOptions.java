package dev.cipolicy.cli;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.fleet.host.HostDevices;
import dev.cipolicy.queue.model.Devices;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * A GPU host as the fleet's store knows it, shared by {@code fleet collector} and {@code fleet lease}: its name
 * ({@code --name}/{@code --host} [{@value #HOST_ENV}], default the machine's host name) and its devices, given
 * ({@code --devices}) or detected with {@code nvidia-smi}/{@code rocm-smi} ({@code --gpu-tool}, optional
 * {@code --groups}).
 */
final class FleetHostOptions {
  static final String HOST_ENV = "CI_POLICY_FLEET_HOST";
  /** How long a vendor tool may take to list the GPUs. */
  static final Duration TOOL_TIMEOUT = Duration.ofSeconds(30);

  @Option(names = {"--name", "--host"}, paramLabel = "HOST", description = "The host's name in the queue [" + HOST_ENV
      + "] (default: the machine's host name).")
  private @Nullable String name;

  @Option(names = "--devices", paramLabel = "LIST", description = "The GPUs, e.g. 0-7 or 0-3;4-7 (groups), instead"
      + " of detecting them; 'none' for a host without GPUs.")
  private @Nullable String devices;

  @Option(names = "--gpu-tool", paramLabel = "TOOL", defaultValue = "auto", description = "How to detect the GPUs:"
      + " nvidia-smi, rocm-smi, or auto (the first that answers) (default: ${DEFAULT-VALUE}).")
  private String gpuTool = "auto";

  @Option(names = "--groups", paramLabel = "LIST", description = "Groups of the detected GPUs, e.g. 0-3;4-7.")
  private @Nullable String groups;

  /** The host's name: the flag, else {@value #HOST_ENV}, else the machine's host name. */
  String name(Map<String, String> env) throws IOException {
    java.util.Optional<String> given = Inputs.flagOrEnv(name, env, HOST_ENV).filter(s -> !s.isBlank());
    return given.isPresent() ? given.get() : InetAddress.getLocalHost().getHostName();
  }

  /**
   * The host's devices: given, else detected with the chosen tool, found on the {@code PATH} of {@code env} (the
   * CLI's environment).
   */
  Devices inventory(Map<String, String> env) throws InterruptedException {
    if (devices != null) {
      return devices.equals("none") ? Devices.none() : HostDevices.parse(devices);
    }
    Devices found = switch (gpuTool) {
      case "nvidia-smi" -> HostDevices.fromNvidiaSmi(explicit(HostDevices.NVIDIA_QUERY, env));
      case "rocm-smi" -> HostDevices.fromRocmSmi(explicit(HostDevices.ROCM_QUERY, env));
      case "auto" -> detect(env);
      default -> throw new InvalidInputException("--gpu-tool '" + gpuTool + "' is not nvidia-smi, rocm-smi or auto");
    };
    return groups == null ? found : HostDevices.withGroups(found, groups);
  }

  /** The output of the tool {@code --gpu-tool} names: one that cannot be started is bad input. */
  private static String explicit(List<String> command, Map<String, String> env) throws InterruptedException {
    try {
      return query(command, env, TOOL_TIMEOUT);
    } catch (IOException e) {
      throw new InvalidInputException("--gpu-tool " + command.get(0) + ": cannot run " + command.get(0)
          + " (not found on the PATH, or not executable); expected the GPU vendor's tool, or give --devices"
          + " (e.g. 0-7, or none)");
    }
  }

  private static Devices detect(Map<String, String> env) throws InterruptedException {
    try {
      return HostDevices.fromNvidiaSmi(query(HostDevices.NVIDIA_QUERY, env, TOOL_TIMEOUT));
    } catch (IOException e) {
      try {
        return HostDevices.fromRocmSmi(query(HostDevices.ROCM_QUERY, env, TOOL_TIMEOUT));
      } catch (IOException e2) {
        throw new InvalidInputException("neither nvidia-smi nor rocm-smi can be run on this host; give --devices"
            + " (e.g. 0-7, or none)");
      }
    }
  }

  /**
   * The standard output of a vendor tool, found on the {@code PATH} of {@code env}. The output is read while the
   * tool runs, so a tool that hangs (as {@code nvidia-smi} does on a stuck GPU) is stopped after {@code timeout}.
   *
   * @return the output
   * @throws IOException when the tool cannot be started
   * @throws InvalidInputException when it exits with another code than 0, or does not answer in time
   */
  static String query(List<String> command, Map<String, String> env, Duration timeout)
      throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(command);
    argv.set(0, onPath(command.get(0), env));
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    p.getOutputStream().close();
    AtomicReference<byte[]> out = new AtomicReference<>(new byte[0]);
    Thread reader = new Thread(() -> {
      try {
        out.set(p.getInputStream().readNBytes(HostDevices.MAX_TEXT + 1));
      } catch (IOException e) {
        // the process was stopped; what was read is lost, and the exit code says what happened
      }
    }, "gpu-tool-output");
    reader.setDaemon(true);
    reader.start();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new InvalidInputException(command.get(0) + " did not answer within " + timeout.toSeconds() + " s (a GPU"
          + " or its driver may be stuck); expected it to list the GPUs, or give --devices (e.g. 0-7)");
    }
    reader.join(timeout.toMillis());
    String text = new String(out.get(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new InvalidInputException(command.get(0) + " exited with code " + p.exitValue() + ": "
          + text.strip().lines().reduce((a, b) -> b).orElse("(no output)"));
    }
    return text;
  }

  /** A program name looked up on the {@code PATH} of {@code env}; as given when it has a slash or is not found. */
  private static String onPath(String program, Map<String, String> env) {
    String path = env.get("PATH");
    if (program.contains("/") || path == null) {
      return program;
    }
    for (String dir : path.split(":", -1)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return program;
  }
}
