package dev.cipolicy.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One job of a workflow, as far as GitHub's job rules need it.
 *
 * @param id the job id (the key under {@code jobs:})
 * @param location where the id is
 * @param needs the ids under {@code needs:}, in the order written
 * @param condition the {@code if:}, absent when there is none (GitHub then uses {@code success()})
 * @param continueOnError {@code continue-on-error: true}: a failure reports success
 * @param matrix the {@code strategy}, absent for a single-leg job
 * @param outputs the {@code outputs:} entries in order
 * @param runsOn the {@code runs-on:} labels as written (one entry for a string or an expression), empty when
 *     not set (a job that calls a reusable workflow has none)
 * @param call the reusable workflow the job calls ({@code uses:}), when it calls one
 * @param concurrency the job's {@code concurrency:}, when set
 * @param steps the job's {@code steps:} in order (empty for a job that calls a reusable workflow)
 * @param env the job's {@code env:} variables as written, in order
 */
public record Job(String id, SourceLocation location, List<String> needs, Optional<Condition> condition,
    boolean continueOnError, Optional<Matrix> matrix, List<JobOutput> outputs, List<String> runsOn,
    Optional<JobCall> call, Optional<Concurrency> concurrency, List<Step> steps, Map<String, String> env) {
  /** Validates the id and the needs, and copies the lists. */
  public Job {
    List<String> ns = List.copyOf(needs);
    needs = ns;
    outputs = List.copyOf(outputs);
    runsOn = List.copyOf(runsOn);
    steps = List.copyOf(steps);
    env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
    ValueCheck check = ValueCheck.of("Job").nonEmpty("id", id);
    for (int i = 0; i < needs.size(); i++) {
      String n = needs.get(i);
      check.require(!n.isEmpty(), "needs[" + i + "]", () -> "must not be empty")
          .require(!n.equals(id), "needs[" + i + "]", () -> "job '" + n + "' cannot need itself");
    }
    check.require(new HashSet<>(needs).size() == needs.size(), "needs",
        () -> "lists a job twice: " + ns + "; expected each job once");
    HashSet<String> names = new HashSet<>();
    for (JobOutput o : outputs) {
      check.require(names.add(o.name()), "outputs", () -> "declares '" + o.name() + "' twice");
    }
    check.done();
  }

  /**
   * Every text of the job that may pass a value to what it runs: its steps' texts, its {@code env:} values and
   * the {@code with:} inputs of the reusable workflow it calls.
   *
   * @return the texts in file order
   */
  public List<String> texts() {
    List<String> out = new ArrayList<>(env.values());
    steps.forEach(s -> out.addAll(s.texts()));
    call.ifPresent(c -> out.addAll(c.with().values()));
    return out;
  }

  /**
   * Starts a job.
   *
   * @param id the job id
   * @param location where the id is
   * @return a builder with no needs, no condition, one leg, no outputs
   */
  public static Builder builder(String id, SourceLocation location) {
    return new Builder(id, location);
  }

  /** Builds a {@link Job} one construct at a time. */
  public static final class Builder {
    private final String id;
    private final SourceLocation location;
    private final List<String> needs = new ArrayList<>();
    private Optional<Condition> condition = Optional.empty();
    private boolean continueOnError;
    private Optional<Matrix> matrix = Optional.empty();
    private final List<JobOutput> outputs = new ArrayList<>();
    private final List<String> runsOn = new ArrayList<>();
    private Optional<JobCall> call = Optional.empty();
    private Optional<Concurrency> concurrency = Optional.empty();
    private final List<Step> steps = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();

    private Builder(String id, SourceLocation location) {
      this.id = id;
      this.location = location;
    }

    /**
     * Adds needed jobs.
     *
     * @param ids the ids
     * @return this builder
     */
    public Builder needs(String... ids) {
      needs.addAll(List.of(ids));
      return this;
    }

    /**
     * Sets the condition.
     *
     * @param value the condition
     * @return this builder
     */
    public Builder condition(Condition value) {
      condition = Optional.of(value);
      return this;
    }

    /**
     * Parses and sets the condition, located at the job.
     *
     * @param text the {@code if:} value
     * @return this builder
     * @throws InvalidExpressionException for a syntax error
     */
    public Builder condition(String text) {
      return condition(Condition.parse(text, location));
    }

    /**
     * Sets {@code continue-on-error}.
     *
     * @param value the flag
     * @return this builder
     */
    public Builder continueOnError(boolean value) {
      continueOnError = value;
      return this;
    }

    /**
     * Sets the strategy.
     *
     * @param value the matrix
     * @return this builder
     */
    public Builder matrix(Matrix value) {
      matrix = Optional.of(value);
      return this;
    }

    /**
     * Adds an output.
     *
     * @param name its name
     * @param value its value as written
     * @return this builder
     */
    public Builder output(String name, String value) {
      outputs.add(new JobOutput(name, value, location));
      return this;
    }

    /**
     * Adds an output located where it is written.
     *
     * @param name its name
     * @param value its value as written
     * @param at where the entry is
     * @return this builder
     */
    public Builder output(String name, String value, SourceLocation at) {
      outputs.add(new JobOutput(name, value, at));
      return this;
    }

    /**
     * Adds {@code runs-on:} labels.
     *
     * @param labels the labels as written
     * @return this builder
     */
    public Builder runsOn(String... labels) {
      runsOn.addAll(List.of(labels));
      return this;
    }

    /**
     * Sets the reusable workflow the job calls.
     *
     * @param value the call
     * @return this builder
     */
    public Builder call(JobCall value) {
      call = Optional.of(value);
      return this;
    }

    /**
     * Sets the job's concurrency.
     *
     * @param value the concurrency
     * @return this builder
     */
    public Builder concurrency(Concurrency value) {
      concurrency = Optional.of(value);
      return this;
    }

    /**
     * Adds a step.
     *
     * @param value the step
     * @return this builder
     */
    public Builder step(Step value) {
      steps.add(value);
      return this;
    }

    /**
     * Adds a job-level {@code env:} variable.
     *
     * @param name its name
     * @param value its value as written
     * @return this builder
     */
    public Builder env(String name, String value) {
      env.put(name, value);
      return this;
    }

    /**
     * Builds the job.
     *
     * @return the job
     * @throws dev.cipolicy.api.InvalidValueException when a rule of {@link Job} is broken
     */
    public Job build() {
      return new Job(id, location, needs, condition, continueOnError, matrix, outputs, runsOn, call, concurrency,
          steps, env);
    }
  }
}
