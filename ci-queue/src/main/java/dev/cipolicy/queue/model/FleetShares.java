package dev.cipolicy.queue.model;

import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.placement.ShareLedger;
import dev.cipolicy.queue.spi.QueueStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The fleet shares a store enforces on its claims: per (cadence, pool), the most runners or GPUs of the pool
 * that the live leases of jobs of that cadence ({@link JobSpec#cadence()}) may hold at once. A job whose
 * cadence has a share of its pool is claimed only when the share admits it ({@link ShareLedger#admits});
 * otherwise it stays queued with the wait reason {@link WaitReason.Kind#SHARE_FULL}. A cadence without a share
 * of a pool, and a job without a cadence, is never capped there. Set on a store with
 * {@link QueueStore#setShares}; the empty value (the default of every store) caps nothing.
 *
 * <p>At most {@value #MAX_SHARES} shares, one per (cadence, pool), each of 1 to {@value #MAX_AMOUNT} units.
 *
 * @param shares the shares, kept sorted by pool, then cadence
 */
public record FleetShares(List<Share> shares) {

  /** The most shares one value holds: the policy's own limit {@link FleetShare#MAX_SHARES}, which its check enforces. */
  public static final int MAX_SHARES = FleetShare.MAX_SHARES;

  /** The largest amount of one share. */
  public static final int MAX_AMOUNT = 1_000_000;

  private static final FleetShares NONE = new FleetShares(List.of());

  /** What a share counts. */
  public enum Unit {
    /** Runners: each live lease of the cadence in the pool holds one. */
    RUNNERS,
    /** GPUs: each live lease holds its job's GPU budget (a job that needs no GPU holds none). */
    GPUS
  }

  /**
   * One cadence's share of one pool.
   *
   * @param cadence the cadence it caps, a name
   * @param pool the pool (collector tag), a name
   * @param unit what the amount counts
   * @param amount how many units the cadence's live leases in the pool may hold at once, 1 to
   *     {@value FleetShares#MAX_AMOUNT}
   * @param borrow whether the cadence may go beyond the amount while no other cadence waits for the pool
   *     (see {@link ShareLedger#admits})
   */
  public record Share(String cadence, String pool, Unit unit, int amount, boolean borrow) {

    /** Checks the components. */
    public Share {
      Checks.token(cadence, "share cadence");
      Checks.token(pool, "share pool");
      Checks.present(unit, "unit of the share of cadence " + cadence + " in pool " + pool);
      if (amount < 1 || amount > MAX_AMOUNT) {
        throw new InvalidQueueInputException("the share of cadence " + cadence + " in pool " + pool + " is "
            + amount + " " + unitName(unit, amount) + "; expected 1 to " + MAX_AMOUNT);
      }
    }

    /**
     * A share of runners, without borrowing.
     *
     * @param cadence the cadence
     * @param pool the pool
     * @param runners how many runners
     * @return the share
     */
    public static Share runners(String cadence, String pool, int runners) {
      return new Share(cadence, pool, Unit.RUNNERS, runners, false);
    }

    /**
     * A share of GPUs, without borrowing.
     *
     * @param cadence the cadence
     * @param pool the pool
     * @param gpus how many GPUs
     * @return the share
     */
    public static Share gpus(String cadence, String pool, int gpus) {
      return new Share(cadence, pool, Unit.GPUS, gpus, false);
    }

    /**
     * This share, borrowing idle capacity.
     *
     * @return the share with {@link #borrow()} set
     */
    public Share borrowing() {
      return new Share(cadence, pool, unit, amount, true);
    }

    /**
     * How many units a lease on the job holds: 1 for runners, its GPU budget for GPUs.
     *
     * @param spec the job
     * @return the units
     */
    public int cost(JobSpec spec) {
      return cost(spec.gpus());
    }

    /**
     * What a lease on a job that needs {@code gpus} GPUs holds of this share: one runner, or its GPUs.
     *
     * @param gpus the GPUs the job needs
     * @return the units it holds
     */
    public int cost(int gpus) {
      return unit == Unit.RUNNERS ? 1 : gpus;
    }

    @Override
    public String toString() {
      return cadence + " " + amount + " " + unitName(unit, amount) + " of " + pool + (borrow ? " (borrow)" : "");
    }
  }

  /** Checks, sorts and copies the shares. */
  public FleetShares {
    Checks.present(shares, "fleet shares");
    if (shares.size() > MAX_SHARES) {
      throw new InvalidQueueInputException("fleet shares list " + shares.size() + " shares; expected at most "
          + MAX_SHARES);
    }
    Set<String> seen = new HashSet<>();
    List<Share> sorted = new ArrayList<>(shares.size());
    for (Share s : shares) {
      Checks.present(s, "fleet share");
      if (!seen.add(s.pool() + " " + s.cadence())) {
        throw new InvalidQueueInputException("fleet shares give cadence " + s.cadence() + " two shares of pool "
            + s.pool() + "; expected at most one");
      }
      sorted.add(s);
    }
    sorted.sort(Comparator.comparing(Share::pool).thenComparing(Share::cadence));
    shares = List.copyOf(sorted);
  }

  /**
   * No shares: nothing is capped.
   *
   * @return the empty value
   */
  public static FleetShares none() {
    return NONE;
  }

  /**
   * The given shares.
   *
   * @param shares the shares, one per (cadence, pool)
   * @return the value
   */
  public static FleetShares of(Share... shares) {
    return new FleetShares(List.of(Checks.present(shares, "fleet shares")));
  }

  /**
   * The shares of a policy's {@code fleet:} section, as the queue enforces them.
   *
   * @param policy the policy's shares
   * @return the value
   * @throws InvalidQueueInputException when a cadence or pool is not a queue name, or a limit is exceeded
   */
  public static FleetShares fromPolicy(List<FleetShare> policy) {
    Checks.present(policy, "policy fleet shares");
    List<Share> out = new ArrayList<>(policy.size());
    for (FleetShare s : policy) {
      out.add(new Share(s.cadence(), s.pool(), s.unit() == FleetShare.Unit.GPUS ? Unit.GPUS : Unit.RUNNERS,
          s.amount(), s.borrow()));
    }
    return new FleetShares(out);
  }

  /**
   * The share of a cadence in a pool.
   *
   * @param cadence the cadence; the empty string (no cadence) has none
   * @param pool the pool
   * @return the share, if any
   */
  public Optional<Share> share(String cadence, String pool) {
    for (Share s : shares) {
      if (s.pool().equals(pool) && s.cadence().equals(cadence)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * Whether some cadence has a share of the pool.
   *
   * @param pool the pool
   * @return true when a claim of the pool must consult the shares
   */
  public boolean covers(String pool) {
    for (Share s : shares) {
      if (s.pool().equals(pool)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether there are no shares.
   *
   * @return true when nothing is capped
   */
  public boolean isEmpty() {
    return shares.isEmpty();
  }

  static String unitName(Unit unit, int n) {
    return (unit == Unit.RUNNERS ? "runner" : "GPU") + (n == 1 ? "" : "s");
  }
}
