package dev.cipolicy.launcher;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.HostLayout;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.suite.SkippedTest;
import dev.cipolicy.api.suite.SuiteRunPlan;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.core.load.RegistrationLoader;
import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.launch.Environment;
import dev.cipolicy.launch.LaunchPorts;
import dev.cipolicy.launch.NotAnEntrypoint;
import dev.cipolicy.launch.system.SystemPorts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Runs one CI stage (a suite of a policy) on a runner, the way the reference project's {@code run_suite}
 * step does: plans every shard of the suite with {@link SuiteRegistry}, checks that every node has the GPUs
 * the suite needs, makes sure the CI image is present, writes each shard's plan to a file and starts
 * {@code tests/ci/run_suite.py} on it (in the CI container for GPU suites, with the devices of the host
 * partition the shard is bound to; directly for GitHub-hosted CPU suites). What a suite runs on comes from
 * its fields ({@code gpus}), never from its name, and the CI image is the policy's
 * {@code container_image.repository} at {@code CI_IMAGE_TAG}. A suite whose shards select no
 * test runs nothing: that is a success (incremental migration is normal).
 *
 * <p>Everything it touches goes through {@link LaunchPorts}, so its tests freeze it without patching
 * anything. Its inputs are environment variables:
 *
 * <table>
 *   <caption>Inputs</caption>
 *   <tr><th>variable</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code CI_POLICY}</td><td>{@code examples/policies/miles.yaml}</td><td>the policy</td></tr>
 *   <tr><td>{@code CI_REGISTRATIONS}</td><td>{@code examples/registrations/miles.yaml}</td><td>the registrations</td></tr>
 *   <tr><td>{@code CI_CADENCE}</td><td>{@code regular}</td><td>the resolved cadence</td></tr>
 *   <tr><td>{@code CI_RAW_LABELS}</td><td>empty</td><td>the raw labels, space-separated</td></tr>
 *   <tr><td>{@code CI_MATCH_ALL_LABELS}</td><td>{@code false}</td><td>manual dispatch: GPU suites match every label</td></tr>
 *   <tr><td>{@code CI_IMAGE_TAG}</td><td>{@code latest}</td><td>the CI image tag</td></tr>
 *   <tr><td>{@code CI_RESULTS_DIR}</td><td>{@code ci-results}</td><td>where JUnit reports go</td></tr>
 * </table>
 */
public final class StageLauncher {
  private final LaunchPorts ports;

  /**
   * A launcher on its ports.
   *
   * @param ports commands, environment, files, clock and scratchpad
   */
  public StageLauncher(LaunchPorts ports) {
    this.ports = ports;
  }

