package dev.cipolicy.core.workflow;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.core.workflow.ExprValue.Arr;
import dev.cipolicy.core.workflow.ExprValue.Obj;
import dev.cipolicy.core.workflow.ExprValue.Str;
import dev.cipolicy.core.workflow.ExprValue.Unknown;
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
 * <p>Thread-safe and immutable once created.
 */
public final class WorkflowSimulator {
  private final Workflow workflow;
  private final List<Job> order;
  private final Map<String, List<String>> ancestors = new HashMap<>();
  private final Map<String, Map<String, String>> via = new HashMap<>();

  private WorkflowSimulator(Workflow workflow) {
    this.workflow = workflow;
    this.order = topological(workflow);
    Map<String, Integer> rank = new HashMap<>();
    for (int i = 0; i < order.size(); i++) {
      rank.put(order.get(i).id(), i);
    }
    for (Job j : workflow.jobs()) {
      Map<String, String> chains = new HashMap<>();
      Map<String, String> parent = new HashMap<>();
      Deque<String> queue = new ArrayDeque<>();
      queue.add(j.id());
      Set<String> seen = new LinkedHashSet<>();
      while (!queue.isEmpty()) {
        String id = queue.poll();
        for (String n : job(id).needs()) {
          if (!n.equals(j.id()) && seen.add(n)) {
            parent.put(n, id);
            queue.add(n);
          }
        }
      }
      for (String a : seen) {
        List<String> chain = new ArrayList<>();
        for (String p = parent.get(a); p != null && !p.equals(j.id()); p = parent.get(p)) {
          chain.add(p);
        }
        Collections.reverse(chain);
        chains.put(a, chain.isEmpty() ? "" : " (via " + String.join(", ", chain) + ")");
      }
      List<String> list = new ArrayList<>(seen);
      list.sort((a, b) -> Integer.compare(get(rank, a), get(rank, b)));
      ancestors.put(j.id(), List.copyOf(list));
      via.put(j.id(), chains);
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
    return workflow.job(id).orElseThrow();
  }

  private static List<Job> topological(Workflow w) {
    List<Job> out = new ArrayList<>();
    Set<String> placed = new LinkedHashSet<>();
    while (out.size() < w.jobs().size()) {
      for (Job j : w.jobs()) {
        if (!placed.contains(j.id()) && placed.containsAll(j.needs())) {
          placed.add(j.id());
          out.add(j);
        }
      }
    }
    return List.copyOf(out);
  }

  /**
   * Simulates one scenario.
   *
   * @param scenario the scenario
   * @return every job in file order with its result and reason
   * @throws InvalidInputException when the scenario names a job the workflow does not have, or gives a
   *     matrix job a number of leg results other than its number of legs
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
   * @throws InvalidInputException as {@link #simulate} does
   */
  public List<Simulation> exhaustive(Scenario base) {
    validate(base);
    List<Simulation> out = new ArrayList<>();
    explore(0, base, new HashMap<>(), out);
    return out;
  }

  private void explore(int i, Scenario s, Map<String, Decided> done, List<Simulation> out) {
    if (i == order.size()) {
      out.add(new Simulation(s, fileOrder(done)));
      return;
    }
    Job j = order.get(i);
    boolean pinned = s.results().containsKey(j.id()) || s.legResults().containsKey(j.id());
    Decided d = decide(j, s, done);
    done.put(j.id(), d);
    explore(i + 1, s, done, out);
    if (!pinned && d.ran()) {
      Scenario failed = s.withResult(j.id(), InjectedResult.FAILURE);
      done.put(j.id(), decide(j, failed, done));
      explore(i + 1, failed, done, out);
    }
    done.remove(j.id());
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
   */
  public ExprValue evaluate(Simulation simulation, String job, Expression expression) {
    Job j = workflow.job(job).orElseThrow(() -> new InvalidInputException("workflow " + workflow.file()
        + " has no job '" + job + "'"));
    Map<String, Decided> done = new HashMap<>();
    for (JobOutcome o : simulation.jobs()) {
      JobResult r = o.result();
      done.put(o.job(), new Decided(o, r == JobResult.SUCCESS || r == JobResult.FAILURE || r == JobResult.CANCELLED));
    }
    if (!done.keySet().equals(ancestors.keySet())) {
      throw new InvalidInputException("the simulation is not one of workflow " + workflow.file());
    }
    return expression.evaluate(environment(j, simulation.scenario(), done));
  }

  /**
   * The jobs a job depends on, directly or through others (its {@code needs} closure), in run order.
   *
   * @param job the job id
   * @return the ancestors; empty for an unknown job
   */
  public List<String> ancestors(String job) {
    return ancestors.getOrDefault(job, List.of());
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

  /** A job's outcome and whether it ran (and so could have failed). */
  private record Decided(JobOutcome outcome, boolean ran) {}

  private Decided decide(Job j, Scenario s, Map<String, Decided> done) {
    ExpressionEnvironment env = environment(j, s, done);
    if (j.condition().isEmpty()) {
      StatusCheck ok = env.status(StatusFunction.SUCCESS);
      return switch (ok.value()) {
        case FALSE -> outcome(j, JobResult.SKIPPED, "implicit success() is false: " + ok.reason(), false);
        case UNKNOWN -> outcome(j, JobResult.UNKNOWN, "implicit success() is unknown: " + ok.reason(), false);
        default -> run(j, s, "implicit success() is true: " + ok.reason());
      };
    }
    Expression e = j.condition().get().expression();
    String shown = "if `" + e.text().strip() + "`";
    Expression.Verdict v;
    StatusCheck implicit = null;
    if (!e.callsStatusFunction()) {
      implicit = env.status(StatusFunction.SUCCESS);
      if (implicit.value() == Tri.FALSE) {
        return outcome(j, JobResult.SKIPPED, "implicit success() is false: " + implicit.reason(), false);
      }
    }
    try {
      v = e.decide(env);
    } catch (InvalidExpressionException ex) {
      return outcome(j, JobResult.FAILURE, "evaluating the if failed: " + ex.getMessage(), false);
    }
    if (v.truth() == Tri.FALSE) {
      return outcome(j, JobResult.SKIPPED, shown + " is false: " + v.explanation(), false);
    }
    if (implicit != null && implicit.value() == Tri.UNKNOWN) {
      return outcome(j, JobResult.UNKNOWN, "implicit success() is unknown: " + implicit.reason(), false);
    }
    if (v.truth() == Tri.UNKNOWN) {
      return outcome(j, JobResult.UNKNOWN, shown + " is unknown: " + v.explanation(), false);
    }
    return run(j, s, (implicit != null ? "implicit success() and " + shown + " are true: " : shown + " is true: ")
        + v.explanation());
  }

  private static Decided outcome(Job j, JobResult r, String why, boolean ran) {
    return new Decided(new JobOutcome(j.id(), r, r.word() + ": " + why), ran);
  }

  private static Decided run(Job j, Scenario s, String why) {
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
      return outcome(j, JobResult.SUCCESS, ran + "; it failed" + which + ", but continue-on-error reports success", true);
    } else if (failed > 0) {
      return outcome(j, JobResult.FAILURE, ran + "; it failed" + which, true);
    } else if (cancelled > 0) {
      return outcome(j, JobResult.CANCELLED, ran + "; it was cancelled", true);
    }
    return outcome(j, JobResult.SUCCESS, ran, true);
  }

  private ExpressionEnvironment environment(Job j, Scenario s, Map<String, Decided> done) {
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
        return WorkflowSimulator.this.status(f, j, s, done);
      }
    };
  }

