package dev.cipolicy.workflow;

import dev.cipolicy.api.value.ValueCheck;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A workflow's job graph: its jobs in file order. Valid when built: job ids are unique, every need names a
 * job of the workflow, and the needs have no cycle.
 *
 * @param file the workflow's file name, e.g. {@code pr-test.yml}
 * @param name the {@code name:}, when set
 * @param triggers the events under {@code on:}, in order
 * @param jobs the jobs in file order
 * @param concurrency the workflow's {@code concurrency:}, when set
 * @param warnings what the loading adapter could not model (a remote reusable workflow, a
 *     {@code continue-on-error} expression), in file order
 */
public record Workflow(String file, Optional<String> name, List<Trigger> triggers, List<Job> jobs,
    Optional<Concurrency> concurrency, List<WorkflowWarning> warnings) {
  /** Validates the graph and copies the lists. */
  public Workflow {
    triggers = List.copyOf(triggers);
    jobs = List.copyOf(jobs);
    warnings = List.copyOf(warnings);
    ValueCheck check = ValueCheck.of("Workflow").nonEmpty("file", file);
    Set<String> ids = new HashSet<>();
    for (Job j : jobs) {
      check.require(ids.add(j.id()), "jobs", () -> "job id '" + j.id() + "' at " + j.location() + " is used twice");
    }
    for (Job j : jobs) {
      for (String n : j.needs()) {
        check.require(ids.contains(n), "jobs", () -> "job '" + j.id() + "' at " + j.location() + " needs '" + n
            + "', which is not a job of the workflow; expected one of " + shown(ids.stream().sorted().toList()));
      }
    }
    check.done();
    List<String> cycle = cycle(jobs);
    ValueCheck.of("Workflow").require(cycle.isEmpty(), "jobs",
        () -> "the needs form a cycle " + String.join(" -> ", shortened(cycle)) + "; expected an acyclic graph").done();
  }

  /**
   * A workflow without concurrency or warnings.
   *
   * @param file the file name
   * @param name the {@code name:}, when set
   * @param triggers the events
   * @param jobs the jobs in file order
   */
  public Workflow(String file, Optional<String> name, List<Trigger> triggers, List<Job> jobs) {
    this(file, name, triggers, jobs, Optional.empty(), List.of());
  }

  /**
   * The trigger of an event.
   *
   * @param event the event name
   * @return the trigger, if the workflow subscribes to the event
   */
  public Optional<Trigger> trigger(String event) {
    return triggers.stream().filter(t -> t.event().equals(event)).findFirst();
  }

  /** The most job ids a message lists. */
  private static final int SHOWN_IDS = 20;

  /** A list of ids as a message shows it: at most {@link #SHOWN_IDS}, then how many more. */
  private static String shown(List<String> ids) {
    return ids.size() <= SHOWN_IDS ? ids.toString()
        : "[" + String.join(", ", ids.subList(0, SHOWN_IDS)) + ", ... " + (ids.size() - SHOWN_IDS) + " more]";
  }

  /** A long cycle shortened to its first ids, how many are left out, and its end. */
  private static List<String> shortened(List<String> cycle) {
    if (cycle.size() <= SHOWN_IDS) {
      return cycle;
    }
    List<String> out = new ArrayList<>(cycle.subList(0, SHOWN_IDS - 2));
    out.add("... " + (cycle.size() - SHOWN_IDS) + " more");
    out.addAll(cycle.subList(cycle.size() - 2, cycle.size()));
    return out;
  }

  /**
   * A cycle of the needs, as the path {@code a, b, ..., a}; empty when there is none. An iterative
   * depth-first walk (an explicit stack, no recursion), so a chain of any length cannot overflow the stack.
   */
  private static List<String> cycle(List<Job> jobs) {
    Map<String, Job> byId = new LinkedHashMap<>();
    jobs.forEach(j -> byId.put(j.id(), j));
    Map<String, Integer> state = new HashMap<>();
    for (Job start : jobs) {
      if (state.getOrDefault(start.id(), 0) != 0) {
        continue;
      }
      // path holds the ids on the walk; next.get(k) is the index of the next need of path.get(k) to visit
      List<String> path = new ArrayList<>();
      List<Integer> next = new ArrayList<>();
      path.add(start.id());
      next.add(0);
      state.put(start.id(), 1);
      while (!path.isEmpty()) {
        int top = path.size() - 1;
        Job j = byId.get(path.get(top));
        List<String> needs = j == null ? List.of() : j.needs();
        int k = next.get(top);
        if (k == needs.size()) {
          state.put(path.get(top), 2);
          path.remove(top);
          next.remove(top);
          continue;
        }
        next.set(top, k + 1);
        String n = needs.get(k);
        int s = state.getOrDefault(n, 0);
        if (s == 1) {
          List<String> found = new ArrayList<>(path.subList(path.indexOf(n), path.size()));
          found.add(n);
          return found;
        }
        if (s == 0) {
          state.put(n, 1);
          path.add(n);
          next.add(0);
        }
      }
    }
    return List.of();
  }

  /**
   * A job by id.
   *
   * @param id the job id
   * @return the job, if the workflow has it
   */
  public Optional<Job> job(String id) {
    return jobs.stream().filter(j -> j.id().equals(id)).findFirst();
  }
}
