package dev.cipolicy.gate;

import dev.cipolicy.api.Explanation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The verdict on one gated coordinate: its status, what an out-of-band value means, the value, and the
 * evidence of the deciding model (or the selection error). A selection error that concerns the whole
 * gate (a missing metric, a list of steps with a missing step) has no step.
 *
 * @param metricKey the metric
 * @param stepsKey the canonical steps key of the gate
 * @param constraintKey the canonical constraint key of the gate
 * @param step the step ({@value Coordinate#LAST_STEP} for {@code last}); empty for a whole-gate error
 * @param status the status
 * @param finding what an out-of-band value means; {@link Finding#NONE} unless the status is FAIL
 * @param value the selected value; empty for an error
 * @param evidence the deciding model's evidence; empty for an error
 * @param error what could not be selected; present exactly for {@link GateStatus#ERROR}
 * @param advisories the evidence of the advisory models, which never change the status
 * @param quarantine the quarantine state of an out-of-band value
 */
public record CoordinateVerdict(String metricKey, String stepsKey, String constraintKey, OptionalInt step,
    GateStatus status, Finding finding, OptionalDouble value, Optional<Evidence> evidence, Optional<String> error,
    List<Evidence> advisories, Optional<Quarantine> quarantine) {

  /** Copies the list and checks that an error and evidence exclude each other. */
  public CoordinateVerdict {
    advisories = List.copyOf(advisories);
    if (error.isPresent() != (status == GateStatus.ERROR) || error.isPresent() == evidence.isPresent()) {
      throw new IllegalArgumentException("a verdict has an error exactly when its status is ERROR, else evidence");
    }
  }

  static CoordinateVerdict error(GateSpec spec, OptionalInt step, String message) {
    return new CoordinateVerdict(spec.metricKey(), spec.stepsKey(), spec.constraintKey(), step, GateStatus.ERROR,
        Finding.NONE, OptionalDouble.empty(), Optional.empty(), Optional.of(message), List.of(), Optional.empty());
  }

  /**
   * The coordinate judged.
   *
   * @return the coordinate; empty for a whole-gate error
   */
  public Optional<Coordinate> coordinate() {
    return step.isPresent()
        ? Optional.of(new Coordinate(metricKey, stepsKey, constraintKey, step.getAsInt()))
        : Optional.empty();
  }

  /**
   * The step as written in messages.
   *
   * @return {@code last}, the step number, or {@code -} for a whole-gate error
   */
  public String stepLabel() {
    if (step.isEmpty()) {
      return "-";
    }
    return step.getAsInt() == Coordinate.LAST_STEP ? "last" : Integer.toString(step.getAsInt());
  }

  /**
   * The deciding model's band, for messages.
   *
   * @return e.g. {@code [0.5, 1.5]}; empty when the model gave no limits (an error, a cold start, too little
   *     history)
   */
  public Optional<String> band() {
    if (evidence.isEmpty() || evidence.get().lower().isEmpty() || evidence.get().upper().isEmpty()) {
      return Optional.empty();
    }
    String lower = Numbers.human(evidence.get().lower().getAsDouble());
    String upper = Numbers.human(evidence.get().upper().getAsDouble());
    return Optional.of("[" + lower + ", " + upper + "]");
  }

  /**
   * The outcome in a few words, for a summary line or table.
   *
   * @return e.g. {@code 2.5 is above the upper limit 1.5 by 1 (regression)}
   */
  public String reason() {
    if (error.isPresent()) {
      return error.get();
    }
    Evidence e = evidence.orElseThrow();
    String v = Numbers.human(e.value());
    return switch (status) {
      case PASS -> v + " is within [" + Numbers.human(e.lower().getAsDouble()) + ", "
          + Numbers.human(e.upper().getAsDouble()) + "]";
      case FAIL -> {
        boolean above = e.binding().orElseThrow() == Limit.UPPER;
        double limit = above ? e.upper().getAsDouble() : e.lower().getAsDouble();
        yield v + " is " + (above ? "above the upper" : "below the lower") + " limit " + Numbers.human(limit)
            + " by " + Numbers.human(-e.margin().getAsDouble()) + " (" + finding.words() + ")";
      }
      default -> e.basis();
    };
  }

  /**
   * Why the verdict came out as it did: the selection, the model's derivation and the comparison, with
   * quarantine hints. Deterministic.
   *
   * @return the explanation
   */
  public Explanation explanation() {
    String decision = metricKey + " step " + stepLabel() + ": " + status
        + (finding == Finding.NONE ? "" : " (" + finding.words() + ")");
    List<Explanation.Reason> reasons = new ArrayList<>();
    if (error.isPresent()) {
      reasons.add(new Explanation.Reason("gate.select", error.get()));
      return new Explanation(decision, reasons, List.of());
    }
    Evidence e = evidence.orElseThrow();
    reasons.add(new Explanation.Reason("gate.select", "steps=" + stepsKey + " selected "
        + Numbers.human(e.value()) + (step.getAsInt() == Coordinate.LAST_STEP ? " as the last point" : " at step "
        + step.getAsInt())));
    reasons.add(new Explanation.Reason("gate.model." + e.model(), e.basis()));
    if (status == GateStatus.PASS || status == GateStatus.FAIL) {
      String detail = reason();
      if (status == GateStatus.PASS) {
        detail += ", " + Numbers.human(e.margin().getAsDouble()) + " from the "
            + e.binding().orElseThrow().name().toLowerCase(Locale.ROOT) + " limit";
      }
      reasons.add(new Explanation.Reason("gate.verdict", detail));
    }
    List<String> hints = new ArrayList<>();
    quarantine.ifPresent(q -> hints.add(q.proposal()
        .map(p -> q.consecutive() + " consecutive out-of-band values agree on a new level "
            + Numbers.human(p.toLevel()) + " (baseline " + Numbers.human(p.fromLevel())
            + "); accept the level shift to move the baseline")
        .orElse(q.consecutive() + " of " + q.required()
            + " consecutive agreeing out-of-band values needed to propose a level shift; quarantined until then")));
    for (Evidence a : advisories) {
      hints.add("advisory " + a.model() + ": " + a.status());
    }
    return new Explanation(decision, reasons, hints);
  }

  /**
   * The verdict as an ordered tree for JSON: numbers as numbers, absent fields left out.
   *
   * @return an ordered map
   */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("metric", metricKey);
    m.put("steps", stepsKey);
    m.put("constraint", constraintKey);
    step.ifPresent(s -> m.put("step", s));
    m.put("status", status.name());
    m.put("finding", finding.name());
    value.ifPresent(v -> m.put("value", v));
    error.ifPresent(er -> m.put("error", er));
    evidence.ifPresent(e -> m.put("evidence", e.toMap()));
    if (!advisories.isEmpty()) {
      List<Object> a = new ArrayList<>();
      advisories.forEach(e -> a.add(e.toMap()));
      m.put("advisories", a);
    }
    quarantine.ifPresent(q -> {
      Map<String, Object> qm = new LinkedHashMap<>();
      qm.put("consecutive", q.consecutive());
      qm.put("required", q.required());
      q.proposal().ifPresent(p -> {
        Map<String, Object> pm = new LinkedHashMap<>();
        pm.put("side", p.side().name().toLowerCase(Locale.ROOT));
        pm.put("from_level", p.fromLevel());
        pm.put("to_level", p.toLevel());
        pm.put("stored_runs", p.storedRuns().stream().map(r -> (Object) r.value()).toList());
        qm.put("proposal", pm);
      });
      m.put("quarantine", qm);
    });
    m.put("reason", reason());
    return m;
  }
}
