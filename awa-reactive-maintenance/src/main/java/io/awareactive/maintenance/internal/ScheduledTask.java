package io.awareactive.maintenance.internal;

import java.time.Duration;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * A maintenance task as the engine runs it: its {@code awa.maintenance.task} value, its configured interval and its
 * body with the configured options bound. Built from {@code MaintenanceTask} and a configuration by the engine's entry
 * points; the engine itself knows no task by name.
 *
 * @param label the task's tag value, for example {@code dlq_purge}
 * @param interval how often its tick fires
 * @param body what one run does, given the steps of that run
 */
public record ScheduledTask(String label, Duration interval, Function<TaskSteps, Mono<Void>> body) {
}
