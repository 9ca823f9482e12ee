package dev.cipolicy.fleet.job;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The process a GPU host starts for a CI job on the devices its lease granted: the job's command in its workspace,
 * with the job's variables, each device variable set to the granted indices, and {@code CI_POLICY_DEVICES} set to
 * them too; or, when the job names an image and the host has a container runtime, that command inside a container.
 *
 * <p>In a container the workspace is mounted at {@value #CONTAINER_WORKSPACE} and is the working directory, and the
 * job's variables are passed by name ({@code --env NAME}, their values in the runtime's own environment, never on its
 * command line); the device variables, which are not secret, are passed with their values. Devices: for a job whose device variables are NVIDIA's ({@code CUDA_VISIBLE_DEVICES}) the runtime
 * is given exactly the granted GPUs ({@code --gpus device=2,3}), which it numbers from 0 inside, so the variable
 * is set to {@code 0,1}; for AMD's ({@code HIP_VISIBLE_DEVICES}, {@code ROCR_VISIBLE_DEVICES}) the container gets
 * the driver's device files and the variables keep the host's indices. The container is named after the job, and
 * {@link #cleanup()} removes it whatever became of the runtime's client (a killed client leaves its container
 * running).
 *
 * @param argv the program and its arguments
 * @param env the variables added to the host's environment
 * @param cleanup the command to run once the process has ended; empty when there is nothing to clean up
 */
public record HostCommand(List<String> argv, Map<String, String> env, List<String> cleanup) {

  /** Where the workspace is mounted inside a container. */
  public static final String CONTAINER_WORKSPACE = "/workspace";

  /** The variable that always carries the granted device indices. */
  public static final String DEVICES_VARIABLE = "CI_POLICY_DEVICES";

  /** Copies the components. */
  public HostCommand {
    argv = List.copyOf(argv);
    env = Map.copyOf(env);
    cleanup = List.copyOf(cleanup);
  }

  /**
   * The command for a job.
   *
   * @param job the job's arguments
   * @param devices the granted device indices, ascending; empty for a job without GPUs
   * @param workspace the job's checked-out workspace
   * @param runtime the container runtime ({@code docker}, {@code podman}, or a path to one); empty to run every
   *     job on the host, its image ignored
   * @param containerName the name of the job's container, unique on the host (e.g. the job's id)
   * @return the command
   * @throws InvalidCiJobException when a container is needed and its name is not
   *     {@code [A-Za-z0-9][A-Za-z0-9_.-]*} of at most 128 characters
   */
  public static HostCommand of(CiJob job, List<Integer> devices, Path workspace, String runtime, String containerName) {
    String hostIndices = join(devices);
    Map<String, String> env = new LinkedHashMap<>(job.env());
    env.put(DEVICES_VARIABLE, hostIndices);
    if (job.image().isEmpty() || runtime.isEmpty()) {
      for (String name : job.deviceEnv()) {
        env.put(name, hostIndices);
      }
      return new HostCommand(job.command(), env, List.of());
    }
    if (!containerName.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")) {
      throw new InvalidCiJobException("container name '" + CiJob.shown(containerName) + "' is not"
          + " [A-Za-z0-9][A-Za-z0-9_.-]* of at most 128 characters");
    }
    boolean nvidia = job.deviceEnv().stream().anyMatch(n -> n.toUpperCase(Locale.ROOT).startsWith("CUDA"));
    List<Integer> inside = new ArrayList<>();
    for (int i = 0; i < devices.size(); i++) {
      inside.add(nvidia ? i : devices.get(i));
    }
    List<String> argv = new ArrayList<>(List.of(runtime, "run", "--rm", "--init", "--name", containerName,
        "--volume", workspace.toAbsolutePath() + ":" + CONTAINER_WORKSPACE, "--workdir", CONTAINER_WORKSPACE));
    if (!devices.isEmpty()) {
      if (nvidia) {
        argv.addAll(List.of("--gpus", "\"device=" + hostIndices + "\""));
      } else {
        argv.addAll(List.of("--device", "/dev/kfd", "--device", "/dev/dri", "--group-add", "video"));
      }
    }
    for (String name : env.keySet()) {
      argv.addAll(List.of("--env", name));
    }
    // The devices as the container numbers them; not secret, so on the runtime's command line, where the
    // runtime's own environment (the host's indices) cannot override them.
    for (String name : job.deviceEnv()) {
      argv.addAll(List.of("--env", name + "=" + join(inside)));
    }
    argv.add(job.image().get());
    argv.addAll(job.command());
    return new HostCommand(argv, env, List.of(runtime, "rm", "--force", containerName));
  }

  private static String join(List<Integer> devices) {
    return devices.stream().map(String::valueOf).collect(Collectors.joining(","));
  }
}
