package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import org.immutables.value.Value;

/**
 * How the gate judges and what it writes: the deciding model, advisory models reported beside it, how
 * baseline samples are trusted, and after how many consecutive agreeing out-of-band values a level shift
 * is proposed.
 *
 * <pre>{@code
 * GateOptions.builder().model(GateModel.medianMad()).addAdvisories(GateModel.band())
 *     .trust(TrustMode.PER_RUN).levelShiftAfter(3).build();
 * }</pre>
 */
@Value.Immutable
@ValueStyle
public abstract class GateOptions {

  /**
   * The model whose status is the verdict and decides trust.
   *
   * @return the reference band unless set
   */
  @Value.Default
  public GateModel model() {
    return GateModel.band();
  }

  /**
   * Models evaluated beside the deciding one; their evidence is reported and never changes a status.
   *
   * @return the advisory models, empty unless set
   */
  public abstract List<GateModel> advisories();

  /**
   * How baseline samples are trusted.
   *
   * @return {@link TrustMode#PER_COORDINATE} unless set
   */
  @Value.Default
  public TrustMode trust() {
    return TrustMode.PER_COORDINATE;
  }

  /**
   * How many consecutive, agreeing, same-side out-of-band values (the judged one included) make a level
   * shift proposal; 0 turns quarantine off.
   *
   * @return 3 unless set
   */
  @Value.Default
  public int levelShiftAfter() {
    return 3;
  }

  /**
   * How many trusted samples per coordinate the evaluator reads: the largest window of its models.
   *
   * @return the trusted read limit
   */
  @Value.Derived
  public int trustedLimit() {
    int w = model().window();
    for (GateModel m : advisories()) {
      w = Math.max(w, m.window());
    }
    return w;
  }

  /**
   * How many recent samples of any trust per coordinate the evaluator reads for quarantine.
   *
   * @return {@code levelShiftAfter − 1}, or 0 when quarantine is off
   */
  @Value.Derived
  public int recentLimit() {
    return Math.max(0, levelShiftAfter() - 1);
  }

  /**
   * Rejects a level shift count of 1 or a negative one.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("GateOptions").require(levelShiftAfter() == 0 || levelShiftAfter() >= 2, "levelShiftAfter",
        () -> "must be 0 (off) or at least 2, got " + levelShiftAfter()).done();
  }

  /**
   * The product defaults: the reference band, per-coordinate trust, level shift after 3.
   *
   * @return the default options
   */
  public static GateOptions defaults() {
    return builder().build();
  }

  /**
   * The reference behaviour: the band, per-run trust, no quarantine.
   *
   * @return the reference options
   */
  public static GateOptions reference() {
    return builder().trust(TrustMode.PER_RUN).levelShiftAfter(0).build();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link GateOptions}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableGateOptions.Builder {
    Builder() {}
  }
}
