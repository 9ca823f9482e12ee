package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * A hardware backend ({@code cpu}, {@code cuda}, {@code rocm}) and its suites in order.
 */
@Value.Immutable
@ValueStyle
public abstract class Backend {
  /**
   * The backend name.
   *
   * @return e.g. {@code cuda}
   */
  public abstract String name();

  /**
   * Whether tests of this backend need GPUs (and therefore at least one label).
   *
   * @return the flag
   */
  @Value.Default
  public boolean gpu() {
    return false;
  }

  /**
   * The suites of this backend, in order.
   *
   * @return the suites
   */
  public abstract List<Suite> suites();

  /**
   * How the backend's suites run on a host, unless a suite declares its own {@link Suite#run()}.
   *
   * @return the command, absent when the backend declares none
   */
  public abstract Optional<RunCommand> run();

  /** The most device variables a backend may declare: 8. */
  public static final int MAX_DEVICE_ENV = 8;

  /**
   * The environment variables that carry the devices a job is granted, each set to the granted device
   * indices joined with commas (e.g. {@code CUDA_VISIBLE_DEVICES} for CUDA, {@code HIP_VISIBLE_DEVICES} and
   * {@code ROCR_VISIBLE_DEVICES} for ROCm). A backend has no vendor, so there is no default: a GPU backend
   * whose suites have a run command declares them.
   *
   * @return distinct names matching {@link RunCommand#ENV_NAME_GRAMMAR}, at most {@link #MAX_DEVICE_ENV}
   */
  public abstract List<String> deviceEnv();

  /**
   * The run command of a suite of this backend: the suite's own, else the backend's.
   *
   * @param suite a suite of this backend
   * @return the command, absent when neither declares one
   */
  public Optional<RunCommand> runOf(Suite suite) {
    return suite.run().isPresent() ? suite.run() : run();
  }

  /**
   * Rejects an empty name, device variables that are not valid names, repeated or too many, device
   * variables on a CPU backend, a GPU backend with a run command (its own or a suite's) and no device
   * variable, and a run command that sets a device variable itself.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck check = ValueCheck.of("Backend").nonEmpty("name", name());
    List<String> devices = deviceEnv();
    check.require(devices.size() <= MAX_DEVICE_ENV, "deviceEnv", () -> "backend '" + name() + "' declares "
        + devices.size() + " device variables; expected at most " + MAX_DEVICE_ENV);
    for (int i = 0; i < devices.size(); i++) {
      String d = devices.get(i);
      String field = "deviceEnv[" + i + "]";
      check.require(ENV_NAME.matcher(d).matches(), field, () -> "device variable '" + shown(d)
          + "' is not an environment variable name; expected " + RunCommand.ENV_NAME_GRAMMAR);
      check.require(devices.indexOf(d) == i, field, () -> "device variable " + shown(d) + " is listed twice");
    }
    check.require(gpu() || devices.isEmpty(), "deviceEnv", () -> "backend '" + name() + "' is a CPU backend"
        + " (gpu: false) and is granted no devices; remove device_env or declare gpu: true");
    boolean anyRun = run().isPresent() || suites().stream().anyMatch(s -> s.run().isPresent());
    check.require(!gpu() || !anyRun || !devices.isEmpty(), "deviceEnv", () -> "GPU backend '" + name()
        + "' has a run command but no device_env; declare the variables that carry the granted devices, e.g."
        + " [CUDA_VISIBLE_DEVICES] for CUDA or [HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES] for ROCm");
    run().ifPresent(r -> setsDevice(check, r, "run.env."));
    for (Suite s : suites()) {
      s.run().ifPresent(r -> setsDevice(check, r, "suites." + s.name() + ".run.env."));
    }
    check.done();
  }

  private void setsDevice(ValueCheck check, RunCommand run, String at) {
    for (String name : run.env().keySet()) {
      check.require(!deviceEnv().contains(name), at + name, () -> "the run command sets the device variable "
          + name + ", which the job's granted devices set; remove it from env");
    }
  }

  private static final Pattern ENV_NAME = Pattern.compile(RunCommand.ENV_NAME_GRAMMAR);

  private static String shown(String text) {
    return text.length() > 80 ? text.substring(0, 80) + "..." : text;
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Backend}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableBackend.Builder {
    Builder() {}
  }
}
