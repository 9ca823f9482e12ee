package dev.cipolicy.core.load;

import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.RunnerPool;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the {@code fleet} section of a policy document: the runner pools and each cadence's share of them.
 * Types and the shape of a share are checked here with locations; references (a declared cadence, a
 * declared pool, a share within the pool) are static checks of the policy.
 *
 * <pre>{@code
 * fleet:
 *   pools:
 *     h200: {runners: 4, gpus: 16, description: one node split 2+2+4, one used whole}
 *   shares:
 *     weekly:
 *       h200: {runners: 1}              # runners or gpus, exactly one
 *     nightly:
 *       h200: {gpus: 12, borrow: true}  # borrow: may use idle capacity beyond the share
 * }</pre>
 */
final class FleetSection {
  /** The root field of the section. */
  static final String FIELD = "fleet";

  /** The keys of the section itself. */
  static final Set<String> SECTION_FIELDS = Set.of("pools", "shares");
  /** The keys of one pool's entry (its name is the entry's key). */
  static final Set<String> POOL_FIELDS = Set.of("runners", "gpus", "description");
  /** The keys of one share (its cadence and pool are the keys it is found under). */
  static final Set<String> SHARE_FIELDS = Set.of("runners", "gpus", "borrow");

  private FleetSection() {}

  static void read(DocReader r, DocReader.Fields root, Policy.Builder policy) {
    root.node(FIELD).flatMap(n -> r.fields(n, FIELD, SECTION_FIELDS)).ifPresent(f -> {
      f.node("pools").flatMap(n -> r.namedMap(n, f.path("pools")))
          .ifPresent(m -> m.view().values().forEach(e -> readPool(r, e, f.path("pools")).ifPresent(policy::addPools)));
      f.node("shares").flatMap(n -> r.namedMap(n, f.path("shares"))).ifPresent(m -> {
        for (Node.Entry cadence : m.view().values()) {
          String cadencePath = DocReader.child(f.path("shares"), cadence.key());
          r.namedMap(cadence.value(), cadencePath).ifPresent(pools -> {
            for (Node.Entry pool : pools.view().values()) {
              readShare(r, cadence.key(), pool, DocReader.child(cadencePath, pool.key()))
                  .ifPresent(policy::addFleetShares);
            }
          });
        }
      });
    });
  }

  private static Optional<RunnerPool> readPool(DocReader r, Node.Entry e, String pools) {
    String path = DocReader.child(pools, e.key());
    return r.fields(e.value(), path, POOL_FIELDS).flatMap(f -> {
      RunnerPool.Builder b = RunnerPool.builder().name(e.key());
      Optional<Integer> runners = f.requiredInteger("runners");
      f.integer("gpus").ifPresent(b::gpus);
      f.string("description").ifPresent(b::description);
      return runners.flatMap(n -> r.build(path, Map.of("name", ""), b.runners(n)::build));
    });
  }

  private static Optional<FleetShare> readShare(DocReader r, String cadence, Node.Entry e, String path) {
    return r.fields(e.value(), path, SHARE_FIELDS).flatMap(f -> {
      Optional<Node> runnersNode = f.node("runners");
      Optional<Node> gpusNode = f.node("gpus");
      Optional<Integer> runners = f.integer("runners");
      Optional<Integer> gpus = f.integer("gpus");
      Optional<Boolean> borrow = f.bool("borrow");
      if (runnersNode.isEmpty() && gpusNode.isEmpty()) {
        r.problem(e.value().location(), path, "missing required field 'runners' or 'gpus'");
        return Optional.empty();
      }
      if (runnersNode.isPresent() && gpusNode.isPresent()) {
        r.problem(e.value().location(), path, "a share counts runners or gpus, not both; found both");
        return Optional.empty();
      }
      FleetShare.Unit unit = runnersNode.isPresent() ? FleetShare.Unit.RUNNERS : FleetShare.Unit.GPUS;
      Optional<Integer> amount = unit == FleetShare.Unit.RUNNERS ? runners : gpus;
      FleetShare.Builder b = FleetShare.builder().cadence(cadence).pool(e.key()).unit(unit);
      borrow.ifPresent(b::borrow);
      return amount.flatMap(a -> r.build(path, Map.of("cadence", "", "pool", "", "amount", unit.documentName()),
          b.amount(a)::build));
    });
  }
}
