package dev.cipolicy.gate;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The structured explanation of one model's judgement of one value: which model, how much history, the
 * centre and spread it derived, the limits, the binding limit and the margin to it. The status follows
 * from these fields alone ({@link #recomputeStatus()}), so a reader can check every verdict.
 *
 * <p>The binding limit is the limit the value is beyond, or, inside the band, the nearer one (the upper
 * on a tie). The margin is the signed distance to it: {@code upper − value} or {@code value − lower},
 * {@code ≥ 0} exactly when the value is inside the band (limits inclusive).
 *
 * @param model the model's name, e.g. {@code band}
 * @param basis how the centre and limits were derived, as a sentence fragment
 * @param n the number of trusted values used
 * @param minHistory the least number of trusted values the model judges with
 * @param value the judged value
 * @param centre the centre (the band's reference, a median, a local level), when derived
 * @param spread the model's scale (MAD-based sigma, IQR, delta noise); empty for the band
 * @param lower the lower limit, when a band was formed
 * @param upper the upper limit, when a band was formed
 * @param binding the binding limit, when a band was formed
 * @param margin the signed margin to the binding limit, when a band was formed
 * @param inconclusive why the model declined to judge, if it did
 * @param status the status the model gave
 */
public record Evidence(String model, String basis, int n, int minHistory, double value, OptionalDouble centre,
    OptionalDouble spread, OptionalDouble lower, OptionalDouble upper, Optional<Limit> binding,
    OptionalDouble margin, Optional<Inconclusive> inconclusive, GateStatus status) {

  /** Checks that the status is the one the fields give. */
  public Evidence {
    if (model == null || basis == null || status == null) {
      throw new IllegalArgumentException("evidence needs a model, a basis and a status");
    }
    if (lower.isPresent() != upper.isPresent() || lower.isPresent() != margin.isPresent()
        || lower.isPresent() != binding.isPresent()) {
      throw new IllegalArgumentException("limits, binding limit and margin go together");
    }
    GateStatus recomputed = recompute(n, minHistory, inconclusive, margin);
    if (status != recomputed) {
      throw new IllegalArgumentException("status " + status + " does not follow from the evidence ("
          + recomputed + ")");
    }
  }

  private static GateStatus recompute(int n, int minHistory, Optional<Inconclusive> inconclusive,
      OptionalDouble margin) {
    if (n == 0) {
      return GateStatus.INACTIVE;
    }
    if (n < minHistory) {
      return GateStatus.INSUFFICIENT_HISTORY;
    }
    if (inconclusive.isPresent()) {
      return GateStatus.INCONCLUSIVE;
    }
    return margin.isPresent() && margin.getAsDouble() >= 0 ? GateStatus.PASS : GateStatus.FAIL;
  }

  static Evidence withoutBand(String model, String basis, int n, int minHistory, double value,
      OptionalDouble centre, OptionalDouble spread, Optional<Inconclusive> inconclusive) {
    return new Evidence(model, basis, n, minHistory, value, centre, spread, OptionalDouble.empty(),
        OptionalDouble.empty(), Optional.empty(), OptionalDouble.empty(), inconclusive,
        recompute(n, minHistory, inconclusive, OptionalDouble.empty()));
  }

  static Evidence banded(String model, String basis, int n, int minHistory, double value, double centre,
      OptionalDouble spread, double lower, double upper) {
    double toUpper = upper - value;
    double fromLower = value - lower;
    Limit binding;
    if (value > upper) {
      binding = Limit.UPPER;
    } else if (value < lower) {
      binding = Limit.LOWER;
    } else {
      binding = toUpper <= fromLower ? Limit.UPPER : Limit.LOWER;
    }
    double margin = binding == Limit.UPPER ? toUpper : fromLower;
    // a band made of non-finite limits (an overflowing history) judges nothing as inside
    OptionalDouble m = OptionalDouble.of(Double.isNaN(margin) ? Double.NEGATIVE_INFINITY : margin);
    return new Evidence(model, basis, n, minHistory, value, OptionalDouble.of(centre), spread,
        OptionalDouble.of(lower), OptionalDouble.of(upper), Optional.of(binding), m, Optional.empty(),
        recompute(n, minHistory, Optional.empty(), m));
  }

  /**
   * The status recomputed from the fields: no history is INACTIVE, less than the minimum is
   * INSUFFICIENT_HISTORY, a declined judgement is INCONCLUSIVE, a margin {@code ≥ 0} is PASS, else FAIL.
   *
   * @return the status; always equal to {@link #status()}
   */
  public GateStatus recomputeStatus() {
    return recompute(n, minHistory, inconclusive, margin);
  }

  /**
   * Whether the value is beyond a limit, and which.
   *
   * @return the violated limit, if the value is out of band
   */
  public Optional<Limit> violated() {
    return status == GateStatus.FAIL ? binding : Optional.empty();
  }

  /**
   * The evidence as an ordered tree for JSON: numbers as numbers, absent fields left out.
   *
   * @return an ordered map
   */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("model", model);
    m.put("status", status.name());
    m.put("n", n);
    m.put("min_history", minHistory);
    m.put("value", value);
    centre.ifPresent(v -> m.put("centre", v));
    spread.ifPresent(v -> m.put("spread", v));
    lower.ifPresent(v -> m.put("lower", v));
    upper.ifPresent(v -> m.put("upper", v));
    binding.ifPresent(b -> m.put("binding", b.name().toLowerCase(Locale.ROOT)));
    margin.ifPresent(v -> m.put("margin", v));
    inconclusive.ifPresent(i -> m.put("inconclusive", i.name().toLowerCase(Locale.ROOT)));
    m.put("basis", basis);
    return m;
  }
}
