package dev.cipolicy.testkit.snapshot;

import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.launch.LaunchPorts;
import dev.cipolicy.launch.NotAnEntrypoint;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Small launchers the kit's own tests snapshot. */
final class Launchers {
  private Launchers() {}

  /** A training launcher: downloads a model unless the cache has it, checks every node, trains. */
  public static final class Train {
    private final LaunchPorts ports;

    public Train(LaunchPorts ports) {
      this.ports = ports;
    }

    public void train() throws IOException {
      Path cache = Path.of(ports.environment().get("MODEL_CACHE").orElseThrow());
      Path model = cache.resolve("qwen3-4b");
      if (!ports.files().isDirectory(model)) {
        ports.executor().run(Command.of("hf", "download", "Qwen/Qwen3-4B", "--local-dir", model.toString()));
      }
      Map<String, CommandResult> gpus = ports.executor().runOnAllNodes(Command.of("nvidia-smi", "-L"));
      Path config = ports.scratchpad().writeTempFile("model: " + model + "\nnodes: " + gpus.size() + "\n", "yaml");
      ports.executor().run(Command.of("python", "train.py", "--config", config.toString(), "--run-id",
          ports.scratchpad().newRunId(), "--started", ports.clock().instant().toString())
          .withEnvironment("MASTER_ADDR", ports.environment().getOrDefault("MASTER_ADDR", "unset")));
    }

    public void evaluate(String model) {
      ports.executor().run(Command.of("python", "eval.py", "--model", model));
    }

    public void dryRun() {
      // Prints nothing, runs nothing: must be allowed explicitly.
    }

    @NotAnEntrypoint("an accessor")
    public LaunchPorts ports() {
      return ports;
    }
  }

  /** A launcher whose output changes from one run to the next. */
  public static final class Flaky {
    private static final AtomicInteger RUNS = new AtomicInteger();

    public Flaky(LaunchPorts ports) {
      this.ports = ports;
    }

    private final LaunchPorts ports;

    public void launch() {
      ports.executor().run(Command.of("echo", "run " + RUNS.incrementAndGet()));
    }
  }

  /** A launcher with a public method that cannot be an entrypoint. */
  public static final class TakesAnInt {
    public TakesAnInt(LaunchPorts ports) {}

    public void launch(int nodes) {}
  }

  /** A launcher that throws half way. */
  public static final class Throws {
    private final LaunchPorts ports;

    public Throws(LaunchPorts ports) {
      this.ports = ports;
    }

    public void launch() {
      ports.executor().run(Command.of("echo", "before"));
      throw new IllegalStateException("no GPU found");
    }
  }

  /** A launcher whose product is a file its command writes. */
  public static final class Reports {
    private final LaunchPorts ports;

    public Reports(LaunchPorts ports) {
      this.ports = ports;
    }

    public void report() {
      ports.executor().run(Command.of("report", "--out", ports.environment().get("REPORT").orElseThrow()));
    }
  }

  /** A launcher whose every entrypoint echoes the variable {@code EXTRA}, which no case freezes. */
  public static final class Echoes {
    private final LaunchPorts ports;

    public Echoes(LaunchPorts ports) {
      this.ports = ports;
    }

    public void serve() {
      ports.executor().run(Command.of("echo", "serve", extra()));
    }

    public void evaluate(String model) {
      ports.executor().run(Command.of("echo", "evaluate", model, extra()));
    }

    private String extra() {
      return "EXTRA=" + ports.environment().getOrDefault("EXTRA", "unset");
    }
  }
}
