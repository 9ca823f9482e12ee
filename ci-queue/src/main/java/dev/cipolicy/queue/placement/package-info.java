/**
 * The scheduling rules of the job queue, each written once: device placement and reservations ({@link dev.cipolicy.queue.placement.DevicePlacement}), fleet-share admission ({@link dev.cipolicy.queue.placement.ShareLedger}), and the one claim loop ({@link dev.cipolicy.queue.placement.PoolClaimer}) that applies them through a store's {@link dev.cipolicy.queue.placement.PoolTransaction}.
 */
@NullMarked
package dev.cipolicy.queue.placement;

import org.jspecify.annotations.NullMarked;