  /**
   * Runs a suite on this machine: {@code java dev.cipolicy.launcher.StageLauncher <suite>} in the repository.
   *
   * @param args the suite
   * @throws IOException when an input cannot be read
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: StageLauncher <suite>");
      System.exit(2);
    }
    new StageLauncher(SystemPorts.create(Path.of(""))).runSuite(args[0]);
  }

  /**
   * Runs every shard of a suite of the policy.
   *
   * @param suite the suite (stage), e.g. {@code stage-c-4-gpu-h200}
   * @throws IOException when the policy, the registrations or a plan file cannot be read or written
   * @throws InvalidInputException for a suite the policy does not declare, or a node with too few GPUs
   */
  public void runSuite(String suite) throws IOException {
    Environment env = ports.environment();
    String registrationsFile = env.getOrDefault("CI_REGISTRATIONS", "examples/registrations/miles.yaml");
    LoadedPolicy loaded = loadPolicy();
    SuiteRegistry registry = RegistrationLoader.load(registrationsFile, read(registrationsFile), loaded.resolver());
    Policy policy = loaded.policy();
    Backend backend = policy.backends().stream()
        .filter(b -> b.suites().stream().anyMatch(s -> s.name().equals(suite)))
        .findFirst()
        .orElseThrow(() -> new InvalidInputException("Unknown suite " + suite + " in policy " + policy.name()));
    Suite definition = registry.suite(backend.name(), suite);
    List<String> rawLabels = List.of(env.getOrDefault("CI_RAW_LABELS", "").trim().split("\\s+")).stream()
        .filter(l -> !l.isEmpty()).toList();
    RunPolicy run = loaded.resolver().resolveCadence(env.getOrDefault("CI_CADENCE", "regular"), rawLabels);
    boolean matchAll = env.getOrDefault("CI_MATCH_ALL_LABELS", "false").equals("true");

    List<SuiteRunPlan> plans = new ArrayList<>();
    int shards = definition.shards();
    for (int rank = 0; rank < shards; rank++) {
      Optional<SuiteRunPlan.Shard> shard = shards > 1 ? Optional.of(new SuiteRunPlan.Shard(rank, shards))
          : Optional.empty();
      SuiteRunPlan plan = registry.plan(backend.name(), suite, run, matchAll, shard);
      if (!plan.enabled().isEmpty()) {
        plans.add(plan);
      }
    }
    if (plans.isEmpty()) {
      return;
    }

    String runId = ports.scratchpad().newRunId();
    Path repo = ports.files().workingDirectory();
    Path results = ports.files().resolve(env.getOrDefault("CI_RESULTS_DIR", "ci-results"));
    if (!backend.gpu()) {
      for (SuiteRunPlan plan : plans) {
        Path planFile = ports.scratchpad().writeTempFile(planJson(plan, runId), "json");
        ports.executor().run(runSuite(plan, planFile.toString(), results.resolve(report(plan)).toString())
            .withEnvironment("CI_RUN_ID", runId)
            .inDirectory(repo));
      }
      return;
    }

    int gpus = definition.gpus();
    String image = image(policy);
    checkGpus(backend.name(), suite, gpus);
    pullImage(image);
    Optional<HostLayout> host = policy.hosts().stream()
        .filter(h -> definition.host().map(h.name()::equals).orElse(false))
        .findFirst();
    for (SuiteRunPlan plan : plans) {
      Path planFile = ports.scratchpad().writeTempFile(planJson(plan, runId), "json");
      int rank = plan.shard().map(SuiteRunPlan.Shard::rank).orElse(0);
      List<String> docker = new ArrayList<>(List.of("docker", "run", "--rm",
          "--name", "ci-" + runId + "-" + suite + "-" + rank));
      Optional<String> devices = devices(host, gpus, rank);
      if (backend.name().equals("rocm")) {
        docker.addAll(List.of("--device", "/dev/kfd", "--device", "/dev/dri"));
        devices.ifPresent(d -> docker.addAll(List.of("-e", "HIP_VISIBLE_DEVICES=" + d)));
      } else {
        docker.addAll(List.of("--gpus", devices.map(d -> "\"device=" + d + "\"").orElse("all")));
      }
      docker.addAll(List.of("--shm-size", "16g",
          "-e", "CI_RUN_ID=" + runId,
          "-v", repo + ":/workspace",
          "-v", results + ":/results",
          "-v", planFile + ":/ci/plan.json:ro",
          "-w", "/workspace",
          image));
      Command inContainer = runSuite(plan, "/ci/plan.json", "/results/" + report(plan))
          .withArguments(List.of("--num-gpus", Integer.toString(gpus)));
      docker.addAll(inContainer.argv());
      ports.executor().run(Command.of(docker));
    }
  }

  /**
   * Makes sure the policy's CI image is on the node: pulls it when {@code docker image inspect} does not
   * find it.
   *
   * @throws IOException when the policy cannot be read
   * @throws InvalidInputException when the policy declares no container image or the pull fails
   */
  public void pullImage() throws IOException {
    pullImage(image(loadPolicy().policy()));
  }

  private void pullImage(String image) {
    CommandResult inspect = ports.executor().run(Command.of("docker", "image", "inspect", "--format", "{{.Id}}",
        image));
    if (!inspect.succeeded()) {
      CommandResult pull = ports.executor().run(Command.of("docker", "pull", image));
      if (!pull.succeeded()) {
        throw new InvalidInputException("cannot pull " + image + ": " + pull.stderr().strip());
      }
    }
  }

  private LoadedPolicy loadPolicy() throws IOException {
    String policyFile = ports.environment().getOrDefault("CI_POLICY", "examples/policies/miles.yaml");
    return PolicyLoader.load(policyFile, read(policyFile));
  }

