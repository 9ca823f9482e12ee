package dev.cipolicy.testkit.snapshot;

import dev.cipolicy.launch.LaunchPorts;
import dev.cipolicy.testkit.doubles.CommandScript;
import dev.cipolicy.testkit.doubles.FrozenEnvironment;
import dev.cipolicy.testkit.doubles.FrozenFileSystemView;
import dev.cipolicy.testkit.doubles.Recording;
import dev.cipolicy.testkit.doubles.RecordingCommandExecutor;
import dev.cipolicy.testkit.doubles.StableScratchpad;
import dev.cipolicy.testkit.golden.GoldenDirectory;
import dev.cipolicy.testkit.golden.GoldenFormat;
import dev.cipolicy.testkit.golden.Scrubber;
import dev.cipolicy.testkit.golden.Scrubbers;
import dev.cipolicy.testkit.golden.SnapshotConfigurationException;
import dev.cipolicy.testkit.golden.SnapshotIoException;
import dev.cipolicy.testkit.golden.UnifiedDiff;
import dev.cipolicy.testkit.golden.UpdateMode;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.opentest4j.AssertionFailedError;

/**
 * The snapshot test of one launcher class. Every entrypoint ({@link EntrypointMethod#discover}) becomes a
 * {@link SnapshotCase} (one per variant for an entrypoint that takes one); checking a case
 * <ol>
 *   <li>runs it twice, each time in a fresh sandbox directory on fresh frozen ports (a
 *       {@link RecordingCommandExecutor}, the {@link FrozenEnvironment} (with {@code <SANDBOX>} and
 *       {@code <REPO_ROOT>} in its values replaced by the run's directories), a {@link FrozenFileSystemView}
 *       showing the sandbox and the repository, a fixed clock, a {@link StableScratchpad}), renders each
 *       recording with the {@link GoldenFormat} and scrubs it (sandbox, repository root, then the user's
 *       rules), and fails when the two texts differ: the launcher is not deterministic;</li>
 *   <li>fails when the entrypoint issued no command, unless it has a named allowance, and then fails when it
 *       issued any;</li>
 *   <li>compares the text with the golden file and fails with a unified diff, or with the exact command
 *       that creates a missing golden file; in {@link UpdateMode#UPDATE} writes the file instead.</li>
 * </ol>
 * {@link #checkOrphans(UpdateMode, String)} fails for golden files that no case owns (deletes them in
 * update mode). Failures are {@link AssertionFailedError}s, with expected and actual text where there are
 * two texts.
 *
 * <pre>{@code
 * LauncherSnapshots<StageLauncher> snapshots = LauncherSnapshots.of(StageLauncher.class, StageLauncher::new)
 *     .goldenDirectory(Path.of("src/test/resources/golden/stage-launcher"))
 *     .environment(FrozenEnvironment.builder().set("CI_IMAGE_TAG", "pr-1234").build())
 *     .variants("runSuite", List.of("stage-a-cpu", "stage-c-4-gpu-h200"))
 *     .allowNoCommands("runSuite[nightly-stage-c-4-gpu-mi350]", "no test is registered there yet")
 *     .build();
 * }</pre>
 *
 * @param <L> the launcher type
 */
public final class LauncherSnapshots<L> {
  /** The instant of the default frozen clock. */
  public static final Instant FROZEN_INSTANT = Instant.parse("2026-01-01T00:00:00Z");

  private static final Pattern VARIANT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  private final Class<L> launcherType;
  private final Function<LaunchPorts, ? extends L> factory;
  private final GoldenDirectory goldens;
  private final Path repositoryRoot;
  private final List<Path> moreVisibleRoots;
  private final FrozenEnvironment environment;
  private final Map<String, Map<String, String>> overrides;
  private final CommandScript script;
  private final List<Scrubber> scrubbers;
  private final Map<String, String> allowances;
  private final List<SnapshotCase> cases;
  private final SandboxPreparation preparation;
  private final Clock clock;
  private final String runId;
  private final GoldenFormat format;
  private final @Nullable String updateCommand;
  private final List<String> captureGlobs;

