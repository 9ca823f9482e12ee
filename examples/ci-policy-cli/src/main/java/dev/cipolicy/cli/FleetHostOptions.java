package dev.cipolicy.cli;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.fleet.host.HostDevices;
import dev.cipolicy.queue.model.Devices;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

  /** The host's devices: given, else detected with the chosen tool. */
  Devices inventory() throws IOException, InterruptedException {
    if (devices != null) {
      return devices.equals("none") ? Devices.none() : HostDevices.parse(devices);
    }
    Devices found = switch (gpuTool) {
      case "nvidia-smi" -> HostDevices.fromNvidiaSmi(query(HostDevices.NVIDIA_QUERY));
      case "rocm-smi" -> HostDevices.fromRocmSmi(query(HostDevices.ROCM_QUERY));
      case "auto" -> detect();
      default -> throw new InvalidInputException("--gpu-tool '" + gpuTool + "' is not nvidia-smi, rocm-smi or auto");
    };
    return groups == null ? found : HostDevices.withGroups(found, groups);
  }

  private static Devices detect() throws IOException, InterruptedException {
    try {
      return HostDevices.fromNvidiaSmi(query(HostDevices.NVIDIA_QUERY));
    } catch (IOException e) {
      try {
        return HostDevices.fromRocmSmi(query(HostDevices.ROCM_QUERY));
      } catch (IOException e2) {
        throw new InvalidInputException("neither nvidia-smi nor rocm-smi can be run on this host; give --devices"
            + " (e.g. 0-7, or none)");
      }
    }
  }

  /** The standard output of a vendor tool; an IOException when it cannot be started or fails. */
  private static String query(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readNBytes(HostDevices.MAX_TEXT + 1);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(command.get(0) + " did not answer within 30 s");
    }
    String text = new String(out, StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new InvalidInputException(command.get(0) + " exited with code " + p.exitValue() + ": "
          + text.strip().lines().reduce((a, b) -> b).orElse("(no output)"));
    }
    return text;
  }
}
