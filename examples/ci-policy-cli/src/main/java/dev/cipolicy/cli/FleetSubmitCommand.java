package dev.cipolicy.cli;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.suite.FileRunDecision;
import dev.cipolicy.api.suite.FileRunPlan;
import dev.cipolicy.api.suite.JobPlan;
import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.api.suite.RunFacts;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.CommandPlanner;
import dev.cipolicy.core.FileRunPlanner;
import dev.cipolicy.core.SuitePlanner;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.fleet.job.CiJob;
import dev.cipolicy.fleet.job.CiJobArgs;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.spi.SubmitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy fleet submit}: turns the workflow run it is started in into queue jobs on the fleet (one per
 * suite shard, with the command the policy renders for it), submits them as one CI run request, and with
 * {@code --wait} follows them to their end. See {@code docs/cli-fleet.md}.
 */
@Command(name = "submit", mixinStandardHelpOptions = true,
    description = {"Plans this workflow run's GPU suites into fleet jobs, submits them, and with --wait follows them.",
        "An absent flag falls back to the environment variable named in brackets.",
        "Exit codes: 0 every required followed job succeeded (or submitted, without --wait); 1 a job failed or was"
            + " cancelled; 2 usage; 3 bad input; 4 the store did not answer within --store-budget-seconds."})
final class FleetSubmitCommand implements Callable<Integer> {
  /** The default poll interval of {@code --wait}. */
  static final long DEFAULT_POLL_MILLIS = 1000;

  /** A commit id as the jobs' checkout takes it (the queue's rule for a CI run's commit). */
  private static final Pattern COMMIT = Pattern.compile(RunFacts.COMMIT_GRAMMAR);
  private static final Pattern PULL_REF = Pattern.compile("refs/pull/([0-9]{1,18})/(?:merge|head)");

  /** A job name as {@code JobPlan.nameOf} writes it: {@code <suite>-<shard>of<shards>}. */
  private static final Pattern JOB_NAME = Pattern.compile("(.*)-[0-9]+of[0-9]+");

  @ParentCommand
  private @Nullable FleetCommand parent;

  @Mixin
  private TriggerOptions trigger = new TriggerOptions();

  @Mixin
  private FleetStoreOptions store = new FleetStoreOptions();

  @Option(names = "--policy", required = true, paramLabel = "FILE", description = "The policy document (YAML or JSON).")
  private String policy = "";

  @Option(names = "--test-file", paramLabel = "PATH", description = "Run one registered test file (a /rerun-test)"
      + " instead of the run's suites: one job on its suite's pool, with CI_POLICY_TEST_FILE set to it.")
  private @Nullable String testFile;

  @Option(names = "--repository", paramLabel = "OWNER/NAME", description = "The repository [GITHUB_REPOSITORY].")
  private @Nullable String repository;

  @Option(names = "--run-id", paramLabel = "N", description = "The workflow run id [GITHUB_RUN_ID].")
  private @Nullable String runId;

  @Option(names = "--attempt", paramLabel = "N", description = "The run attempt [GITHUB_RUN_ATTEMPT], default 1.")
  private @Nullable String attempt;

  @Option(names = "--commit", paramLabel = "SHA", description = "The commit the jobs test [GITHUB_SHA].")
  private @Nullable String commit;

  @Option(names = "--pr-number", paramLabel = "N", description = "The pull request [PR_NUMBER, else GITHUB_REF's"
      + " refs/pull/N/merge].")
  private @Nullable String prNumber;

  @Option(names = "--workflow", paramLabel = "NAME", description = "The workflow's name [GITHUB_WORKFLOW].")
  private @Nullable String workflow;

  @Option(names = "--concurrency-group", paramLabel = "GROUP", description = "Runs of one group supersede each"
      + " other: a newer run cancels the older [CI_POLICY_CONCURRENCY_GROUP]; default for a pull request:"
      + " <workflow>/pr-<N>; 'none' for no group.")
  private @Nullable String concurrencyGroup;

  @Option(names = "--image-tag", paramLabel = "TAG", description = "The CI image tag for {image_tag} [IMAGE_TAG],"
      + " default: the policy's.")
  private @Nullable String imageTag;

