package dev.cipolicy.queue.placement;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.WaitReason;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * What a pool (collector tag) looks like to the scheduler at one instant, read from the store in one step: its
 * live hosts with the leases on their devices, the reservation a claim would honour now, a reservation kept
 * dormant for a job its share refuses, and why each queued job waits. Every panel of a status page reads it
 * instead of recomputing a reservation, so two panels never disagree.
 */
@Value.Immutable
@ValueStyle
public abstract class PoolView {

  /**
   * The pool.
   *
   * @return the collector tag
   */
  public abstract String pool();

  /**
   * The store's instant the view was read at.
   *
   * @return the instant
   */
  public abstract Instant at();

  /**
   * The live hosts of the pool that advertise devices, each with its live leases and their estimated ends
   * (as the store records them).
   *
   * @return the hosts, by name
   */
  public abstract List<DevicePlacement.Host> hosts();

  /**
   * The live collectors of the pool, with devices or not.
   *
   * @return their names, sorted
   */
  public abstract List<String> liveCollectors();

  /**
   * The host reserved for the head of the pool now, as the next claim honours it: its job, the host, when
   * enough devices are expected free, and how many are free.
   *
   * @return the reservation, or empty when the head fits somewhere or nothing waits for GPUs
   */
  public abstract Optional<DevicePlacement.Reservation> reservation();

  /**
   * A reservation kept dormant: its job's fleet share refuses it now, and it takes the reservation back once
   * admitted (meanwhile {@link #reservation()} is the head's among the others).
   *
   * @return the dormant reservation, or empty
   */
  public abstract Optional<DevicePlacement.KeptReservation> dormant();

  /**
   * Why each queued job of the pool waits.
   *
   * @return the waits, by job id
   */
  public abstract List<JobWait> waits();

  /**
   * This view of a paused pool: every queued job waits with {@link WaitReason.Kind#POOL_PAUSED} (its pool and GPU
   * count kept); the hosts and reservations are as they are.
   *
   * @return the view with the waits of a paused pool
   */
  public PoolView paused() {
    List<JobWait> waits = new java.util.ArrayList<>(waits().size());
    for (JobWait w : waits()) {
      waits.add(new JobWait(w.job(), WaitReason.builder().kind(WaitReason.Kind.POOL_PAUSED).pool(pool())
          .gpus(w.job().spec().gpus()).build()));
    }
    return builder().from(this).waits(waits).build();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link PoolView}. */
  public static final class Builder extends ImmutablePoolView.Builder {
    Builder() {}
  }
}
