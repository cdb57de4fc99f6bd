/**
 * The engine side of awa-reactive core: {@link io.awareactive.core.ring.RingOperations}, the one narrow interface a
 * maintenance engine drives a schema's rings through, and the outcome and label types of ring work (rotation, prune,
 * rollup). Applications use {@link io.awareactive.core.QueueStorage}; they read these types only from prune events
 * and metrics.
 */
@NullMarked
package io.awareactive.core.ring;

import org.jspecify.annotations.NullMarked;
