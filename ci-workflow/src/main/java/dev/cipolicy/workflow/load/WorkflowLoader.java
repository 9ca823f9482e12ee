package dev.cipolicy.workflow.load;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.core.load.DocumentFormat;
import dev.cipolicy.core.load.DocumentLimits;
import dev.cipolicy.core.load.Node;
import dev.cipolicy.core.load.TreeParser;
import dev.cipolicy.workflow.Concurrency;
import dev.cipolicy.workflow.InvalidWorkflowException;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.Trigger;
import dev.cipolicy.workflow.Workflow;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads a GitHub Actions workflow file into the job model of {@code dev.cipolicy.workflow}, with the
 * file, line and column of every construct; one class reads each section ({@code on}, {@code jobs},
 * {@code strategy}, {@code concurrency}, {@code uses}). The text goes through core's reader of policy documents
 * ({@link TreeParser}), so
 * the same {@link DocumentLimits} apply and YAML aliases and merge keys are rejected; {@code max-parallel}
 * must be a plain decimal integer or an expression.
 *
 * <p>Read: {@code name}, {@code on} (a string, a list or a mapping of events, with {@code types}, the
 * {@code schedule} crons and the {@code workflow_dispatch}/{@code workflow_call} inputs),
 * {@code concurrency}, and for each job in file order {@code needs}, {@code if}, {@code strategy}
 * ({@code matrix} — legs counted from a literal matrix with {@code include}/{@code exclude}, or dynamic
 * for a {@code ${{ }}} matrix — {@code fail-fast}, {@code max-parallel}), {@code continue-on-error},
 * {@code runs-on}, {@code outputs}, {@code concurrency}, {@code env}, {@code steps} ({@code id}, {@code run},
 * {@code uses}, {@code with}, {@code env}) and {@code uses}/{@code with}. Everything else (permissions,
 * services...) is accepted and ignored. {@code max-parallel} may be a {@code ${{ }}} expression, decided per run.
 *
 * <p>A job that calls a local reusable workflow ({@code uses: ./.github/workflows/x.yml}) has the called
 * workflow read too when the host supplies its text ({@link #load(String, String, Function)}): it must load,
 * declare {@code on.workflow_call}, and take the {@code with:} inputs the caller gives (no unknown input, every
 * required input without a default given). A local workflow the host cannot supply, or a remote one, is
 * simulated as one opaque job with a warning. Calls nest at most {@link #MAX_CALL_DEPTH} levels. A local
 * reference must be what GitHub accepts, {@code ./.github/workflows/<file>.yml} or {@code .yaml} (no other
 * directory, no {@code ..}). Each called file is asked of the host, parsed and checked once per load, however
 * many jobs call it; the jobs of the workflow and of every workflow it calls, counted once per call, are at
 * most {@link #MAX_EXPANDED_JOBS}. A called file that does not load is reported at the call by its first
 * problem's position, never by quoting its text (the host may have been handed a file that is no workflow).
 *
 * <pre>{@code
 * Workflow w = WorkflowLoader.load("pr-test.yml", text);
 * Simulation s = WorkflowSimulator.of(w).simulate(Scenario.of(Event.named("pull_request")));
 * }</pre>
 */
public final class WorkflowLoader {
  /** The most legs a literal matrix may have: GitHub's limit on the jobs of one matrix. */
  public static final int MAX_MATRIX_LEGS = 256;

  /** The longest job id read: 100 characters. */
  public static final int MAX_JOB_ID = 100;

  /** How deep reusable workflow calls are followed: GitHub's limit of four levels. */
  public static final int MAX_CALL_DEPTH = 4;

  /**
   * The most jobs one load models: the workflow's own plus, for every call of a local reusable workflow, the
   * called workflow's (counted again for each call, as a run would run them): 25,000.
   */
  public static final int MAX_EXPANDED_JOBS = 25_000;

  private final String source;
  private final WorkflowReader r = new WorkflowReader();
  private final CallSection calls;

  private WorkflowLoader(String source, LoadRun run, int depth) {
    this.source = source;
    this.calls = new CallSection(r, run, depth);
  }

  /**
   * Parses a workflow file and the local reusable workflows its jobs call.
   *
   * @param sourceName the file name, used in messages and as {@link Workflow#file()}
   * @param text the file's text
   * @param locals the text of a local reusable workflow by its {@code uses:} reference as written (e.g.
   *     {@code ./.github/workflows/build.yml}), empty when the host does not have it
   * @return the workflow, each local call with its called workflow when supplied
   * @throws InvalidWorkflowException as {@link #load(String, String)} does, and for a called workflow that does
   *     not load, declares no {@code workflow_call}, or does not take the inputs given
   */
  public static Workflow load(String sourceName, String text, Function<String, Optional<String>> locals) {
    LoadRun run = new LoadRun(locals);
    Workflow w = load(sourceName, text, run, 0);
    long jobs = run.expanded(w);
    if (jobs > MAX_EXPANDED_JOBS) {
      throw new InvalidWorkflowException(List.of(new PolicyProblem(Optional.of(new SourceLocation(sourceName, 1, 1)),
          "jobs", "the workflow and the reusable workflows it calls make more than " + MAX_EXPANDED_JOBS
              + " jobs (each call counts the called workflow's jobs again); expected at most " + MAX_EXPANDED_JOBS)));
    }
    return w;
  }

  /** Loads one file of a load, at a depth of calls; {@link CallSection} loads the called files through it. */
  static Workflow load(String sourceName, String text, LoadRun run, int depth) {
    Node root;
    try {
      root = TreeParser.parse(sourceName, text, DocumentFormat.YAML);
    } catch (InvalidPolicyException e) {
      throw new InvalidWorkflowException(e.problems());
    }
    return new WorkflowLoader(sourceName, run, depth).read(root);
  }

  /**
   * Parses a workflow file.
   *
   * @param sourceName the file name, used in messages and as {@link Workflow#file()}
   * @param text the file's text
   * @return the workflow
   * @throws InvalidWorkflowException listing every problem with its location, for malformed YAML, a
   *     construct of the wrong shape, a bad expression, a need naming no job or a cycle
   */
  public static Workflow load(String sourceName, String text) {
    return load(sourceName, text, uses -> Optional.empty());
  }

  private Workflow read(Node root) {
    if (!(root instanceof Node.MapNode map)) {
      throw new InvalidWorkflowException(List.of(new PolicyProblem(Optional.of(root.location()), "",
          "expected a workflow mapping (name, on, jobs), found " + root.describe())));
    }
    Optional<String> name = r.scalar(map, "name", "name");
    List<Trigger> triggers = new OnSection(r).read(map);
    Optional<Concurrency> concurrency = new ConcurrencySection(r).read(map, "concurrency");
    List<Job> jobs = new JobSection(r, calls).read(map);
    r.failOnProblems();
    try {
      return new Workflow(source, name, triggers, jobs, concurrency, r.warnings());
    } catch (InvalidValueException e) {
      Node.Entry jobsEntry = map.entries().get("jobs");
      for (InvalidValueException.Problem p : e.problems()) {
        r.problem(jobsEntry == null ? root.location() : jobsEntry.keyLocation(), "jobs", p.message());
      }
      r.failOnProblems();
      throw e;
    }
  }
}