  private LauncherSnapshots(Builder<L> b, Path goldenDirectory, Path repositoryRoot) {
    this.launcherType = b.launcherType;
    this.factory = b.factory;
    this.goldens = new GoldenDirectory(goldenDirectory);
    this.repositoryRoot = repositoryRoot;
    this.moreVisibleRoots = List.copyOf(b.visibleRoots);
    this.environment = b.environment;
    this.script = b.script;
    this.scrubbers = List.copyOf(b.scrubbers);
    this.preparation = b.preparation;
    this.clock = b.clock;
    this.runId = b.runId;
    this.format = b.format;
    this.updateCommand = b.updateCommand;
    this.captureGlobs = List.copyOf(b.captureGlobs);

    List<EntrypointMethod> entrypoints = EntrypointMethod.discover(launcherType);
    Map<String, EntrypointMethod> byName = new LinkedHashMap<>();
    entrypoints.forEach(e -> byName.put(e.name(), e));
    for (String name : b.variants.keySet()) {
      EntrypointMethod e = byName.get(name);
      if (e == null) {
        throw new SnapshotConfigurationException("variants are declared for '" + name + "', which is not an"
            + " entrypoint of " + launcherType.getName() + "; its entrypoints are " + byName.keySet());
      }
      if (!e.takesVariant()) {
        throw new SnapshotConfigurationException("variants are declared for entrypoint " + name + " of "
            + launcherType.getName() + ", which takes no String parameter");
      }
    }
    List<SnapshotCase> all = new ArrayList<>();
    for (EntrypointMethod e : entrypoints) {
      if (!e.takesVariant()) {
        all.add(new SnapshotCase(e, Optional.empty()));
        continue;
      }
      List<String> variants = b.variants.get(e.name());
      if (variants == null || variants.isEmpty()) {
        throw new SnapshotConfigurationException("entrypoint " + e.name() + "(String) of " + launcherType.getName()
            + " takes a variant but none is declared; declare them with .variants(\"" + e.name() + "\", ...)");
      }
      variants.forEach(v -> all.add(new SnapshotCase(e, Optional.of(v))));
    }
    this.cases = List.copyOf(all);

    Set<String> names = new LinkedHashSet<>(byName.keySet());
    cases.forEach(c -> names.add(c.id()));
    this.allowances = Map.copyOf(checkKeys("allowNoCommands", b.allowances, names));
    this.overrides = Map.copyOf(checkKeys("environmentOverride", b.overrides, names));
    // Fail now, not in the middle of a run, when an override touches a frozen key.
    overrides.values().forEach(vars -> vars.forEach(environment::withOverride));
  }

  private <V> Map<String, V> checkKeys(String setting, Map<String, V> map, Set<String> names) {
    for (String key : map.keySet()) {
      if (!names.contains(key)) {
        throw new SnapshotConfigurationException(setting + " names '" + key + "', which is neither an entrypoint"
            + " nor a case of " + launcherType.getName() + "; known names are " + names);
      }
    }
    return map;
  }

  /**
   * Starts the snapshot test of a launcher class.
   *
   * @param launcherType the launcher class, whose public instance methods are the entrypoints
   * @param factory makes a launcher from its ports
   * @param <L> the launcher type
   * @return a builder
   */
  public static <L> Builder<L> of(Class<L> launcherType, Function<LaunchPorts, ? extends L> factory) {
    return new Builder<>(launcherType, factory);
  }

  /**
   * Prepares the sandbox of one run (for example a fake checkpoint the launcher expects).
   */
  @FunctionalInterface
  public interface SandboxPreparation {
    /**
     * Prepares the sandbox.
     *
     * @param snapshotCase the case about to run
     * @param sandbox its empty sandbox directory
     * @throws IOException when the sandbox cannot be prepared
     */
    void prepare(SnapshotCase snapshotCase, Path sandbox) throws IOException;
  }

