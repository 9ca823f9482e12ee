package dev.cipolicy.api.gate;

import dev.cipolicy.api.PolicyProblem;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which points of a metric series a gate judges: the {@link Last last} point, {@link All all}
 * points, or a list of step {@link Indices indices}. Its {@link #key() canonical key} is part of every
 * history coordinate, so declaring different steps starts a separate history.
 */
public sealed interface GateSteps permits GateSteps.Last, GateSteps.All, GateSteps.Indices {

  /**
   * The canonical key of the steps as declared.
   *
   * @return {@code last}, {@code all}, or the indices in ascending order as a JSON array such as
   *     {@code [0,10,20]}
   */
  String key();

  /**
   * What makes the declaration unusable, by field path relative to the steps ({@code ""} for the whole
   * list, {@code [i]} for one index).
   *
   * @return the problems; empty when the steps are valid
   */
  List<PolicyProblem> violations();

  /**
   * The last point of the series.
   *
   * @return {@code last}
   */
  static GateSteps last() {
    return new Last();
  }

  /**
   * Every point of the series.
   *
   * @return {@code all}
   */
  static GateSteps all() {
    return new All();
  }

  /**
   * The given step indices.
   *
   * @param indices the indices, in any order
   * @return the steps
   */
  static GateSteps indices(List<Integer> indices) {
    return new Indices(indices);
  }

  /** The last point of the series, recorded at step {@code -1} so that runs of any length compare. */
  record Last() implements GateSteps {
    @Override
    public String key() {
      return "last";
    }

    @Override
    public List<PolicyProblem> violations() {
      return List.of();
    }
  }

  /** Every point of the series, each at its own step. */
  record All() implements GateSteps {
    @Override
    public String key() {
      return "all";
    }

    @Override
    public List<PolicyProblem> violations() {
      return List.of();
    }
  }

  /**
   * A list of step indices; valid when non-empty, distinct and non-negative.
   *
   * @param steps the indices in declaration order
   */
  record Indices(List<Integer> steps) implements GateSteps {
    /** Copies the list. */
    public Indices {
      steps = List.copyOf(steps);
    }

    @Override
    public String key() {
      return steps.stream().sorted().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
    }

    @Override
    public List<PolicyProblem> violations() {
      List<PolicyProblem> out = new ArrayList<>();
      if (steps.isEmpty()) {
        out.add(PolicyProblem.at("", "steps must be 'last', 'all' or a non-empty list of step indices, got []"));
      }
      Set<Integer> seen = new HashSet<>();
      for (int i = 0; i < steps.size(); i++) {
        int s = steps.get(i);
        if (s < 0) {
          out.add(PolicyProblem.at("[" + i + "]", "step index " + s + " must be non-negative"));
        } else if (!seen.add(s)) {
          out.add(PolicyProblem.at("[" + i + "]", "step index " + s + " is listed twice"));
        }
      }
      return out;
    }
  }
}
