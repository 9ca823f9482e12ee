package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.Locale;
import org.immutables.value.Value;

/**
 * A cadence's share of a runner pool: the most of the pool (runners, or GPUs) that the jobs of runs of that
 * cadence may hold at once, across all their stages and workflows together; jobs beyond it wait, they are
 * never cancelled. With {@link #borrow()} the cadence may also use capacity of the pool that no other
 * cadence is using, and gives it back when another cadence needs it. A cadence without a share of a pool
 * is not capped on it.
 */
@Value.Immutable
@ValueStyle
public abstract class FleetShare {
  /**
   * The most shares a policy's {@code fleet.shares} may hold: 1,000. The policy check enforces it, and the queue's
   * {@code FleetShares} holds at most as many, so a policy that passes the check is one the fleet accepts.
   */
  public static final int MAX_SHARES = 1_000;


  /** What a share counts. */
  public enum Unit {
    /** Runners: each running job holds one. */
    RUNNERS,
    /** GPUs: each running job holds its GPU budget. */
    GPUS;

    /**
     * The document's key for this unit.
     *
     * @return {@code runners} or {@code gpus}
     */
    public String documentName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * The cadence whose runs the share caps.
   *
   * @return e.g. {@code weekly}
   */
  public abstract String cadence();

  /**
   * The pool the share is of.
   *
   * @return e.g. {@code h200}
   */
  public abstract String pool();

  /**
   * What {@link #amount()} counts.
   *
   * @return runners or GPUs
   */
  public abstract Unit unit();

  /**
   * How many runners or GPUs of the pool the cadence's jobs may hold at once.
   *
   * @return at least 1
   */
  public abstract int amount();

  /**
   * Whether the cadence may go beyond {@link #amount()} on capacity of the pool that is idle, returning it
   * when another cadence needs it.
   *
   * @return default false
   */
  @Value.Default
  public boolean borrow() {
    return false;
  }

  /**
   * Rejects an empty cadence or pool and an amount below 1.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("FleetShare").nonEmpty("cadence", cadence()).nonEmpty("pool", pool())
        .require(amount() >= 1, "amount", () -> "the share of cadence '" + cadence() + "' in pool '" + pool()
            + "' is " + amount() + " " + unit().documentName() + "; expected at least 1")
        .done();
  }

  /**
   * A share of whole runners, without borrowing.
   *
   * @param cadence the cadence
   * @param pool the pool
   * @param runners at least 1
   * @return the share
   */
  public static FleetShare runners(String cadence, String pool, int runners) {
    return builder().cadence(cadence).pool(pool).unit(Unit.RUNNERS).amount(runners).build();
  }

  /**
   * A share of GPUs, without borrowing.
   *
   * @param cadence the cadence
   * @param pool the pool
   * @param gpus at least 1
   * @return the share
   */
  public static FleetShare gpus(String cadence, String pool, int gpus) {
    return builder().cadence(cadence).pool(pool).unit(Unit.GPUS).amount(gpus).build();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link FleetShare}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableFleetShare.Builder {
    Builder() {}
  }
}
