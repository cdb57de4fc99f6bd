/**
 * awa-reactive maintenance: the engine that keeps every ring of a {@link io.awareactive.core.QueueStorage}
 * recycling (rotate, prune, terminal-count rollup), promotes scheduled jobs, rescues stale attempts and purges
 * expired dead-letter rows, elects one leader per schema, and reports what it did as
 * {@link io.awareactive.maintenance.PruneEvent}s and Micrometer meters.
 *
 * <p>Start with {@link io.awareactive.maintenance.RingMaintenanceConfig#builder()} and
 * {@link io.awareactive.maintenance.RingMaintenance#create(io.awareactive.core.QueueStorage,
 * RingMaintenanceConfig)}; the engine drives the storage through
 * {@link io.awareactive.core.QueueStorage#ringOperations()}.
 */
@NullMarked
package io.awareactive.maintenance;

import org.jspecify.annotations.NullMarked;
