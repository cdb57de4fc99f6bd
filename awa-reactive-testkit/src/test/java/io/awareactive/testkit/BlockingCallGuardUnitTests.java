package io.awareactive.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

final class BlockingCallGuardUnitTests {

    @Test
    void shouldRecordAndRejectASleepOnAParallelThread() {
        BlockingCallGuard.install();
        BlockingCallGuard.clear();

        Mono<Object> sleeper = Mono.fromCallable(() -> {
            Thread.sleep(1);
            return new Object();
        }).subscribeOn(Schedulers.parallel());

        assertThatThrownBy(() -> sleeper.block(Duration.ofSeconds(10)))
                .hasMessageContaining("Blocking call");
        assertThat(BlockingCallGuard.violations()).anySatisfy(v -> assertThat(v).contains("sleep"));
        assertThatThrownBy(BlockingCallGuard::assertNoViolations).isInstanceOf(AssertionError.class);
        BlockingCallGuard.clear();
        BlockingCallGuard.assertNoViolations();
    }

    @Test
    void shouldRecordAParkOnAParallelThreadAndLetTheWaiterTakeTheLockLater() {
        BlockingCallGuard.install();
        BlockingCallGuard.clear();
        ReentrantLock lock = new ReentrantLock();
        lock.lock();

        Mono<Boolean> waiter = Mono.fromCallable(() -> {
            lock.lock();
            lock.unlock();
            return true;
        }).subscribeOn(Schedulers.parallel());
        var taken = waiter.toFuture();
        await().atMost(Duration.ofSeconds(10)).until(lock::hasQueuedThreads);
        lock.unlock();

        // Had the error been thrown out of the park, the waiter would have failed and left a dead node in the
        // lock's queue; it got the lock instead, and a later taker gets it too.
        assertThat(taken).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
        assertThat(BlockingCallGuard.violations()).singleElement().asString().contains("park");
        BlockingCallGuard.clear();
    }

    @Test
    void shouldAllowCancellingAnIntervalWhileItsExecutorQueueIsBusy() throws InterruptedException {
        BlockingCallGuard.install();
        BlockingCallGuard.clear();
        // An executor whose queue removal waits for a lock the test holds: a cancellation from a parallel thread
        // parks there, as it does when the executor's own thread holds the queue lock.
        ReentrantLock queueLock = new ReentrantLock();
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1) {
            @Override
            public boolean remove(Runnable task) {
                queueLock.lock();
                try {
                    return super.remove(task);
                } finally {
                    queueLock.unlock();
                }
            }
        };
        executor.setRemoveOnCancelPolicy(true);
        Scheduler scheduler = Schedulers.fromExecutorService(executor);
        try {
            Disposable timer = scheduler.createWorker().schedulePeriodically(() -> { }, 1, 1, TimeUnit.HOURS);
            queueLock.lock();
            var cancelled = Mono.fromRunnable(timer::dispose).subscribeOn(Schedulers.parallel()).toFuture();
            await().atMost(Duration.ofSeconds(10)).until(queueLock::hasQueuedThreads);
            queueLock.unlock();

            assertThat(cancelled).succeedsWithin(Duration.ofSeconds(10));
            assertThat(timer.isDisposed()).isTrue();
            assertThat(BlockingCallGuard.violations()).isEmpty();
        } finally {
            scheduler.dispose();
            executor.awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
