/**
 * awa-reactive core: PostgreSQL job-queue storage on TRUNCATE-recycled rings.
 *
 * <p>Start with {@link io.awareactive.core.QueueStorageConfig#builder()} and
 * {@link io.awareactive.core.QueueStorage#create(QueueStorageConfig)}. Every operation returns a
 * {@code Mono} or {@code Flux} and never blocks the calling thread.
 */
@NullMarked
package io.awareactive.core;

import org.jspecify.annotations.NullMarked;