  private void checkGpus(String backend, String suite, int needed) {
    Command query = backend.equals("rocm") ? Command.of("rocm-smi", "--showid", "--csv")
        : Command.of("nvidia-smi", "--query-gpu=index", "--format=csv,noheader");
    for (Map.Entry<String, CommandResult> node : ports.executor().runOnAllNodes(query).entrySet()) {
      CommandResult r = node.getValue();
      long found = r.stdout().lines().filter(l -> !l.isBlank() && Character.isDigit(l.strip().charAt(0))).count();
      if (!r.succeeded() || found < needed) {
        throw new InvalidInputException("node " + node.getKey() + " has " + found + " GPU(s); " + suite + " needs "
            + needed + (r.succeeded() ? "" : " (" + String.join(" ", query.argv()) + " exited " + r.exitCode() + ")"));
      }
    }
  }

  private Command runSuite(SuiteRunPlan plan, String planFile, String report) {
    List<String> argv = new ArrayList<>(List.of("python", "tests/ci/run_suite.py", "--hw", plan.backend(),
        "--suite", plan.suite()));
    plan.shard().ifPresent(s -> argv.addAll(List.of("--partition-id", Integer.toString(s.rank()),
        "--partition-size", Integer.toString(s.size()))));
    argv.addAll(List.of("--plan", planFile, "--junit-xml", report));
    if (plan.continueOnError()) {
      argv.add("--continue-on-error");
    }
    return Command.of(argv);
  }

  /** The visible devices of a shard on a partitioned host: the partitions of its size, round robin. */
  private static Optional<String> devices(Optional<HostLayout> layout, int gpus, int rank) {
    if (layout.isEmpty() || layout.get().unpartitioned()) {
      return Optional.empty();
    }
    HostLayout host = layout.get();
    List<Integer> starts = new ArrayList<>();
    int start = 0;
    for (int size : host.partitions()) {
      if (size == gpus) {
        starts.add(start);
      }
      start += size;
    }
    if (starts.isEmpty()) {
      throw new InvalidInputException("host " + host.name() + " has no " + gpus + "-GPU partition; its partitions are "
          + host.partitions());
    }
    int first = starts.get(rank % starts.size());
    return Optional.of(IntStream.range(first, first + gpus).mapToObj(Integer::toString)
        .collect(Collectors.joining(",")));
  }

  /** The CI image: the policy's container image repository at {@code CI_IMAGE_TAG}. */
  private String image(Policy policy) {
    String repository = policy.containerImageRepository().orElseThrow(() -> new InvalidInputException("policy "
        + policy.name() + " declares no container_image.repository; GPU suites run in the CI image"));
    return repository + ":" + ports.environment().getOrDefault("CI_IMAGE_TAG", "latest");
  }

  private static String report(SuiteRunPlan plan) {
    return plan.suite() + "-" + plan.shard().map(SuiteRunPlan.Shard::rank).orElse(0) + ".xml";
  }

  private String read(String file) throws IOException {
    return ports.files().readString(ports.files().resolve(file));
  }

  /**
   * The plan of one shard as the JSON {@code run_suite.py} reads.
   *
   * @param plan the plan
   * @param runId the run id
   * @return pretty JSON with a final newline
   */
  @NotAnEntrypoint("a pure helper, public for the docs")
  public static String planJson(SuiteRunPlan plan, String runId) {
    StringBuilder b = new StringBuilder("{\n");
    b.append("  \"run_id\": ").append(str(runId)).append(",\n");
    b.append("  \"backend\": ").append(str(plan.backend())).append(",\n");
    b.append("  \"suite\": ").append(str(plan.suite())).append(",\n");
    plan.shard().ifPresent(s -> b.append("  \"shard\": {\"id\": ").append(s.rank()).append(", \"size\": ")
        .append(s.size()).append("},\n"));
    b.append("  \"policy\": ").append(str(plan.policyLine())).append(",\n");
    b.append("  \"continue_on_error\": ").append(plan.continueOnError()).append(",\n");
    b.append("  \"tests\": [");
    List<String> tests = new ArrayList<>();
    for (String file : plan.enabled()) {
      tests.add("\n    {\"file\": " + str(file) + ", \"timeout_seconds\": " + plan.timeouts().get(file) + "}");
    }
    b.append(String.join(",", tests)).append(tests.isEmpty() ? "],\n" : "\n  ],\n");
    b.append("  \"skipped\": [");
    List<String> skipped = new ArrayList<>();
    for (SkippedTest s : plan.skipped()) {
      skipped.add("\n    {\"file\": " + str(s.file()) + ", \"reason\": " + str(s.reason()) + "}");
    }
    b.append(String.join(",", skipped)).append(skipped.isEmpty() ? "]\n" : "\n  ]\n");
    return b.append("}\n").toString();
  }

  private static String str(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