  @Option(names = "--wait", description = "Follow the jobs until they end; the exit code is then the jobs'.")
  private boolean waitForJobs;

  @Option(names = "--suite", paramLabel = "SUITE", description = "With --wait, follow only this suite's jobs"
      + " (repeatable); the whole run is still submitted once.")
  private List<String> suites = new ArrayList<>();

  @Option(names = "--step-summary", paramLabel = "FILE", description = "Appends the jobs' table to this file"
      + " [GITHUB_STEP_SUMMARY].")
  private @Nullable String stepSummary;

  @Option(names = "--log-url", paramLabel = "TEMPLATE", description = "The page of a job's log, {job} standing for"
      + " its id, e.g. https://fleet.example/jobs/{job} [CI_POLICY_FLEET_LOG_URL].")
  private @Nullable String logUrl;

  @Option(names = "--store-budget-seconds", paramLabel = "S", defaultValue = "" + StoreBudget.DEFAULT_SECONDS,
      description = "How long an unreachable store is retried before giving up with exit code 4 (default:"
          + " ${DEFAULT-VALUE}).")
  private long budgetSeconds = StoreBudget.DEFAULT_SECONDS;

  @Option(names = "--poll-millis", paramLabel = "MS", defaultValue = "" + DEFAULT_POLL_MILLIS, hidden = true,
      description = "How often --wait reads the jobs (default: ${DEFAULT-VALUE}).")
  private long pollMillis = DEFAULT_POLL_MILLIS;

  /** The planned run: the CI run request and its jobs by name, in plan order. */
  record Planned(CiRun run, List<JobSpec> jobs) {}

  @Override
  public Integer call() {
    CiPolicyCli cli = Objects.requireNonNull(parent).cli();
    Planned planned;
    Set<String> names;
    try {
      if (budgetSeconds < 0 || budgetSeconds > 86_400 || pollMillis < 10 || pollMillis > 60_000) {
        throw new Inputs.InputException("--store-budget-seconds must be 0 to 86400 and --poll-millis 10 to 60000");
      }
      LoadedPolicy loaded = Inputs.loadPolicy(cli, policy);
      planned = plan(cli, loaded);
      names = followedNames(planned.jobs(), loaded);
      if (waitForJobs) {
        checkSummaryFile(cli);
      }
    } catch (CiPolicyException e) {
      Annotations.report(cli, e);
      return FleetReport.EXIT_BAD_INPUT;
    }
    StoreBudget budget = StoreBudget.of(Duration.ofSeconds(budgetSeconds));
    try {
      QueueStore queue = budget.call(() -> store.open(cli.environment()));
      checkFits(planned.jobs(), budget.call(queue::collectors));
      SubmitResult result = budget.call(() -> queue.submit(dev.cipolicy.queue.model.NewRequest.ciRun(planned.run(),
          planned.jobs())));
      Request request = result.request();
      cli.console().line(submittedLine(planned, result));
      for (Request old : result.superseded()) {
        cli.console().line(Console.plain("cancelled the older run " + old.ciRun().map(CiRun::label)
            .orElse("request " + old.id().value()) + ": " + planned.run().supersedingReason()));
      }
      if (!waitForJobs) {
        return FleetReport.EXIT_SUCCEEDED;
      }
      return follow(cli, queue, request, planned, names, budget);
    } catch (QueueStoreUnavailableException e) {
      cli.console().error("the fleet store did not answer for " + budgetSeconds + " s: " + e.getMessage());
      return FleetReport.EXIT_STORE_UNREACHABLE;
    } catch (CiPolicyException e) {
      Annotations.report(cli, e);
      return FleetReport.EXIT_BAD_INPUT;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return FleetReport.EXIT_JOB_FAILED;
    }
  }

  /** How long the cancelling hook waits for a poll in progress before it writes the summary without it. */
  private static final long SIGNAL_SUMMARY_WAIT_MILLIS = 2000;

