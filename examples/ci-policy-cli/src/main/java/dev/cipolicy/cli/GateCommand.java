package dev.cipolicy.cli;

import dev.cipolicy.api.CanonicalJson;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.gate.FailOnLevel;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.core.load.GateDeclarationsLoader;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.gate.CiRunIdentity;
import dev.cipolicy.gate.CoordinateVerdict;
import dev.cipolicy.gate.FailOn;
import dev.cipolicy.gate.Finding;
import dev.cipolicy.gate.GateEvaluator;
import dev.cipolicy.gate.GateHook;
import dev.cipolicy.gate.GateMode;
import dev.cipolicy.gate.GateModel;
import dev.cipolicy.gate.GateOptions;
import dev.cipolicy.gate.GateReport;
import dev.cipolicy.gate.GateStatus;
import dev.cipolicy.gate.HookAction;
import dev.cipolicy.gate.HookOutcome;
import dev.cipolicy.gate.HookRequest;
import dev.cipolicy.gate.MarkdownLimit;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.gate.TrustMode;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ci-policy gate}: the metric gate of one test file's run. Prints the verdict line and the
 * step summary (to the step-summary file when one is set, else to standard output); in a baseline-writing run
 * ({@code --write-baseline}) it also writes one baseline run into the history ({@link HistoryStoreOptions}:
 * a JSON file, or PostgreSQL). Every regression and every ERROR verdict is one annotation on the test file
 * ({@code ::error} when it blocks, else {@code ::warning}). Without a blocking level the exit code is 0 whatever
 * the verdicts and whatever fails inside the gate — the gate never changes a test's pass/fail by default; with
 * {@code --fail-on regression} (or {@code error}) it is 1 when a regression (or also an ERROR verdict) blocks,
 * as {@link HookOutcome#shouldFail(FailOn)} decides. Without {@code --fail-on}, the level is the policy's
 * {@code gates.fail_on} entry for the run's {@code --cadence} (none: only reports); {@code --fail-on never}
 * turns blocking off whatever the policy says. A history database that cannot be reached is a failure
 * inside the gate: reported (the hook's failure line, and a {@code ::warning::} annotation), exit 0. So is a
 * record past the size limits ({@link dev.cipolicy.gate.RecordLimits}): its gates are ERROR and one
 * {@code ::error::} line names the limit, exit 0. Only unusable arguments (a policy, gate declarations or history
 * file that cannot be read, a missing or malformed database URL, a baseline write without a CI run id) exit 1,
 * and usage errors 2. A baseline write carries the CI run's identity, so a retried write stores nothing new;
 * the step summary and the comment body stay within GitHub's limits ({@link MarkdownLimit}).
 */
@Command(
    name = "gate",
    mixinStandardHelpOptions = true,
    description = {
        "Judges a test run's metric record against the trusted baseline history.",
        "Record JSON: {\"train/grad_norm\": [[0, 1.02], [1, 0.97]], \"rollout/raw_reward\": [[0, \"NaN\"]]}.",
        "Exit code 0 whatever the verdicts (unless a blocking level), also when the history database cannot be",
        "reached; 1 when verdicts block (--fail-on, else the policy's gates.fail_on for --cadence), when the",
        "policy, gates, history file or database arguments are unusable, or --write-baseline lacks the CI run id",
        "(--ci-run-id or GITHUB_RUN_ID)."
    })
final class GateCommand extends PolicyCommand {

  @Option(names = "--test-file", required = true, paramLabel = "PATH", description = "The test file, e.g. tests/e2e/test_a.py.")
  private @Nullable String testFile;

  @Option(names = "--record", required = true, paramLabel = "FILE", description = "The test's metric record (JSON).")
  private @Nullable String record;

  @Option(names = "--gates", paramLabel = "FILE",
      description = "Gate declarations per test file (YAML/JSON); a test not listed declares no gate.")
  private @Nullable String gates;

  @Option(names = "--hw", paramLabel = "BACKEND", description = "The backend of the series.")
  private @Nullable String hw;

  @Option(names = "--suite", paramLabel = "SUITE", description = "The suite of the series.")
  private @Nullable String suite;

  @Option(names = "--registrations", paramLabel = "FILE",
      description = "The registration manifest; gives --hw and --suite when the test file has one registration.")
  private @Nullable String registrations;

  @Mixin
  private HistoryStoreOptions historyStore = new HistoryStoreOptions();

  @Option(names = "--write-baseline", description = "A baseline-writing run (nightly, weekly); else shadow.")
  private boolean writeBaseline;

  @Option(names = "--accept-level-shifts", description = "In a baseline-writing run, accept the level shifts it proposes.")
  private boolean acceptLevelShifts;

  @Option(names = "--model", defaultValue = "band", paramLabel = "MODEL",
      description = "The deciding model: band (default), median-mad, iqr-fence, adjacent-delta.")
  private String model = "band";

  @Option(names = "--advisory", paramLabel = "MODEL", description = "A model reported beside the deciding one.")
  private List<String> advisories = new ArrayList<>();

  @Option(names = "--trust", defaultValue = "per-coordinate", paramLabel = "MODE",
      description = "How baseline samples are trusted: per-coordinate (default) or per-run (the reference).")
  private String trust = "per-coordinate";

  @Option(names = "--level-shift-after", defaultValue = "3", paramLabel = "K",
      description = "Agreeing out-of-band values that propose a level shift; 0 turns quarantine off.")
  private int levelShiftAfter = 3;

  @Option(names = "--ci-run-id", paramLabel = "ID", description = "The CI run id stored with a baseline [GITHUB_RUN_ID].")
  private @Nullable String ciRunId;

  @Option(names = "--ci-run-attempt", paramLabel = "N",
      description = "The attempt of the CI run, from 1 [GITHUB_RUN_ATTEMPT; default 1].")
  private @Nullable String ciRunAttempt;

  @Option(names = "--ci-repository", paramLabel = "OWNER/NAME",
      description = "The repository of the CI run [GITHUB_REPOSITORY].")
  private @Nullable String ciRepository;

  @Option(names = "--comment-body", paramLabel = "FILE",
      description = "Writes the gate's Markdown as a pull-request comment or check-run body (at most 65,536 characters).")
  private @Nullable String commentBody;

  @Option(names = "--commit", paramLabel = "SHA", description = "The commit stored with a baseline [GITHUB_SHA].")
  private @Nullable String commit;

  @Option(names = "--cadence", paramLabel = "CADENCE", description = "The run's cadence: stored with a baseline; picks the policy's gates.fail_on level.")
  private @Nullable String cadence;

  @Option(names = "--created-at", paramLabel = "INSTANT", description = "The baseline's time (default: now), e.g. 2026-11-29T15:00:00Z.")
  private @Nullable String createdAt;

  @Option(names = "--step-summary", paramLabel = "FILE", description = "Appends the step summary to this file [GITHUB_STEP_SUMMARY].")
  private @Nullable String stepSummary;

  @Option(names = "--json", description = "Print one JSON object: the hook's outcome and every verdict with its evidence.")
  private boolean json;

  @Option(names = "--fail-on", paramLabel = "WHAT",
      description = "Exit 1 when a verdict blocks: regression, or error (a regression or an ERROR verdict);"
          + " never turns blocking off. Default: the policy's gates.fail_on level for --cadence, else never.")
  private @Nullable String failOn;

  /** The blocking policy of the run and where it comes from, as annotations and the failing line name it. */
  private record Blocking(FailOn failOn, String source) {}

  @Override
  int run(CiPolicyCli c, LoadedPolicy loaded) throws IOException {
    Map<String, String> env = c.environment();
    Blocking blocking = blocking(loaded);
    GateOptions options = options();
    String test = Objects.requireNonNull(testFile);
    List<GateDeclaration> declared = declarations(c, test);
    SeriesKey series = series(c, loaded, test);
    HistoryStoreOptions.OpenedHistory opened = historyStore.open(c, false, true);
    Clock clock = createdAt == null ? Clock.systemUTC() : Clock.fixed(instant(createdAt), ZoneOffset.UTC);
    Optional<String> runId = Inputs.flagOrEnv(ciRunId, env, "GITHUB_RUN_ID").filter(v -> !v.isEmpty());
    Provenance provenance = new Provenance(runId, Inputs.flagOrEnv(commit, env, "GITHUB_SHA"),
        Optional.ofNullable(cadence), identity(env, runId));
    String recordFlag = Objects.requireNonNull(record);
    Path recordPath = c.resolvePath(recordFlag);
    List<String> limitErrors = new ArrayList<>();
    HookOutcome outcome = GateHook.of(opened.store(), GateEvaluator.of(options), clock).run(HookRequest.builder()
        .series(series).addAllDeclarations(declared).addAllDefaults(loaded.policy().gateDefaults())
        .record(() -> {
          try {
            return GateFiles.record(recordFlag, recordPath);
          } catch (GateFiles.RecordLimitException e) {
            limitErrors.add(e.getMessage());
            throw e;
          }
        })
        .mode(writeBaseline ? GateMode.BASELINE : GateMode.SHADOW).provenance(provenance)
        .acceptLevelShifts(acceptLevelShifts).build());
    // a record beyond the limits is the test's output, not an unusable argument: its gates are ERROR, exit 0
    limitErrors.forEach(m -> c.console().error(m));
    if (outcome.action() == HookAction.WROTE_BASELINE && opened.persistent()) {
      opened.save();
    }
    if (outcome.action() == HookAction.WROTE_BASELINE && !opened.persistent()) {
      c.console().warning("--write-baseline without --history: the baseline was written to memory only");
    }
    if (outcome.action() == HookAction.FAILED) {
      // the gate never fails the test: reported as an annotation, exit code 0
      c.console().warning(outcome.verdictLine());
    }
    String summaryPath = Inputs.flagOrEnv(stepSummary, env, "GITHUB_STEP_SUMMARY").orElse("");
    if (!summaryPath.isEmpty() && !outcome.stepSummary().isEmpty()) {
      appendSummary(c, c.resolvePath(summaryPath), outcome.stepSummary(), "the gate's summary");
    }
    if (commentBody != null) {
      String body = outcome.result().map(r -> GateReport.comment(outcome.mode(), r)).orElse("");
      GateFiles.writeText(c.resolvePath(commentBody), body.isEmpty() ? outcome.verdictLine() + "\n" : body);
    }
    print(c, outcome, summaryPath.isEmpty());
    annotate(c, test, outcome, blocking);
    if (outcome.shouldFail(blocking.failOn())) {
      int n = outcome.blocking(blocking.failOn()).size();
      c.console().line("[CI Gate][" + outcome.mode().tag() + "] " + test + ": failing the run: " + n
          + (n == 1 ? " verdict blocks" : " verdicts block") + " with " + blocking.source());
      return 1;
    }
    return 0;
  }

  /**
   * The blocking policy: {@code --fail-on} when given; else the policy's {@code gates.fail_on} level for the
   * run's {@code --cadence}, which must then be a declared cadence; else {@link FailOn#NEVER}.
   */
  private Blocking blocking(LoadedPolicy loaded) {
    if (failOn != null) {
      String name = failOn;
      FailOn f = FailOn.named(name).orElseThrow(() -> new Inputs.InputException("--fail-on: expected"
          + " regression, error or never, found '" + name + "'"));
      return new Blocking(f, "--fail-on " + f.tag());
    }
    Map<String, FailOnLevel> levels = loaded.policy().gateFailOn();
    if (levels.isEmpty() || cadence == null) {
      return new Blocking(FailOn.NEVER, "--fail-on never");
    }
    String run = cadence;
    if (loaded.policy().cadence(run).isEmpty()) {
      throw new Inputs.InputException("--cadence: unknown cadence '" + run + "' (the policy's gates.fail_on"
          + " blocks by cadence); expected one of " + new TreeSet<>(loaded.policy().cadenceNames()));
    }
    return Optional.ofNullable(levels.get(run)).map(FailOn::of)
        .map(f -> new Blocking(f, "gates.fail_on." + run + ": " + f.tag()))
        .orElse(new Blocking(FailOn.NEVER, "--fail-on never"));
  }

  /**
   * One annotation per regression or ERROR verdict, on the test file: {@code ::error} when it blocks under
   * the run's blocking policy, else {@code ::warning}; the title says which, the message names the test file, the
   * metric, the step and the band. A line break from the record is written {@code \n}, so each is one line.
   */
  private static void annotate(CiPolicyCli c, String test, HookOutcome outcome, Blocking blocking) {
    for (CoordinateVerdict v : outcome.findings()) {
      boolean blocks = blocking.failOn().blocks(v);
      String what = v.status() == GateStatus.ERROR ? "error"
          : (v.finding() == Finding.OUT_OF_BAND ? "out-of-band" : "regression");
      String message = test + ": " + v.metricKey() + " step " + v.stepLabel() + ": " + v.status() + ": "
          + v.reason() + v.band().map(b -> "; band " + b).orElse("")
          + (blocks ? " (blocks: " + blocking.source() + ")" : "");
      Map<String, String> properties = new LinkedHashMap<>();
      properties.put("file", test);
      properties.put("title", "ci-gate-" + what);
      c.console().command(blocks ? "error" : "warning", properties,
          message.replace("\r", "\\r").replace("\n", "\\n"));
    }
  }

  /**
   * The CI run identity of a baseline write: required (the run id), so that a retried write stores nothing new;
   * the attempt defaults to 1 and the repository is optional. A shadow run writes nothing and needs none.
   */
  private Optional<CiRunIdentity> identity(Map<String, String> env, Optional<String> runId) {
    if (!writeBaseline) {
      return Optional.empty();
    }
    if (runId.isEmpty()) {
      throw new Inputs.InputException("--write-baseline needs the CI run's identity so that a retried write stores"
          + " nothing new: pass --ci-run-id (or set GITHUB_RUN_ID), and optionally --ci-run-attempt"
          + " (GITHUB_RUN_ATTEMPT, default 1) and --ci-repository (GITHUB_REPOSITORY)");
    }
    String attemptText = Inputs.flagOrEnv(ciRunAttempt, env, "GITHUB_RUN_ATTEMPT").filter(v -> !v.isEmpty())
        .orElse("1");
    int attempt;
    try {
      attempt = Integer.parseInt(attemptText);
    } catch (NumberFormatException e) {
      throw new Inputs.InputException("--ci-run-attempt: expected a whole number from 1, found '"
          + attemptText + "'");
    }
    Optional<String> repository = Inputs.flagOrEnv(ciRepository, env, "GITHUB_REPOSITORY").filter(v -> !v.isEmpty());
    try {
      return Optional.of(new CiRunIdentity(repository, runId.get(), attempt));
    } catch (InvalidInputException e) {
      throw new Inputs.InputException(e.getMessage());
    }
  }

  /**
   * Appends the step summary within what is left of GitHub's 1 MiB for the step's summary file; when too
   * little is left, appends nothing and says so.
   */
  static void appendSummary(CiPolicyCli c, Path file, String summary, String what) {
    long used;
    try {
      used = Files.exists(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      used = 0;
    }
    long left = MarkdownLimit.STEP_SUMMARY.max() - used;
    if (left < MarkdownLimit.MIN) {
      c.console().warning("the step summary file already holds " + used + " bytes of GitHub's 1 MiB;"
          + " " + what + " was not appended (see the JSON output)");
      return;
    }
    Inputs.appendOutput(file, MarkdownLimit.STEP_SUMMARY.withMax((int) left).truncate(summary));
  }


  private GateOptions options() {
    GateOptions.Builder b = GateOptions.builder().model(model(model));
    advisories.forEach(a -> b.addAdvisories(model(a)));
    b.trust(switch (trust) {
      case "per-coordinate" -> TrustMode.PER_COORDINATE;
      case "per-run" -> TrustMode.PER_RUN;
      default -> throw new Inputs.InputException("unknown --trust '" + trust + "'; expected per-coordinate or per-run");
    });
    if (levelShiftAfter < 0 || levelShiftAfter == 1) {
      throw new Inputs.InputException("--level-shift-after must be 0 (off) or at least 2, got " + levelShiftAfter);
    }
    return b.levelShiftAfter(levelShiftAfter).build();
  }

  static GateModel model(String name) {
    return GateModel.named(name).orElseThrow(() -> new Inputs.InputException("unknown model '" + name
        + "'; expected one of " + GateModel.defaults().stream().map(GateModel::name).toList()));
  }

  static Instant instant(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new Inputs.InputException("--created-at: expected an ISO-8601 instant such as 2026-11-29T15:00:00Z, found '"
          + text + "'");
    }
  }

  private List<GateDeclaration> declarations(CiPolicyCli c, String test) {
    if (gates == null) {
      return List.of();
    }
    Map<String, List<GateDeclaration>> all = GateDeclarationsLoader.load(gates,
        Inputs.readText(c.resolvePath(gates), "gates file", Inputs.MAX_DOCUMENT_BYTES));
    return all.getOrDefault(test, List.of());
  }

  /** The series from --hw/--suite, else from the test file's only registration. */
  static SeriesKey series(CiPolicyCli c, LoadedPolicy loaded, String test, @Nullable String hw, @Nullable String suite,
      @Nullable String registrations) {
    if (hw != null && suite != null) {
      return new SeriesKey(test, hw, suite);
    }
    if (hw != null || suite != null) {
      throw new Inputs.InputException("--hw and --suite go together");
    }
    if (registrations == null) {
      throw new Inputs.InputException("the series needs --hw and --suite, or --registrations to look them up");
    }
    List<Registration> regs = Inputs.loadRegistry(c, loaded, registrations).registrationsOf(test);
    if (regs.size() != 1) {
      throw new Inputs.InputException("test file " + test + " has " + regs.size() + " registrations in "
          + registrations + "; pass --hw and --suite");
    }
    return new SeriesKey(test, regs.get(0).backend(), regs.get(0).suite());
  }

  private SeriesKey series(CiPolicyCli c, LoadedPolicy loaded, String test) {
    return series(c, loaded, test, hw, suite, registrations);
  }

  static InMemoryMetricHistoryStore loadHistory(Optional<Path> path, @Nullable String flag) {
    if (path.isEmpty() || !Files.exists(path.get())) {
      return new InMemoryMetricHistoryStore();
    }
    return GateFiles.history(Objects.requireNonNull(flag), Inputs.readText(path.get(), "history file"));
  }

  /**
   * Replaces the history file atomically: the text goes to a new file beside it, which then takes its place.
   * The file keeps its POSIX permissions (a 0644 file stays 0644); a new file gets the mode any new file of the
   * process gets (its umask). Nothing is left behind when the write fails.
   */
  static void save(Path path, String text) {
    Path tmp = null;
    try {
      Path dir = path.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Optional<Set<PosixFilePermission>> mode = Optional.empty();
      if (Files.exists(path) && Files.getFileAttributeView(path, PosixFileAttributeView.class) != null) {
        mode = Optional.of(Files.getPosixFilePermissions(path));
      }
      // not Files.createTempFile: it creates the file with mode 0600 whatever the umask
      tmp = Files.createFile(dir.resolve(".history-" + UUID.randomUUID() + ".tmp"));
      if (mode.isPresent()) {
        Files.setPosixFilePermissions(tmp, mode.get());
      }
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      tmp = null;
    } catch (IOException e) {
      throw new Inputs.InputException("cannot write history file " + path + ": " + Inputs.describe(e));
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // the write already failed and says so; a stray temporary file is the lesser problem
        }
      }
    }
  }

  private void print(CiPolicyCli c, HookOutcome o, boolean withSummary) {
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("action", o.action().name().toLowerCase(Locale.ROOT));
      m.put("mode", o.mode().tag());
      o.runId().ifPresent(r -> m.put("run_id", r.value()));
      m.put("samples_written", o.samplesWritten());
      m.put("level_shifts_accepted", o.levelShiftsAccepted());
      m.put("verdict_line", o.verdictLine());
      o.failure().ifPresent(f -> m.put("failure", f));
      m.put("log", o.log());
      o.result().ifPresent(r -> m.put("result", r.toMap()));
      m.put("step_summary", o.stepSummary());
      c.console().json(GateFiles.pretty(CanonicalJson.write(m)));
      return;
    }
    // the verdict line, then what the hook did; the per-coordinate detail is the step summary's table
    c.console().line(o.verdictLine());
    o.log().stream().filter(l -> !l.equals(o.verdictLine()) && !l.startsWith("  - ")).forEach(c.console()::line);
    if (withSummary && !o.stepSummary().isEmpty()) {
      c.console().line("");
      c.console().lines(o.stepSummary());
    }
  }
}
