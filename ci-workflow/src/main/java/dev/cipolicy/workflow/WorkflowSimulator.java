package dev.cipolicy.workflow;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.workflow.ExprValue.Arr;
import dev.cipolicy.workflow.ExprValue.Obj;
import dev.cipolicy.workflow.ExprValue.Str;
import dev.cipolicy.workflow.ExprValue.Unknown;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Says which jobs of a workflow run in a scenario and why, by GitHub's job rules:
 *
 * <ul>
 *   <li>a job whose {@code if} calls no status function (or that has no {@code if}) runs only when
 *       {@code success()} is also true — even {@code !success()} counts as calling one;
 *   <li>{@code success()} is true when every job in the transitive {@code needs} closure succeeded and the
 *       run is not cancelled (a skipped, failed or cancelled grandparent makes it false);
 *       {@code failure()} when some job of the closure failed; {@code cancelled()} when the run is cancelled;
 *       {@code always()} always;
 *   <li>{@code needs.X.result} and {@code needs.X.outputs} exist for direct dependencies only;
 *   <li>a job that fails with {@code continue-on-error} reports success; a matrix job fails when a leg
 *       fails, else is cancelled when a leg is, else succeeds;
 *   <li>a job whose {@code if} cannot be decided is {@link JobResult#UNKNOWN}, never an exception.
 * </ul>
 *
 * <p>Cost: one simulation takes time linear in the jobs plus their {@code needs} edges (each job's status
 * functions are decided from a summary of its direct needs' closures, and the path "via" which an ancestor
 * stops a job is kept as a shared list, printed shortened past ten hops); no graph walk recurses.
 * {@link #exhaustive} stops past {@value #MAX_EXHAUSTIVE_OUTCOMES} job outcomes.
 *
 * <p>Thread-safe and immutable once created.
 */
public final class WorkflowSimulator {
  /**
   * The most job outcomes (simulations times jobs) one {@link #exhaustive} call returns: 250,000, which holds
   * every failure subset of 14 jobs (16,384 simulations); past it the call fails rather than run for minutes.
   */
  public static final int MAX_EXHAUSTIVE_OUTCOMES = 250_000;

  /** The most jobs of a "via" path a reason lists before it says how many it leaves out. */
  static final int SHOWN_HOPS = 10;

  private static final List<JobResult> BAD = List.of(JobResult.FAILURE, JobResult.CANCELLED, JobResult.SKIPPED,
      JobResult.UNKNOWN);

  private final Workflow workflow;
  private final List<Job> order;
  private final Map<String, Job> byId = new HashMap<>();
  private final Map<String, Integer> rank = new HashMap<>();

  private WorkflowSimulator(Workflow workflow) {
    this.workflow = workflow;
    workflow.jobs().forEach(j -> byId.put(j.id(), j));
    this.order = topological(workflow);
    for (int i = 0; i < order.size(); i++) {
      rank.put(order.get(i).id(), i);
    }
  }

  /**
   * A simulator of one workflow.
   *
   * @param workflow the workflow
   * @return the simulator
   */
  public static WorkflowSimulator of(Workflow workflow) {
    return new WorkflowSimulator(workflow);
  }

  private Job job(String id) {
    return get(byId, id);
  }

  /**
   * A job of the workflow by id, in constant time.
   *
   * @param id the job id
   * @return the job, empty when the workflow has none of that id
   */
  public java.util.Optional<Job> jobOf(String id) {
    return java.util.Optional.ofNullable(byId.get(id));
  }

  /**
   * The run order: passes over the jobs in file order, each pass taking every job whose needs are placed
   * (a job placed earlier in the same pass counts). Computed without repeating the passes: a job's pass is
   * the latest pass of its needs, plus one for a need that comes after it in the file; the order is by pass,
   * then file position. Linear in jobs plus edges (and a sort).
   */
  private static List<Job> topological(Workflow w) {
    List<Job> jobs = w.jobs();
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < jobs.size(); i++) {
      index.put(jobs.get(i).id(), i);
    }
    int n = jobs.size();
    int[] waiting = new int[n];
    List<List<Integer>> dependents = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      dependents.add(new ArrayList<>());
    }
    Deque<Integer> ready = new ArrayDeque<>();
    for (int i = 0; i < n; i++) {
      waiting[i] = jobs.get(i).needs().size();
      for (String need : jobs.get(i).needs()) {
        dependents.get(get(index, need)).add(i);
      }
      if (waiting[i] == 0) {
        ready.add(i);
      }
    }
    int[] pass = new int[n];
    List<Integer> sorted = new ArrayList<>();
    while (!ready.isEmpty()) {
      int i = ready.poll();
      sorted.add(i);
      for (int d : dependents.get(i)) {
        pass[d] = Math.max(pass[d], pass[i] + (i > d ? 1 : 0));
        if (--waiting[d] == 0) {
          ready.add(d);
        }
      }
    }
    sorted.sort((a, b) -> pass[a] != pass[b] ? Integer.compare(pass[a], pass[b]) : Integer.compare(a, b));
    List<Job> out = new ArrayList<>();
    sorted.forEach(i -> out.add(jobs.get(i)));
    return List.copyOf(out);
  }

  /**
   * Simulates one scenario.
   *
   * @param scenario the scenario
   * @return every job in file order with its result and reason
   * @throws InvalidInputException when the scenario names a job the workflow does not have, or gives a
   *     matrix job a number of leg results other than its number of legs, or when a job's {@code if} computes a
   *     string longer than {@link Expression#MAX_STRING_LENGTH}
   */
  public Simulation simulate(Scenario scenario) {
    validate(scenario);
    Map<String, Decided> done = new HashMap<>();
    for (Job j : order) {
      done.put(j.id(), decide(j, scenario, done));
    }
    return new Simulation(scenario, fileOrder(done));
  }

  /**
   * Simulates every failure subset of the jobs that can fail: in each scenario, every job that runs (and has
   * no result in {@code base}) either succeeds or fails, and each distinct combination is one simulation.
   * Jobs that do not run in a combination are not varied, so no two simulations are alike.
   *
   * @param base the event, outputs and pinned results
   * @return one simulation per combination, the all-success one first; each simulation's scenario holds the
   *     injected failures
   * @throws InvalidInputException as {@link #simulate} does, and past {@link #MAX_EXHAUSTIVE_OUTCOMES} job
   *     outcomes
   */
  public List<Simulation> exhaustive(Scenario base) {
    validate(base);
    List<Simulation> out = new ArrayList<>();
    int n = order.size();
    long perSimulation = Math.max(1, n);
    Map<String, Decided> done = new HashMap<>();
    Scenario[] scenario = new Scenario[n + 1];
    int[] stage = new int[n + 1];
    boolean[] canFail = new boolean[n + 1];
    scenario[0] = base;
    int i = 0;
    // a depth-first walk with an explicit stack: frame i decides order.get(i), first as the scenario has it,
    // then (when it ran and is not pinned) failed
    while (i >= 0) {
      if (i == n) {
        if ((out.size() + 1) * perSimulation > MAX_EXHAUSTIVE_OUTCOMES) {
          throw new InvalidInputException("exhaustive simulation of " + workflow.file() + " stops at "
              + MAX_EXHAUSTIVE_OUTCOMES + " job outcomes (simulations times its " + n + " jobs): it has more than "
              + out.size() + " failure subsets; expected fewer jobs that can fail: pin the results of the jobs that"
              + " need not vary (a job with a result in the scenario is not varied) or simulate an event under"
              + " which fewer jobs run");
        }
        out.add(new Simulation(scenario[n], fileOrder(done)));
        i--;
        continue;
      }
      Job j = order.get(i);
      if (stage[i] == 0) {
        Scenario s = scenario[i];
        boolean pinned = s.results().containsKey(j.id()) || s.legResults().containsKey(j.id());
        Decided d = decide(j, s, done);
        done.put(j.id(), d);
        canFail[i] = !pinned && d.ran();
        stage[i] = 1;
        scenario[i + 1] = s;
        stage[i + 1] = 0;
        i++;
      } else if (stage[i] == 1 && canFail[i]) {
        Scenario failed = scenario[i].withResult(j.id(), InjectedResult.FAILURE);
        done.put(j.id(), decide(j, failed, done));
        stage[i] = 2;
        scenario[i + 1] = failed;
        stage[i + 1] = 0;
        i++;
      } else {
        done.remove(j.id());
        i--;
      }
    }
    return out;
  }

  /**
   * Evaluates an expression in the context a job of a simulated run sees ({@code needs} of its direct
   * dependencies with their results and outputs, {@code github}, {@code inputs}), e.g. a
   * {@code max-parallel: ${{ ... }}} or a {@code ${{ }}} template of a step.
   *
   * @param simulation a simulation of this simulator's workflow
   * @param job the job id
   * @param expression the expression (or template)
   * @return its value; {@link ExprValue.Unknown} when it depends on something the scenario does not give
   * @throws InvalidInputException when the workflow has no such job or the simulation is of another workflow
   * @throws InvalidExpressionException for an error only evaluation finds
   * @throws ExpressionLimitException when it computes a string longer than {@link Expression#MAX_STRING_LENGTH}
   */
  public ExprValue evaluate(Simulation simulation, String job, Expression expression) {
    Job j = workflow.job(job).orElseThrow(() -> new InvalidInputException("workflow " + workflow.file()
        + " has no job '" + job + "'"));
    Map<String, Decided> done = new HashMap<>();
    for (JobOutcome o : simulation.jobs()) {
      JobResult r = o.result();
      done.put(o.job(), new Decided(o, r == JobResult.SUCCESS || r == JobResult.FAILURE || r == JobResult.CANCELLED,
          Closure.NONE));
    }
    if (!done.keySet().equals(byId.keySet())) {
      throw new InvalidInputException("the simulation is not one of workflow " + workflow.file());
    }
    for (Job o : order) {
      Decided d = get(done, o.id());
      done.put(o.id(), new Decided(d.outcome(), d.ran(), closure(o, done)));
    }
    return expression.evaluate(environment(j, simulation.scenario(), done, get(done, job).closure()));
  }

  /**
   * The jobs a job depends on, directly or through others (its {@code needs} closure), in run order.
   *
   * @param job the job id
   * @return the ancestors; empty for an unknown job
   */
  public List<String> ancestors(String job) {
    Job start = byId.get(job);
    if (start == null) {
      return List.of();
    }
    Set<String> seen = new LinkedHashSet<>();
    Deque<String> queue = new ArrayDeque<>(start.needs());
    seen.addAll(start.needs());
    while (!queue.isEmpty()) {
      for (String n : job(queue.poll()).needs()) {
        if (seen.add(n)) {
          queue.add(n);
        }
      }
    }
    List<String> list = new ArrayList<>(seen);
    list.sort((a, b) -> Integer.compare(get(rank, a), get(rank, b)));
    return List.copyOf(list);
  }

  private List<JobOutcome> fileOrder(Map<String, Decided> done) {
    List<JobOutcome> list = new ArrayList<>();
    for (Job j : workflow.jobs()) {
      list.add(get(done, j.id()).outcome());
    }
    return list;
  }

  private void validate(Scenario s) {
    Set<String> ids = new LinkedHashSet<>();
    workflow.jobs().forEach(j -> ids.add(j.id()));
    Set<String> named = new LinkedHashSet<>(s.results().keySet());
    named.addAll(s.outputs().keySet());
    named.addAll(s.legResults().keySet());
    for (String id : named) {
      if (!ids.contains(id)) {
        throw new InvalidInputException("the scenario names job '" + id + "', which workflow " + workflow.file()
            + " does not have; expected one of " + ids);
      }
    }
    s.legResults().forEach((id, legs) -> {
      int want = job(id).matrix().map(m -> m.legs().size()).orElse(1);
      if (legs.size() != want) {
        throw new InvalidInputException("the scenario gives " + legs.size() + " leg results for job '" + id
            + "' of " + workflow.file() + "; expected " + want + ", one per matrix leg");
      }
    });
  }

  /** A job's outcome, whether it ran (and so could have failed), and what its needs closure holds. */
  private record Decided(JobOutcome outcome, boolean ran, Closure closure) {}

  /**
   * The hops between a job and an ancestor, the job's direct need first (the ancestor excluded): a list
   * shared between the jobs that reach the same ancestor, so building one is constant time.
   */
  private record Via(String head, @Nullable Via rest, int length, String last) {
    static Via of(String head, @Nullable Via rest) {
      return new Via(head, rest, rest == null ? 1 : rest.length + 1, rest == null ? head : rest.last);
    }

    /** {@code " (via a, b, ...)"}: past {@link #SHOWN_HOPS} hops, the first ones, how many more, the last. */
    static String shown(@Nullable Via via) {
      if (via == null) {
        return "";
      }
      List<String> names = new ArrayList<>();
      int take = via.length <= SHOWN_HOPS ? via.length : SHOWN_HOPS - 1;
      Via v = via;
      for (int k = 0; k < take && v != null; k++) {
        names.add(v.head);
        v = v.rest;
      }
      if (via.length > SHOWN_HOPS) {
        names.add("... " + (via.length - SHOWN_HOPS) + " more");
        names.add(via.last);
      }
      return " (via " + String.join(", ", names) + ")";
    }
  }

  /**
   * What a job's needs closure holds, per bad result (failure, cancelled, skipped, unknown, in that order of
   * {@link #BAD}): the earliest ancestor in run order with that result, the fewest hops to it and the path.
   */
  private static final class Closure {
    static final Closure NONE = new Closure(new String[BAD.size()], new int[BAD.size()], new int[BAD.size()],
        new Via[BAD.size()]);

    private final @Nullable String[] who;
    private final int[] rank;
    private final int[] hops;
    private final @Nullable Via[] via;

    Closure(@Nullable String[] who, int[] rank, int[] hops, @Nullable Via[] via) {
      this.who = who;
      this.rank = rank;
      this.hops = hops;
      this.via = via;
    }

    @Nullable String[] who() {
      return who;
    }

    int[] rank() {
      return rank;
    }

    int[] hops() {
      return hops;
    }

    @Nullable Via[] via() {
      return via;
    }
  }

  /** The closure of a job from its direct needs' outcomes and closures: linear in its needs. */
  private Closure closure(Job j, Map<String, Decided> done) {
    int k = BAD.size();
    @Nullable String[] who = new String[k];
    int[] ranks = new int[k];
    int[] hops = new int[k];
    @Nullable Via[] via = new Via[k];
    for (String n : j.needs()) {
      Decided d = get(done, n);
      int nr = get(rank, n);
      for (int c = 0; c < k; c++) {
        if (d.outcome().result() == BAD.get(c) && better(who[c], ranks[c], hops[c], nr, 0)) {
          who[c] = n;
          ranks[c] = nr;
          hops[c] = 0;
          via[c] = null;
        }
        String a = d.closure().who()[c];
        if (a != null && better(who[c], ranks[c], hops[c], d.closure().rank()[c], d.closure().hops()[c] + 1)) {
          who[c] = a;
          ranks[c] = d.closure().rank()[c];
          hops[c] = d.closure().hops()[c] + 1;
          via[c] = Via.of(n, d.closure().via()[c]);
        }
      }
    }
    return new Closure(who, ranks, hops, via);
  }

  private static boolean better(@Nullable String who, int rank, int hops, int newRank, int newHops) {
    return who == null || newRank < rank || (newRank == rank && newHops < hops);
  }

  private Decided decide(Job j, Scenario s, Map<String, Decided> done) {
    Closure closure = closure(j, done);
    ExpressionEnvironment env = environment(j, s, done, closure);
    if (j.condition().isEmpty()) {
      StatusCheck ok = env.status(StatusFunction.SUCCESS);
      return switch (ok.value()) {
        case FALSE -> outcome(j, JobResult.SKIPPED, "implicit success() is false: " + ok.reason(), false, closure);
        case UNKNOWN -> outcome(j, JobResult.UNKNOWN, "implicit success() is unknown: " + ok.reason(), false, closure);
        default -> run(j, s, "implicit success() is true: " + ok.reason(), closure);
      };
    }
    Expression e = j.condition().get().expression();
    String shown = "if `" + e.text().strip() + "`";
    Expression.Verdict v;
    StatusCheck implicit = null;
    if (!e.callsStatusFunction()) {
      implicit = env.status(StatusFunction.SUCCESS);
      if (implicit.value() == Tri.FALSE) {
        return outcome(j, JobResult.SKIPPED, "implicit success() is false: " + implicit.reason(), false, closure);
      }
    }
    try {
      v = e.decide(env);
    } catch (ExpressionLimitException ex) {
      throw new InvalidInputException("workflow " + workflow.file() + ", the if of job " + j.id() + " at "
          + j.condition().get().location() + ": " + ex.getMessage());
    } catch (InvalidExpressionException ex) {
      return outcome(j, JobResult.FAILURE, "evaluating the if failed: " + ex.getMessage(), false, closure);
    }
    if (v.truth() == Tri.FALSE) {
      return outcome(j, JobResult.SKIPPED, shown + " is false: " + v.explanation(), false, closure);
    }
    if (implicit != null && implicit.value() == Tri.UNKNOWN) {
      return outcome(j, JobResult.UNKNOWN, "implicit success() is unknown: " + implicit.reason(), false, closure);
    }
    if (v.truth() == Tri.UNKNOWN) {
      return outcome(j, JobResult.UNKNOWN, shown + " is unknown: " + v.explanation(), false, closure);
    }
    return run(j, s, closure, (implicit != null ? "implicit success() and " + shown + " are true: " : shown + " is true: ")
        + v.explanation());
  }

  private static Decided outcome(Job j, JobResult r, String why, boolean ran, Closure closure) {
    return new Decided(new JobOutcome(j.id(), r, r.word() + ": " + why), ran, closure);
  }

  private static Decided run(Job j, Scenario s, String why, Closure closure) {
    return run(j, s, closure, why);
  }

  private static Decided run(Job j, Scenario s, Closure closure, String why) {
    List<InjectedResult> legs = s.legResults().get(j.id());
    InjectedResult one = s.results().getOrDefault(j.id(), InjectedResult.SUCCESS);
    int count = j.matrix().map(m -> m.legs().size()).orElse(1);
    if (legs == null) {
      legs = Collections.nCopies(count, one);
    }
    int failed = 0;
    int cancelled = 0;
    int firstFailed = -1;
    for (int i = 0; i < legs.size(); i++) {
      if (legs.get(i) == InjectedResult.FAILURE) {
        failed++;
        firstFailed = firstFailed < 0 ? i : firstFailed;
      } else if (legs.get(i) == InjectedResult.CANCELLED) {
        cancelled++;
      }
    }
    String ran = "ran (" + why + ")";
    String which = count == 1 ? "" : failed == count ? " (all " + count + " matrix legs)"
        : " (matrix leg " + (firstFailed + 1) + " of " + count + (failed > 1 ? " and " + (failed - 1) + " more" : "") + ")";
    if (failed > 0 && j.continueOnError()) {
      return outcome(j, JobResult.SUCCESS, ran + "; it failed" + which + ", but continue-on-error reports success", true, closure);
    } else if (failed > 0) {
      return outcome(j, JobResult.FAILURE, ran + "; it failed" + which, true, closure);
    } else if (cancelled > 0) {
      return outcome(j, JobResult.CANCELLED, ran + "; it was cancelled", true, closure);
    }
    return outcome(j, JobResult.SUCCESS, ran, true, closure);
  }

  private ExpressionEnvironment environment(Job j, Scenario s, Map<String, Decided> done, Closure closure) {
    return new ExpressionEnvironment() {
      @Override
      public ExprValue context(String name) {
        return switch (name) {
          case "github" -> github(s.event());
          case "needs" -> needs(j, s, done);
          case "inputs" -> s.event().inputs().isEmpty() ? new Unknown("inputs", Tri.UNKNOWN) : strings(s.event().inputs());
          default -> new Unknown(name, Tri.UNKNOWN);
        };
      }

      @Override
      public StatusCheck status(StatusFunction f) {
        return WorkflowSimulator.this.status(f, j, s, closure);
      }
    };
  }

  private StatusCheck status(StatusFunction f, Job j, Scenario s, Closure closure) {
    switch (f) {
      case ALWAYS -> {
        return new StatusCheck(Tri.TRUE, "always() holds whatever happened before");
      }
      case CANCELLED -> {
        return new StatusCheck(Tri.of(s.runCancelled()), s.runCancelled() ? "the run was cancelled" : "the run was not cancelled");
      }
      default -> { }
    }
    String failedAncestor = bad(closure, 0, " failed");
    String cancelledAncestor = bad(closure, 1, " was cancelled");
    String skippedAncestor = bad(closure, 2, " was skipped");
    String unknownAncestor = bad(closure, 3, "'s result is unknown");
    if (f == StatusFunction.FAILURE) {
      if (failedAncestor != null) {
        return new StatusCheck(Tri.TRUE, failedAncestor);
      }
      return unknownAncestor != null ? new StatusCheck(Tri.UNKNOWN, unknownAncestor)
          : new StatusCheck(Tri.FALSE, j.needs().isEmpty() ? "the job needs no job" : "no ancestor failed");
    }
    if (s.runCancelled()) {
      return new StatusCheck(Tri.FALSE, "the run was cancelled");
    }
    for (String bad : new String[] {failedAncestor, cancelledAncestor, skippedAncestor}) {
      if (bad != null) {
        return new StatusCheck(Tri.FALSE, bad);
      }
    }
    if (unknownAncestor != null) {
      return new StatusCheck(Tri.UNKNOWN, unknownAncestor);
    }
    return new StatusCheck(Tri.TRUE, succeeded(j));
  }

  private static @Nullable String bad(Closure closure, int kind, String what) {
    String who = closure.who()[kind];
    return who == null ? null : "ancestor " + who + what + Via.shown(closure.via()[kind]);
  }

  /** Why every ancestor succeeded: named when there is one, counted when they are the direct needs. */
  private String succeeded(Job j) {
    List<String> needs = j.needs();
    if (needs.isEmpty()) {
      return "the job needs no job";
    }
    boolean flat = needs.stream().allMatch(n -> job(n).needs().isEmpty());
    if (!flat) {
      return needs.size() == 1 ? "ancestor " + needs.get(0) + " and its ancestors succeeded"
          : "all " + needs.size() + " jobs it needs and their ancestors succeeded";
    }
    return needs.size() == 1 ? "ancestor " + needs.get(0) + " succeeded" : "all " + needs.size() + " ancestors succeeded";
  }

  private static <K, V> V get(Map<K, V> m, K key) {
    V v = m.get(key);
    if (v == null) {
      throw new IllegalStateException("no entry for " + key);
    }
    return v;
  }

  private static Obj strings(Map<String, String> m) {
    Map<String, ExprValue> e = new LinkedHashMap<>();
    m.forEach((k, v) -> e.put(k, new Str(v)));
    return Obj.closed(e);
  }

  /** Events whose payload has no {@code action} property (GitHub lists no activity types for them). */
  private static final Set<String> NO_ACTIVITY_TYPES = Set.of("push", "schedule",
      "workflow_dispatch", "workflow_call", "create", "delete", "fork", "gollum", "page_build", "public",
      "status");

  private static ExprValue github(Event event) {
    Map<String, ExprValue> g = new LinkedHashMap<>();
    g.put("event_name", new Str(event.name()));
    if (event.payload().isPresent()) {
      g.put("event", event.payload().get());
    } else {
      Map<String, ExprValue> e = new LinkedHashMap<>();
      if (event.action().isPresent()) {
        e.put("action", new Str(event.action().get()));
      } else if (NO_ACTIVITY_TYPES.contains(event.name())) {
        // these events' payloads have no action: github.event.action is null, not unknown
        e.put("action", ExprValue.NULL);
      }
      event.schedule().ifPresent(c -> e.put("schedule", new Str(c)));
      if (!event.inputs().isEmpty()) {
        e.put("inputs", strings(event.inputs()));
      }
      if (event.name().startsWith("pull_request") || !event.labels().isEmpty()) {
        List<ExprValue> labels = new ArrayList<>();
        for (String l : event.labels()) {
          labels.add(Obj.closed(Map.of("name", new Str(l))));
        }
        e.put("pull_request", new Obj(Map.of("labels", new Arr(labels, false)), true, "github.event.pull_request"));
      }
      g.put("event", new Obj(e, true, "github.event"));
    }
    return new Obj(g, true, "github");
  }

  private ExprValue needs(Job j, Scenario s, Map<String, Decided> done) {
    Map<String, ExprValue> m = new LinkedHashMap<>();
    for (String n : j.needs()) {
      JobResult r = get(done, n).outcome().result();
      Map<String, ExprValue> entry = new LinkedHashMap<>();
      entry.put("result", r == JobResult.UNKNOWN ? new Unknown("needs." + n + ".result", Tri.UNKNOWN) : new Str(r.word()));
      Map<String, ExprValue> outputs = new LinkedHashMap<>();
      if (r != JobResult.SKIPPED) {
        Map<String, String> given = s.outputs().getOrDefault(n, Map.of());
        for (JobOutput o : job(n).outputs()) {
          String v = given.get(o.name());
          outputs.put(o.name(), v != null && r != JobResult.UNKNOWN ? new Str(v)
              : new Unknown("needs." + n + ".outputs." + o.name(), Tri.UNKNOWN));
        }
        given.forEach((k, v) -> outputs.putIfAbsent(k, r == JobResult.UNKNOWN
            ? new Unknown("needs." + n + ".outputs." + k, Tri.UNKNOWN) : new Str(v)));
      }
      entry.put("outputs", Obj.closed(outputs));
      m.put(n, Obj.closed(entry));
    }
    return Obj.closed(m);
  }
}
