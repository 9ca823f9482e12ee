package dev.cipolicy.api.policy;

import dev.cipolicy.api.internal.ValueStyle;
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
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableHostLayout.Builder builder() {
    return ImmutableHostLayout.builder();
  }
}
