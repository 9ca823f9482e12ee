package dev.cipolicy.core.workflow;

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
            + "', which is not a job of the workflow; expected one of " + ids.stream().sorted().toList());
      }
    }
    check.done();
    List<String> cycle = cycle(jobs);
    ValueCheck.of("Workflow").require(cycle.isEmpty(), "jobs",
        () -> "the needs form a cycle " + String.join(" -> ", cycle) + "; expected an acyclic graph").done();
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

  private static List<String> cycle(List<Job> jobs) {
    Map<String, Job> byId = new LinkedHashMap<>();
    jobs.forEach(j -> byId.put(j.id(), j));
    Map<String, Integer> state = new HashMap<>();
    for (Job j : jobs) {
      List<String> path = new ArrayList<>();
      if (visit(j.id(), byId, state, path)) {
        return path;
      }
    }
    return List.of();
  }

  private static boolean visit(String id, Map<String, Job> byId, Map<String, Integer> state, List<String> path) {
    int s = state.getOrDefault(id, 0);
    if (s == 2) {
      return false;
    }
    path.add(id);
    if (s == 1) {
      path.subList(0, path.indexOf(id)).clear();
      return true;
    }
    state.put(id, 1);
    Job j = byId.get(id);
    if (j != null) {
      for (String n : j.needs()) {
        if (visit(n, byId, state, path)) {
          return true;
        }
      }
    }
    state.put(id, 2);
    path.remove(path.size() - 1);
    return false;
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
