package dev.cipolicy.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One step of a job, as far as the lint reads it: the command it runs or the action it uses, and the texts
 * that can carry a job's inputs into it ({@code with:} and {@code env:}).
 *
 * @param id the step's {@code id:}, when set
 * @param run the {@code run:} script as written, when the step runs one
 * @param uses the {@code uses:} action as written, when the step uses one
 * @param with the {@code with:} inputs as written, in order
 * @param env the {@code env:} variables as written, in order
 * @param location where the step starts
 */
public record Step(Optional<String> id, Optional<String> run, Optional<String> uses, Map<String, String> with,
    Map<String, String> env, SourceLocation location) {
  /** Copies the maps, keeping their order. */
  public Step {
    with = Collections.unmodifiableMap(new LinkedHashMap<>(with));
    env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
    ValueCheck.of("Step").require(run.isPresent() || uses.isPresent(), "run",
        () -> "a step runs a command (run:) or uses an action (uses:)").done();
  }

  /**
   * A step that runs a command.
   *
   * @param run the script
   * @param location where the step starts
   * @return the step
   */
  public static Step running(String run, SourceLocation location) {
    return new Step(Optional.empty(), Optional.of(run), Optional.empty(), Map.of(), Map.of(), location);
  }

  /**
   * Every text of the step that may hold {@code ${{ }}} expressions: the script or action, then the inputs and
   * the variables, in order.
   *
   * @return the texts
   */
  public List<String> texts() {
    List<String> out = new ArrayList<>();
    run.ifPresent(out::add);
    uses.ifPresent(out::add);
    out.addAll(with.values());
    out.addAll(env.values());
    return out;
  }
}