  private StatusCheck status(StatusFunction f, Job j, Scenario s, Map<String, Decided> done) {
    switch (f) {
      case ALWAYS -> {
        return new StatusCheck(Tri.TRUE, "always() holds whatever happened before");
      }
      case CANCELLED -> {
        return new StatusCheck(Tri.of(s.runCancelled()), s.runCancelled() ? "the run was cancelled" : "the run was not cancelled");
      }
      default -> { }
    }
    String failedAncestor = null;
    String cancelledAncestor = null;
    String skippedAncestor = null;
    String unknownAncestor = null;
    for (String a : get(ancestors, j.id())) {
      JobResult r = get(done, a).outcome().result();
      String named = "ancestor " + a;
      String path = get(get(via, j.id()), a);
      if (r == JobResult.FAILURE && failedAncestor == null) {
        failedAncestor = named + " failed" + path;
      } else if (r == JobResult.CANCELLED && cancelledAncestor == null) {
        cancelledAncestor = named + " was cancelled" + path;
      } else if (r == JobResult.SKIPPED && skippedAncestor == null) {
        skippedAncestor = named + " was skipped" + path;
      } else if (r == JobResult.UNKNOWN && unknownAncestor == null) {
        unknownAncestor = named + "'s result is unknown" + path;
      }
    }
    int n = get(ancestors, j.id()).size();
    if (f == StatusFunction.FAILURE) {
      if (failedAncestor != null) {
        return new StatusCheck(Tri.TRUE, failedAncestor);
      }
      return unknownAncestor != null ? new StatusCheck(Tri.UNKNOWN, unknownAncestor)
          : new StatusCheck(Tri.FALSE, n == 0 ? "the job needs no job" : "no ancestor failed");
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
    return new StatusCheck(Tri.TRUE, n == 0 ? "the job needs no job"
        : n == 1 ? "ancestor " + get(ancestors, j.id()).get(0) + " succeeded" : "all " + n + " ancestors succeeded");
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
