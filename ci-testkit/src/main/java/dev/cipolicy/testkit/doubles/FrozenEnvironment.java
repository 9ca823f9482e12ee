package dev.cipolicy.testkit.doubles;

import dev.cipolicy.launch.Environment;
import dev.cipolicy.launch.InvalidCommandException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * An {@link Environment} that is the same on every machine. It holds <em>fixed</em> variables (frozen to a
 * value) and <em>cleared</em> variables (frozen to absent, by default the seed's list of host variables
 * {@link #SEED_HOST_VARIABLES}); together they are the frozen keys. Nothing of the host leaks in unless a
 * base is inherited explicitly, and even then cleared variables stay absent.
 *
 * <p>A frozen key cannot be overridden: {@link #withOverride(String, String)} on one throws
 * {@link FrozenKeyException} naming it, because a golden file recorded under one test's override would no
 * longer describe the frozen environment. Other variables can be added per entrypoint.
 *
 * <pre>{@code
 * FrozenEnvironment env = FrozenEnvironment.builder()
 *     .set("MASTER_ADDR", "127.0.0.1")
 *     .set("CI_IMAGE_TAG", "pr-1234")
 *     .build();                                  // CUDA_VISIBLE_DEVICES, RAY_ADDRESS, ... cleared
 * env.withOverride("MODEL", "qwen3-4b");         // fine
 * env.withOverride("MASTER_ADDR", "10.0.0.1");   // FrozenKeyException: MASTER_ADDR is frozen to '127.0.0.1'
 * }</pre>
 */
public final class FrozenEnvironment implements Environment {
  /**
   * The host variables the seed project clears before recording a launcher: Ray addresses, SLURM
   * allocations, NCCL and network tuning, visible devices and the like, each of which changes the commands
   * a launcher builds.
   */
  public static final List<String> SEED_HOST_VARIABLES = List.of(
      "CUDA_VISIBLE_DEVICES",
      "GITHUB_COMMIT_NAME",
      "GLOO_SOCKET_IFNAME",
      "KEEP_MOE_LORA",
      "MILES_SCRIPT_EXTERNAL_RAY",
      "NCCL_DEBUG",
      "NCCL_DEBUG_FILE",
      "NCCL_NVLS_ENABLE",
      "NCCL_SOCKET_IFNAME",
      "NO_PROXY",
      "OPTIMIZER_CPU_OFFLOAD",
      "RAY_ADDRESS",
      "SLURM_JOB_NUM_NODES");

  private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final SortedMap<String, String> fixed;
  private final SortedSet<String> cleared;
  private final SortedMap<String, String> others;

  private FrozenEnvironment(SortedMap<String, String> fixed, SortedSet<String> cleared,
      SortedMap<String, String> others) {
    this.fixed = Collections.unmodifiableSortedMap(fixed);
    this.cleared = Collections.unmodifiableSortedSet(cleared);
    this.others = Collections.unmodifiableSortedMap(others);
  }

  /**
   * A builder whose cleared variables start as {@link #SEED_HOST_VARIABLES}.
   *
   * @return the builder
   */
  public static Builder builder() {
    Builder b = new Builder();
    SEED_HOST_VARIABLES.forEach(b::clear);
    return b;
  }

  /**
   * A builder with no cleared variable at all.
   *
   * @return the builder
   */
  public static Builder builderWithoutDefaults() {
    return new Builder();
  }

  /**
   * The default frozen environment: no variable set, the seed's host variables cleared.
   *
   * @return the environment
   */
  public static FrozenEnvironment defaults() {
    return builder().build();
  }

  /**
   * This environment with one more, non-frozen variable.
   *
   * @param name the variable
   * @param value its value
   * @return a new environment
   * @throws FrozenKeyException when {@code name} is a fixed or cleared variable
   */
  public FrozenEnvironment withOverride(String name, String value) {
    checkName(name);
    if (fixed.containsKey(name)) {
      throw new FrozenKeyException(name, "environment variable " + name + " is frozen to '" + fixed.get(name)
          + "' and cannot be overridden with '" + value + "': a golden file recorded under an override would"
          + " not describe the frozen environment; change the frozen value in FrozenEnvironment.builder()"
          + " instead, for every entrypoint");
    }
    if (cleared.contains(name)) {
      throw new FrozenKeyException(name, "environment variable " + name + " is frozen as cleared (a host"
          + " variable that must not reach a recording) and cannot be overridden with '" + value + "'; if a"
          + " launcher needs it, set it with FrozenEnvironment.builder().set(\"" + name + "\", ...) after"
          + " removing it from the cleared variables");
    }
    TreeMap<String, String> more = new TreeMap<>(others);
    more.put(name, value);
    return new FrozenEnvironment(new TreeMap<>(fixed), new TreeSet<>(cleared), more);
  }

  /**
   * This environment with placeholders in values replaced, for values that depend on the launch: the
   * snapshot kit replaces {@code <SANDBOX>} and {@code <REPO_ROOT>} with the directories of each run, so that
   * {@code set("HF_HOME", "<SANDBOX>/hf")} points into the sandbox and reads back as {@code <SANDBOX>/hf} in
   * the golden file.
   *
   * @param replacements placeholder → text
   * @return a new environment with the same frozen keys
   */
  public FrozenEnvironment withPlaceholders(Map<String, String> replacements) {
    return new FrozenEnvironment(replaceIn(fixed, replacements), new TreeSet<>(cleared),
        replaceIn(others, replacements));
  }

  private static SortedMap<String, String> replaceIn(Map<String, String> variables, Map<String, String> replacements) {
    TreeMap<String, String> out = new TreeMap<>();
    variables.forEach((k, v) -> {
      String value = v;
      for (Map.Entry<String, String> r : replacements.entrySet()) {
        value = value.replace(r.getKey(), r.getValue());
      }
      out.put(k, value);
    });
    return out;
  }

  /**
   * Whether a variable is frozen (fixed or cleared).
   *
   * @param name the variable
   * @return true for a frozen key
   */
  public boolean isFrozen(String name) {
    return fixed.containsKey(name) || cleared.contains(name);
  }

  /**
   * The variables frozen to a value.
   *
   * @return name → value, sorted
   */
  public SortedMap<String, String> fixedVariables() {
    return fixed;
  }

  /**
   * The variables frozen to absent.
   *
   * @return names, sorted
   */
  public SortedSet<String> clearedVariables() {
    return cleared;
  }

  @Override
  public Optional<String> get(String name) {
    if (cleared.contains(name)) {
      return Optional.empty();
    }
    String value = fixed.get(name);
    return Optional.ofNullable(value != null ? value : others.get(name));
  }

  @Override
  public SortedMap<String, String> variables() {
    TreeMap<String, String> all = new TreeMap<>(others);
    all.putAll(fixed);
    return Collections.unmodifiableSortedMap(all);
  }

  private static void checkName(String name) {
    if (!VARIABLE.matcher(name).matches()) {
      throw new InvalidCommandException("environment variable name '" + name
          + "' is not valid; expected [A-Za-z_][A-Za-z0-9_]*");
    }
  }

  /** Builds a {@link FrozenEnvironment}. */
  public static final class Builder {
    private final TreeMap<String, String> fixed = new TreeMap<>();
    private final TreeSet<String> cleared = new TreeSet<>();
    private final TreeMap<String, String> inherited = new TreeMap<>();

    private Builder() {}

    /**
     * Freezes a variable to a value.
     *
     * @param name the variable
     * @param value its value
     * @return this builder
     * @throws FrozenKeyException when the variable is already set or cleared
     */
    public Builder set(String name, String value) {
      checkName(name);
      if (fixed.containsKey(name)) {
        throw new FrozenKeyException(name, "environment variable " + name + " is frozen twice: to '"
            + fixed.get(name) + "', then to '" + value + "'");
      }
      if (cleared.contains(name)) {
        throw new FrozenKeyException(name, "environment variable " + name + " is cleared and cannot also be"
            + " frozen to '" + value + "'; call unclear(\"" + name + "\") first if the launcher needs it");
      }
      fixed.put(name, value);
      return this;
    }

    /**
     * Freezes a variable to absent.
     *
     * @param name the variable
     * @return this builder
     * @throws FrozenKeyException when the variable is set
     */
    public Builder clear(String name) {
      checkName(name);
      if (fixed.containsKey(name)) {
        throw new FrozenKeyException(name, "environment variable " + name + " is frozen to '" + fixed.get(name)
            + "' and cannot also be cleared");
      }
      cleared.add(name);
      return this;
    }

    /**
     * Removes a variable from the cleared ones (for example a default host variable that this launcher
     * reads and a test sets).
     *
     * @param name the variable
     * @return this builder
     * @throws FrozenKeyException when the variable is not cleared
     */
    public Builder unclear(String name) {
      if (!cleared.remove(name)) {
        throw new FrozenKeyException(name, "environment variable " + name + " is not cleared; cleared are "
            + cleared);
      }
      return this;
    }

    /**
     * Passes the variables of a base environment through, except the frozen ones. Without this call
     * nothing of the host is visible.
     *
     * @param base name → value, for example {@code System.getenv()} restricted to what a launcher needs
     * @return this builder
     */
    public Builder inherit(Map<String, String> base) {
      inherited.putAll(base);
      return this;
    }

    /**
     * Builds the environment.
     *
     * @return the frozen environment
     */
    public FrozenEnvironment build() {
      TreeMap<String, String> others = new TreeMap<>(inherited);
      others.keySet().removeAll(fixed.keySet());
      others.keySet().removeAll(cleared);
      return new FrozenEnvironment(new TreeMap<>(fixed), new TreeSet<>(cleared), others);
    }
  }
}
