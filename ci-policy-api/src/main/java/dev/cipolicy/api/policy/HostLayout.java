package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * How a self-hosted node is shared: an 8-GPU node split 2+2+4 by visible devices, or a whole,
 * unpartitioned node whose tests declare their own GPU budget.
 */
@Value.Immutable
@ValueStyle
public abstract class HostLayout {
  /**
   * The layout name referenced by suites.
   *
   * @return e.g. {@code h200-node}
   */
  public abstract String name();

  /**
   * GPUs on the node.
   *
   * @return at least 1
   */
  public abstract int gpus();

  /**
   * Partition sizes that sum to {@link #gpus()}; empty for a whole, unpartitioned node.
   *
   * @return e.g. {@code [2, 2, 4]}
   */
  public abstract List<Integer> partitions();

  /**
   * Whether the node is used whole, tests declaring their own GPU budget.
   *
   * @return true when there are no partitions
   */
  public boolean unpartitioned() {
    return partitions().isEmpty();
  }

  /**
   * Rejects an empty name, fewer than 1 GPU, and partitions that are not positive or do not sum to the
   * GPUs.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("HostLayout").nonEmpty("name", name()).atLeast("gpus", gpus(), 1)
        .require(partitions().isEmpty() || (partitions().stream().allMatch(p -> p >= 1)
                && partitions().stream().mapToLong(Integer::longValue).sum() == gpus()), "partitions",
            () -> "partitions " + partitions() + " must be positive and sum to " + gpus() + " GPUs")
        .done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link HostLayout}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableHostLayout.Builder {
    Builder() {}
  }
}