  private int follow(CiPolicyCli cli, QueueStore queue, Request request, Planned planned, Set<String> names,
      StoreBudget budget) throws InterruptedException {
    Map<String, String> env = cli.environment();
    Optional<String> urlTemplate = Inputs.flagOrEnv(logUrl, env, "CI_POLICY_FLEET_LOG_URL").filter(s -> !s.isBlank());
    FleetFollower follower = new FleetFollower(queue, request.id(), names, budget, Thread::sleep, pollMillis,
        cli.console()::line, id -> urlTemplate.map(t -> t.replace("{job}", Long.toString(id.value()))).orElse(null));
    AtomicBoolean finished = new AtomicBoolean();
    String summaryPath = Inputs.flagOrEnv(stepSummary, env, "GITHUB_STEP_SUMMARY").orElse("");
    String title = "Fleet jobs of " + planned.run().label() + (suites.isEmpty() ? "" : " (" + String.join(", ",
        suites) + ")");
    Thread hook = new Thread(() -> {
      if (cancelOnSignal(cli, queue, request, finished) && !summaryPath.isEmpty()) {
        // the step's summary still says what ran, where, and what the cancellation stopped
        follower.snapshot(SIGNAL_SUMMARY_WAIT_MILLIS).ifPresent(jobs -> GateCommand.appendSummary(cli,
            cli.resolvePath(summaryPath), FleetReport.summary(title + " — cancelled", jobs), "the fleet jobs' table"));
      }
    }, "fleet-submit-cancel");
    Runtime.getRuntime().addShutdownHook(hook);
    List<FleetReport.Job> jobs;
    boolean ownsSummary;
    try {
      jobs = follower.follow();
      // false when a signal came first: the hook cancelled the run and writes the summary
      ownsSummary = finished.compareAndSet(false, true);
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it cancels the run
      }
    }
    List<FleetReport.Job> shown = new ArrayList<>();
    List<JobId> ids = follower.jobIds();
    for (int i = 0; i < jobs.size(); i++) {
      FleetReport.Job j = jobs.get(i);
      boolean failed = j.outcome() == FleetReport.Outcome.FAILED || j.outcome() == FleetReport.Outcome.CANCELLED;
      shown.add(failed ? follower.withLogTail(j, ids.get(i)) : j);
    }
    for (FleetReport.Job j : shown) {
      if (j.outcome() == FleetReport.Outcome.FAILED) {
        List<String> group = FleetReport.failureGroup(j);
        cli.console().outCommand("group", FleetReport.groupTitle(j));
        group.subList(1, group.size() - 1).forEach(cli.console()::line);
        cli.console().outCommand("endgroup", "");
      }
    }
    if (ownsSummary && !summaryPath.isEmpty()) {
      try {
        GateCommand.appendSummary(cli, cli.resolvePath(summaryPath), FleetReport.summary(title, shown),
            "the fleet jobs' table");
      } catch (CiPolicyException e) {
        // the jobs ran: their outcome, not the summary, is the step's exit code
        cli.console().warning("the jobs' table was not appended to the step summary: " + e.getMessage());
      }
    }
    long ok = shown.stream().filter(j -> j.outcome() == FleetReport.Outcome.SUCCEEDED).count();
    cli.console().line(ok + " of " + shown.size() + " jobs succeeded");
    return FleetReport.exitCode(shown);
  }

  /**
   * On SIGTERM or SIGINT while following: cancels the run (its jobs stop within one collector heartbeat).
   *
   * @return whether the signal came while following (the run was, or was tried to be, cancelled)
   */
  private static boolean cancelOnSignal(CiPolicyCli cli, QueueStore queue, Request request, AtomicBoolean finished) {
    if (!finished.compareAndSet(false, true)) {
      return false;
    }
    try {
      var result = queue.cancel(request.id(), "the submitting step was cancelled");
      cli.console().line("the step was cancelled: cancelled run request " + request.id().value() + " ("
          + result.status().name().toLowerCase(java.util.Locale.ROOT) + ")");
    } catch (CiPolicyException e) {
      cli.console().error("the step was cancelled but its run could not be cancelled: " + e.getMessage());
    }
    return true;
  }

  /**
   * Refuses, before anything is submitted, a step summary file the jobs' table could not be appended to: a
   * directory, or a path whose directory does not exist.
   */
  private void checkSummaryFile(CiPolicyCli cli) {
    Optional<String> given = Inputs.flagOrEnv(stepSummary, cli.environment(), "GITHUB_STEP_SUMMARY")
        .filter(s -> !s.isEmpty());
    if (given.isEmpty()) {
      return;
    }
    Path file = cli.resolvePath(given.get());
    String where = "step summary file " + Console.plain(given.get()) + " ("
        + (stepSummary != null ? "--step-summary" : "GITHUB_STEP_SUMMARY") + ")";
    Path dir = file.toAbsolutePath().getParent();
    if (Files.isDirectory(file)) {
      throw new Inputs.InputException(where + " is a directory; expected a file the jobs' table is appended to");
    }
    if (dir == null || !Files.isDirectory(dir)) {
      throw new Inputs.InputException(where + " is in no existing directory; expected a file the jobs' table is"
          + " appended to");
    }
  }

  private Set<String> followedNames(List<JobSpec> jobs, LoadedPolicy loaded) {
    if (suites.isEmpty()) {
      return Set.of();
    }
    // the suites that can have fleet jobs: those on a pool
    List<String> fleetSuites = loaded.policy().backends().stream().flatMap(b -> b.suites().stream())
        .filter(x -> x.pool().isPresent()).map(Suite::name).distinct().toList();
    Set<String> names = new LinkedHashSet<>();
    for (String s : suites) {
      List<String> of = jobs.stream().map(JobSpec::benchmarkGroup).filter(n -> suiteOf(n).equals(s)).toList();
      if (of.isEmpty() && !fleetSuites.contains(s)) {
        throw new Inputs.InputException("--suite " + Console.plain(s) + " is not a suite of the policy on a fleet pool;"
            + " expected one of " + fleetSuites);
      }
      if (of.isEmpty()) {
        throw new Inputs.InputException("--suite " + Console.plain(s) + " has no job in this run; its jobs are of "
            + jobs.stream().map(j -> suiteOf(j.benchmarkGroup())).distinct().toList());
      }
      names.addAll(of);
    }
    return names;
  }

  /** The suite of a job name {@code <suite>-<shard>of<shards>}. */
  static String suiteOf(String jobName) {
    Matcher m = JOB_NAME.matcher(jobName);
    return m.matches() ? m.group(1) : jobName;
  }

  private static String submittedLine(Planned planned, SubmitResult result) {
    String run = planned.run().label();
    long id = result.request().id().value();
    return Console.plain(switch (result.status()) {
      case CREATED -> result.request().state() == RequestState.CANCELLED
          ? "run " + run + " is superseded by a newer run of its group; request " + id + " was created cancelled"
          : "submitted run " + run + " as request " + id + ": " + planned.jobs().size() + " jobs";
      case ATTACHED -> "run " + run + " was already submitted as request " + id + "; following it";
      default -> "run " + run + ": " + result.status().name().toLowerCase(java.util.Locale.ROOT) + " (request " + id
          + ")";
    });
  }

  /**
   * Refuses a job that no registered host of its pool could ever run: a pool without hosts, or more GPUs than the
   * pool's largest host has.
   */
  static void checkFits(List<JobSpec> jobs, List<Collector> collectors) {
    for (JobSpec job : jobs) {
      // a retiring host runs nothing more; a host with a pending inventory will have that one
      List<Collector> hosts = collectors.stream().filter(c -> c.tag().equals(job.pool()) && !c.retiring()).toList();
      if (hosts.isEmpty()) {
        throw new Inputs.InputException("job " + job.benchmarkGroup() + " is for pool " + job.pool() + ", which has"
            + " no registered host; start `ci-policy fleet collector --pool " + job.pool() + "` on its hosts first");
      }
      Collector largest = hosts.stream().max(Comparator.comparingInt(FleetSubmitCommand::inventorySize)
          .thenComparing(Collector::name, Comparator.reverseOrder())).orElseThrow();
      if (job.gpus() > inventorySize(largest)) {
        throw new Inputs.InputException("job " + job.benchmarkGroup() + " needs " + job.gpus() + " GPUs, but the"
            + " largest host of pool " + job.pool() + " (" + largest.name() + ") has " + inventorySize(largest)
            + "; no host could ever run it");
      }
    }
  }

  /** The GPUs a host will have: its pending inventory's when one is pending, else its own. */
  private static int inventorySize(Collector host) {
    return host.pendingDevices().orElse(host.devices()).size();
  }

  /** Resolves the run and plans its jobs; nothing touches the store. */
  Planned plan(CiPolicyCli cli, LoadedPolicy loaded) {
    Map<String, String> env = cli.environment();
    TriggerOptions.Trigger t = trigger.resolve(cli, loaded);
    RunPolicy run = t.resolution().runPolicy();
    String repo = required(repository, env, "GITHUB_REPOSITORY", "--repository", "repository (owner/name)");
    long id = number(required(runId, env, "GITHUB_RUN_ID", "--run-id", "workflow run id"),
        source(runId, "--run-id", "GITHUB_RUN_ID"), 1);
    int att = (int) number(Inputs.flagOrEnv(attempt, env, "GITHUB_RUN_ATTEMPT").filter(s -> !s.isEmpty())
        .orElse("1"), source(attempt, "--attempt", "GITHUB_RUN_ATTEMPT"), 1);
    String sha = required(commit, env, "GITHUB_SHA", "--commit", "commit to test").strip();
    if (!COMMIT.matcher(sha).matches()) {
      throw new Inputs.InputException(source(commit, "--commit", "GITHUB_SHA") + " '" + Console.plain(sha)
          + "' is not a commit id; expected 7 to 64 lowercase hex digits, such as GitHub's GITHUB_SHA");
    }
    Optional<Long> pr = pr(env);
    Optional<String> tag = Inputs.flagOrEnv(imageTag, env, "IMAGE_TAG").filter(s -> !s.isEmpty());
    Optional<String> wf = Inputs.flagOrEnv(workflow, env, "GITHUB_WORKFLOW").filter(s -> !s.isBlank());

    SuiteRegistry registry = Inputs.loadRegistry(cli, loaded, trigger.registrations().orElseThrow(() ->
        new Inputs.InputException("fleet submit needs --registrations FILE (the test registration manifest)")));
    List<PlannedJob> jobs;
    Map<String, String> extraEnv = Map.of();
    if (testFile != null) {
      jobs = List.of(fileJob(loaded, registry, testFile, tag, pr));
      extraEnv = Map.of("CI_POLICY_TEST_FILE", testFile);
    } else {
      jobs = SuitePlanner.of(registry).plan(t.resolution(), t.stages().orElseThrow())
          .stream().filter(j -> j.pool().isPresent()).toList();
    }
    RunFacts.Builder facts = RunFacts.builder().commit(sha).runId(Long.toString(id)).attempt(att)
        .cadence(run.cadence()).labels(run.rawLabels());
    pr.ifPresent(n -> facts.pr(Math.toIntExact(n)));
    tag.ifPresent(facts::imageTag);
    List<JobPlan> plans = CommandPlanner.of(loaded.policy()).plan(jobs, facts.build());
    List<JobSpec> specs = new ArrayList<>();
    for (JobPlan p : plans) {
      Map<String, String> jobEnv = new LinkedHashMap<>(p.env());
      jobEnv.putAll(extraEnv);
      CiJob.Builder ci = CiJob.builder().repository(repo).commit(sha).command(p.argv()).env(jobEnv)
          .deviceEnv(p.deviceEnv());
      p.image().ifPresent(ci::image);
      specs.add(JobSpec.required(p.name(), p.pool().orElseThrow())
          .withGpus(p.gpus(), Duration.ofMillis(Math.round(p.estimatedSeconds() * 1000)))
          .withCadence(p.cadence())
          .withTimeout(Duration.ofSeconds(p.timeoutSeconds()))
          .withArgs(CiJobArgs.write(ci.build())));
    }
    if (specs.isEmpty()) {
      throw new Inputs.InputException("the run (cadence " + run.cadence() + ") has no job for the fleet: no planned"
          + " suite shard is on a pool" + (t.stages().map(s -> s.skippedStages().isEmpty()).orElse(true) ? ""
          : "; skipped stages: " + t.stages().orElseThrow().skippedStages()));
    }
    CiRun.Builder ciRun = CiRun.builder().from(CiRun.of(repo, id, att, sha, t.event().isEmpty() ? "manual"
        : t.event())).cadence(run.cadence()).labels(run.rawLabels());
    pr.ifPresent(ciRun::pr);
    wf.ifPresent(ciRun::workflow);
    group(env, wf, pr).ifPresent(ciRun::concurrencyGroup);
    return new Planned(ciRun.build(), List.copyOf(specs));
  }

  private Optional<String> group(Map<String, String> env, Optional<String> wf, Optional<Long> pr) {
    Optional<String> given = Inputs.flagOrEnv(concurrencyGroup, env, "CI_POLICY_CONCURRENCY_GROUP")
        .filter(s -> !s.isEmpty());
    if (given.isPresent()) {
      return given.filter(g -> !g.equals("none"));
    }
    if (testFile != null || pr.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(wf.orElse("ci").replaceAll("[^A-Za-z0-9._-]", "_") + "/pr-" + pr.get());
  }

  private Optional<Long> pr(Map<String, String> env) {
    Optional<String> given = Inputs.flagOrEnv(prNumber, env, "PR_NUMBER").filter(s -> !s.isEmpty());
    if (given.isPresent()) {
      return Optional.of(number(given.get(), source(prNumber, "--pr-number", "PR_NUMBER"), 1));
    }
    Matcher m = PULL_REF.matcher(env.getOrDefault("GITHUB_REF", ""));
    return m.matches() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
  }

  private static PlannedJob fileJob(LoadedPolicy loaded, SuiteRegistry registry, String file, Optional<String> tag,
      Optional<Long> pr) {
    FileRunDecision decision = FileRunPlanner.of(registry).planFile(file, tag, pr);
    FileRunPlan plan = decision.plan().orElseThrow(() -> new Inputs.InputException(decision.message()));
    Backend backend = loaded.policy().backends().stream().filter(b -> b.name().equals(plan.hw())).findFirst()
        .orElseThrow(() -> new Inputs.InputException("the file's backend " + plan.hw() + " is not in the policy"));
    Suite suite = backend.suites().stream().filter(s -> s.name().equals(plan.suite())).findFirst()
        .orElseThrow(() -> new Inputs.InputException("the file's suite " + plan.suite() + " is not in the policy"));
    double estimate = registry.registrationsOf(file).stream().filter(r -> r.suite().equals(plan.suite()))
        .mapToDouble(r -> r.estTimeSeconds()).findFirst().orElse(0);
    Optional<String> pool = suite.pool();
    if (pool.isEmpty()) {
      throw new Inputs.InputException("suite " + suite.name() + " of " + file + " has no pool: it does not run on the"
          + " fleet");
    }
    return new PlannedJob(backend.name(), suite.name(), 0, 1, List.of(file), suite.gpuBudget(), pool, estimate,
        plan.timeoutSeconds());
  }

  private static String required(@Nullable String flag, Map<String, String> env, String variable, String option,
      String what) {
    return Inputs.flagOrEnv(flag, env, variable).filter(s -> !s.isBlank()).orElseThrow(() ->
        new Inputs.InputException("no " + what + ": pass " + option + " or set " + variable));
  }

  /** Where a value came from, for an error: the option when it was given, else the variable it was read from. */
  private static String source(@Nullable String flag, String option, String variable) {
    return flag != null ? option : variable + " (" + option + ")";
  }

  private static long number(String text, String option, long min) {
    try {
      long n = Long.parseLong(text.strip());
      if (n >= min) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new Inputs.InputException(option + " '" + Console.plain(text) + "' is not a whole number of at least "
        + min);
  }
}