  /**
   * One run of a case: its recording, the sandbox files captured after it, and its scrubbed text.
   *
   * @param recording the commands and generated files
   * @param sandboxFiles captured sandbox files: path below the sandbox → content, sorted by path
   * @param text the rendered, scrubbed recording
   */
  public record Run(Recording recording, Map<String, String> sandboxFiles, String text) {}

  private Map<String, String> captureSandboxFiles(Path sandbox) throws IOException {
    Map<String, String> captured = new TreeMap<>();
    if (captureGlobs.isEmpty()) {
      return captured;
    }
    List<PathMatcher> matchers = captureGlobs.stream()
        .map(g -> sandbox.getFileSystem().getPathMatcher("glob:" + g)).toList();
    try (Stream<Path> walk = Files.walk(sandbox)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        Path relative = sandbox.relativize(file);
        if (matchers.stream().anyMatch(m -> m.matches(relative))) {
          captured.put(relative.toString().replace(sandbox.getFileSystem().getSeparator(), "/"),
              Files.readString(file, StandardCharsets.UTF_8));
        }
      }
    }
    return captured;
  }

  /**
   * The launcher class.
   *
   * @return the class
   */
  public Class<L> launcherType() {
    return launcherType;
  }

  /**
   * Every case, in entrypoint name order and then variant order.
   *
   * @return the cases
   */
  public List<SnapshotCase> cases() {
    return cases;
  }

  /**
   * The golden directory.
   *
   * @return the directory
   */
  public GoldenDirectory goldenDirectory() {
    return goldens;
  }

  /**
   * The repository root (shown as {@value Scrubbers#REPO_ROOT}).
   *
   * @return the absolute path
   */
  public Path repositoryRoot() {
    return repositoryRoot;
  }

  /**
   * Runs a case once, in a fresh sandbox that is deleted afterwards.
   *
   * @param c the case
   * @return its recording and scrubbed text
   * @throws AssertionFailedError when the launcher cannot be made or the entrypoint throws
   */
  public Run runOnce(SnapshotCase c) {
    Path sandbox;
    try {
      sandbox = Files.createTempDirectory("ci-testkit-sandbox-").toAbsolutePath().normalize();
    } catch (IOException e) {
      throw new SnapshotIoException("cannot create a sandbox directory: " + e.getMessage(), e);
    }
    try {
      preparation.prepare(c, sandbox);
      FrozenEnvironment env = environment;
      for (String key : List.of(c.entrypoint().name(), c.id())) {
        for (Map.Entry<String, String> e : new TreeMap<>(overrides.getOrDefault(key, Map.of())).entrySet()) {
          env = env.withOverride(e.getKey(), e.getValue());
        }
      }
      env = env.withPlaceholders(Map.of(Scrubbers.SANDBOX, sandbox.toString(), Scrubbers.REPO_ROOT,
          repositoryRoot.toString()));
      RecordingCommandExecutor executor = new RecordingCommandExecutor(script);
      StableScratchpad scratchpad = new StableScratchpad(runId, StableScratchpad.DEFAULT_DIRECTORY);
      FrozenFileSystemView files = FrozenFileSystemView.of(sandbox, repositoryRoot,
          moreVisibleRoots.toArray(Path[]::new));
      LaunchPorts ports = new LaunchPorts(executor, env, files, clock, scratchpad);
      L launcher;
      try {
        launcher = factory.apply(ports);
      } catch (RuntimeException e) {
        throw new AssertionFailedError("cannot make launcher " + launcherType.getName() + " for " + c.id() + ": "
            + e, e);
      }
      invoke(c, launcher, executor, scratchpad, sandbox);
      Recording recording = Recording.of(executor, scratchpad);
      Map<String, String> captured = captureSandboxFiles(sandbox);
      StringBuilder rendered = new StringBuilder(format.render(recording));
      captured.forEach((path, content) -> rendered.append('\n').append(format.sandboxFile(path, content)));
      String text = Scrubbers.standard(sandbox, repositoryRoot).then(scrubbers).apply(rendered.toString());
      return new Run(recording, captured, text);
    } catch (IOException e) {
      throw new SnapshotIoException("cannot prepare the sandbox of " + c.id() + ": " + e.getMessage(), e);
    } finally {
      deleteRecursively(sandbox);
    }
  }

  private void invoke(SnapshotCase c, L launcher, RecordingCommandExecutor executor, StableScratchpad scratchpad,
      Path sandbox) {
    try {
      c.entrypoint().method().trySetAccessible();
      if (c.variant().isPresent()) {
        c.entrypoint().method().invoke(launcher, c.variant().get());
      } else {
        c.entrypoint().method().invoke(launcher);
      }
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      String sofar = Scrubbers.standard(sandbox, repositoryRoot).then(scrubbers)
          .apply(format.render(Recording.of(executor, scratchpad)));
      throw new AssertionFailedError("entrypoint " + c.id() + " of " + launcherType.getName() + " threw " + cause
          + "\nrecorded before it threw:\n" + sofar, cause);
    } catch (IllegalAccessException e) {
      throw new SnapshotConfigurationException("cannot call entrypoint " + c.id() + " of " + launcherType.getName()
          + ": " + e.getMessage(), e);
    }
  }

  /**
   * Checks a case: two identical runs, the no-command rule and its allowance, then the golden file (compared,
   * or written in update mode).
   *
   * @param c the case
   * @param mode compare or update
   * @param testClass the simple name of the test class, for the update command in messages; may be null
   * @return the result
   * @throws AssertionFailedError when a check fails
   */
  public SnapshotResult check(SnapshotCase c, UpdateMode mode, @Nullable String testClass) {
    Run first = runOnce(c);
    Run second = runOnce(c);
    if (!first.text().equals(second.text())) {
      throw new AssertionFailedError("entrypoint " + c.id() + " of " + launcherType.getSimpleName() + " is not"
          + " deterministic: two runs on the same frozen ports, each in a fresh sandbox, recorded different"
          + " commands (a hash-ordered collection, a real clock or random value, threads, or state kept between"
          + " runs?):\n" + UnifiedDiff.between("run 1", first.text(), "run 2", second.text()),
          first.text(), second.text());
    }
    int issued = first.recording().commands().size();
    String allowance = allowances.get(c.id());
    if (allowance == null) {
      allowance = allowances.get(c.entrypoint().name());
    }
    if (allowance == null && issued == 0) {
      throw new AssertionFailedError("entrypoint " + c.id() + " of " + launcherType.getSimpleName() + " issued no"
          + " command: an entrypoint that silently does nothing is a broken launcher, not a passing test. If it"
          + " must issue none, say so by name: .allowNoCommands(\"" + c.id() + "\", \"<why>\")");
    }
    if (allowance != null && issued > 0) {
      throw new AssertionFailedError("entrypoint " + c.id() + " of " + launcherType.getSimpleName() + " is allowed"
          + " to issue no command (" + allowance + ") but issued " + issued + ", the first being:\n"
          + format.command(first.recording().commands().get(0).command())
          + "remove the allowance if the entrypoint now does work");
    }
    Path file = goldens.resolve(c.goldenPath());
    Optional<String> golden = goldens.read(c.goldenPath());
    if (mode == UpdateMode.UPDATE) {
      if (golden.isPresent() && golden.get().equals(first.text())) {
        return new SnapshotResult(c, first.recording(), first.text(), file, SnapshotResult.Status.UNCHANGED);
      }
      goldens.write(c.goldenPath(), first.text());
      return new SnapshotResult(c, first.recording(), first.text(), file,
          golden.isPresent() ? SnapshotResult.Status.UPDATED : SnapshotResult.Status.CREATED);
    }
    if (golden.isEmpty()) {
      throw new AssertionFailedError("golden file " + file + " of " + c.id() + " does not exist; create it with\n  "
          + updateCommand(testClass) + "\nthen review and commit it. It would hold:\n" + first.text());
    }
    if (!golden.get().equals(first.text())) {
      throw new AssertionFailedError("entrypoint " + c.id() + " of " + launcherType.getSimpleName()
          + " no longer matches its golden file " + file + ":\n"
          + UnifiedDiff.between("golden " + c.goldenPath(), golden.get(), "recorded " + c.id(), first.text())
          + "If the change is intended, update the golden files with\n  " + updateCommand(testClass)
          + "\nand review the diff before committing.", golden.get(), first.text());
    }
    return new SnapshotResult(c, first.recording(), first.text(), file, SnapshotResult.Status.MATCHED);
  }

  /**
   * The golden files that belong to no case.
   *
   * @return relative paths, sorted
   */
  public List<String> orphans() {
    Set<String> owned = new LinkedHashSet<>();
    cases.forEach(c -> owned.add(c.goldenPath()));
    return goldens.files().stream().filter(f -> !owned.contains(f)).toList();
  }

  /**
   * Checks that every golden file belongs to a case; in update mode deletes those that do not.
   *
   * @param mode compare or update
   * @param testClass the simple name of the test class, for the update command in messages; may be null
   * @return the deleted files (update mode), else empty
   * @throws AssertionFailedError in compare mode when there are orphans
   */
  public List<String> checkOrphans(UpdateMode mode, @Nullable String testClass) {
    List<String> orphans = orphans();
    if (orphans.isEmpty()) {
      return List.of();
    }
    if (mode == UpdateMode.UPDATE) {
      orphans.forEach(goldens::delete);
      return orphans;
    }
    throw new AssertionFailedError("golden directory " + goldens.root() + " holds " + orphans.size() + " file(s)"
        + " that no entrypoint of " + launcherType.getSimpleName() + " records: " + orphans + ". Its entrypoint"
        + " or variant was removed or renamed; delete the file(s), or run\n  " + updateCommand(testClass)
        + "\nwhich deletes them. The cases are " + cases.stream().map(SnapshotCase::id).toList());
  }

  /**
   * The command that rewrites this launcher's golden files: the configured one, else a Maven wrapper
   * command for the module the tests run in (found from the working directory and the nearest
   * {@code mvnw} above it).
   *
   * @param testClass the simple name of the test class, or null
   * @return the command
   */
  public String updateCommand(@Nullable String testClass) {
    if (updateCommand != null) {
      return updateCommand;
    }
    String test = testClass == null ? "<TestClass>" : testClass;
    String update = " -D" + UpdateMode.PROPERTY + "=" + UpdateMode.PROPERTY_VALUE;
    Path cwd = Path.of("").toAbsolutePath().normalize();
    for (Path dir = cwd; dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("mvnw"))) {
        String module = dir.relativize(cwd).toString().replace(cwd.getFileSystem().getSeparator(), "/");
        return module.isEmpty()
            ? "./mvnw -o verify -Dtest=" + test + update
            : "./mvnw -o -pl " + module + " -am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest=" + test
                + update;
      }
    }
    return "rerun " + test + " with" + update + " (or " + UpdateMode.VARIABLE + "=" + UpdateMode.VARIABLE_VALUE
        + "), outside CI";
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // A leftover sandbox in the temporary directory is harmless.
    }
  }

  /**
   * Finds the repository root: the nearest directory at or above {@code start} that holds {@code .git}.
   *
   * @param start where to start
   * @return the root
   * @throws SnapshotConfigurationException when there is none
   */
  public static Path findRepositoryRoot(Path start) {
    Path abs = start.toAbsolutePath().normalize();
    for (Path dir = abs; dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve(".git"))) {
        return dir;
      }
    }
    throw new SnapshotConfigurationException("no repository root (a directory with .git) at or above " + abs
        + "; set it with .repositoryRoot(...)");
  }

  /**
   * Builds {@link LauncherSnapshots}.
   *
   * @param <L> the launcher type
   */
  public static final class Builder<L> {
    private final Class<L> launcherType;
    private final Function<LaunchPorts, ? extends L> factory;
    private @Nullable Path goldenDirectory;
    private @Nullable Path repositoryRoot;
    private final List<Path> visibleRoots = new ArrayList<>();
    private FrozenEnvironment environment = FrozenEnvironment.defaults();
    private final Map<String, Map<String, String>> overrides = new LinkedHashMap<>();
    private CommandScript script = CommandScript.empty();
    private final List<Scrubber> scrubbers = new ArrayList<>();
    private final Map<String, List<String>> variants = new LinkedHashMap<>();
    private final Map<String, String> allowances = new LinkedHashMap<>();
    private SandboxPreparation preparation = (c, sandbox) -> { };
    private Clock clock = Clock.fixed(FROZEN_INSTANT, ZoneOffset.UTC);
    private String runId = StableScratchpad.DEFAULT_RUN_ID;
    private GoldenFormat format = GoldenFormat.standard();
    private @Nullable String updateCommand;
    private final List<String> captureGlobs = new ArrayList<>();

    private Builder(Class<L> launcherType, Function<LaunchPorts, ? extends L> factory) {
      this.launcherType = launcherType;
      this.factory = factory;
    }

    /**
     * Where the golden files live (required), relative to the working directory of the tests (the module
     * directory under Maven), e.g. {@code src/test/resources/golden/stage-launcher}.
     *
     * @param directory the directory
     * @return this builder
     */
    public Builder<L> goldenDirectory(Path directory) {
      this.goldenDirectory = directory;
      return this;
    }

    /**
     * The repository root (default: the nearest directory with {@code .git} above the working directory).
     *
     * @param root the root
     * @return this builder
     */
    public Builder<L> repositoryRoot(Path root) {
      this.repositoryRoot = root.toAbsolutePath().normalize();
      return this;
    }

    /**
     * One more root the frozen file system shows besides the sandbox and the repository.
     *
     * @param root the root
     * @return this builder
     */
    public Builder<L> visibleRoot(Path root) {
      visibleRoots.add(root);
      return this;
    }

    /**
     * The frozen environment (default: {@link FrozenEnvironment#defaults()}).
     *
     * @param frozen the environment
     * @return this builder
     */
    public Builder<L> environment(FrozenEnvironment frozen) {
      this.environment = frozen;
      return this;
    }

    /**
     * A variable added to the frozen environment for one entrypoint (all its variants) or one case.
     *
     * @param entrypointOrCase {@code entrypoint} or {@code entrypoint[variant]}
     * @param name the variable, which must not be a frozen key
     * @param value its value
     * @return this builder
     */
    public Builder<L> environmentOverride(String entrypointOrCase, String name, String value) {
      overrides.computeIfAbsent(entrypointOrCase, k -> new TreeMap<>()).put(name, value);
      return this;
    }

    /**
     * The command script the recording executor answers from (default: empty successes, one node).
     *
     * @param commandScript the script
     * @return this builder
     */
    public Builder<L> script(CommandScript commandScript) {
      this.script = commandScript;
      return this;
    }

    /**
     * A scrubber applied after the standard ones and the previously added ones.
     *
     * @param scrubber the rule
     * @return this builder
     */
    public Builder<L> scrubber(Scrubber scrubber) {
      scrubbers.add(scrubber);
      return this;
    }

    /**
     * The variants of an entrypoint that takes a {@code String}; each is a case with its own golden file.
     *
     * @param entrypoint the entrypoint
     * @param values distinct names made of letters, digits, {@code .}, {@code _} and {@code -}
     * @return this builder
     * @throws SnapshotConfigurationException for a bad or repeated variant
     */
    public Builder<L> variants(String entrypoint, List<String> values) {
      Set<String> seen = new LinkedHashSet<>();
      for (String v : values) {
        if (!VARIANT.matcher(v).matches()) {
          throw new SnapshotConfigurationException("variant '" + v + "' of entrypoint " + entrypoint + " cannot name"
              + " a golden file; expected letters, digits, '.', '_' and '-', starting with a letter or digit");
        }
        if (!seen.add(v)) {
          throw new SnapshotConfigurationException("variant '" + v + "' of entrypoint " + entrypoint
              + " is declared twice");
        }
      }
      variants.put(entrypoint, List.copyOf(values));
      return this;
    }

    /**
     * The named allowance of the seed: this entrypoint (every variant) or case must issue no command.
     *
     * @param entrypointOrCase {@code entrypoint} or {@code entrypoint[variant]}
     * @param reason why it issues none, shown when it does
     * @return this builder
     * @throws SnapshotConfigurationException for a blank reason
     */
    public Builder<L> allowNoCommands(String entrypointOrCase, String reason) {
      if (reason.isBlank()) {
        throw new SnapshotConfigurationException("the allowance of " + entrypointOrCase + " needs a reason");
      }
      allowances.put(entrypointOrCase, reason);
      return this;
    }

    /**
     * Captures the files of each run's sandbox that match a glob (relative to the sandbox, e.g.
     * {@code github_output} or {@code results/**.xml}) after the entrypoint returned, and appends them to
     * the recording as {@code ### sandbox file <path>} sections, sorted by path. For launchers whose product
     * is a file, such as a GitHub Actions output file.
     *
     * @param glob a {@link java.nio.file.FileSystem#getPathMatcher} glob
     * @return this builder
     */
    public Builder<L> captureSandboxFiles(String glob) {
      captureGlobs.add(glob);
      return this;
    }

    /**
     * Prepares each run's sandbox before the launcher is made.
     *
     * @param prepare the preparation
     * @return this builder
     */
    public Builder<L> prepareSandbox(SandboxPreparation prepare) {
      this.preparation = prepare;
      return this;
    }

    /**
     * The clock port (default: fixed at {@link #FROZEN_INSTANT}, UTC).
     *
     * @param frozenClock the clock
     * @return this builder
     */
    public Builder<L> clock(Clock frozenClock) {
      this.clock = frozenClock;
      return this;
    }

    /**
     * The run id the scratchpad hands out (default {@value StableScratchpad#DEFAULT_RUN_ID}).
     *
     * @param id the run id
     * @return this builder
     */
    public Builder<L> runId(String id) {
      this.runId = id;
      return this;
    }

    /**
     * The golden format (default {@link GoldenFormat#standard()}).
     *
     * @param goldenFormat the format
     * @return this builder
     */
    public Builder<L> format(GoldenFormat goldenFormat) {
      this.format = goldenFormat;
      return this;
    }

    /**
     * The command printed for creating or updating golden files (default: computed, see
     * {@link LauncherSnapshots#updateCommand(String)}).
     *
     * @param command the command
     * @return this builder
     */
    public Builder<L> updateCommand(String command) {
      this.updateCommand = command;
      return this;
    }

    /**
     * Discovers the entrypoints and checks the settings against them.
     *
     * @return the snapshot test
     * @throws SnapshotConfigurationException when the golden directory is missing, the launcher has no usable
     *     entrypoints, or a setting names an unknown entrypoint or overrides a frozen key
     * @throws dev.cipolicy.testkit.doubles.FrozenKeyException when an override names a frozen key
     */
    public LauncherSnapshots<L> build() {
      if (goldenDirectory == null) {
        throw new SnapshotConfigurationException("the snapshots of " + launcherType.getName() + " need a golden"
            + " directory: .goldenDirectory(Path.of(\"src/test/resources/golden/...\"))");
      }
      Path root = repositoryRoot != null ? repositoryRoot : findRepositoryRoot(Path.of(""));
      return new LauncherSnapshots<>(this, goldenDirectory, root);
    }
  }
}
