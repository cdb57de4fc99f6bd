/**
 * Spring Boot auto-configuration of awa-reactive: {@link io.awareactive.spring.boot.AwaAutoConfiguration} creates the
 * queue storage, the ring-maintenance engine and a worker per {@link io.awareactive.spring.boot.QueueHandler} bean from
 * the application's R2DBC {@code ConnectionFactory} and the {@code awa.*} properties
 * ({@link io.awareactive.spring.boot.AwaProperties}), starts and stops them with the context
 * ({@link io.awareactive.spring.boot.AwaLifecycle}), reports to the application's {@code MeterRegistry} and health, and
 * optionally streams prune outcomes as server-sent events.
 */
@NullMarked
package io.awareactive.spring.boot;

import org.jspecify.annotations.NullMarked;
