package io.awareactive.testkit;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * Installs BlockHound once per JVM so a test fails when code blocks a Reactor non-blocking thread (a {@code
 * block()}, JDBC, {@code Thread.sleep}, a blocking socket or file write). Every detected call is recorded — so a test
 * can assert none happened even where the error was swallowed — and thrown as a {@link BlockingOperationError},
 * except a park (a wait for a lock or condition), which is only recorded: an error thrown out of a lock's wait would
 * leave that lock unusable for the rest of the JVM.
 *
 * <p>Logging frames are allow-listed: console and file appenders write with blocking I/O, which is a property of the
 * logging setup, not of the code under test. So is the cancellation of a Reactor periodic task (an interval), which
 * holds its executor's queue lock for a moment. Needs {@code io.projectreactor.tools:blockhound} on the test class path
 * and, on Java 13+, the JVM flag {@code -XX:+AllowRedefinitionToAddDeleteMethods}. Install it before any Reactor thread
 * exists: register {@link BlockingCallGuardListener} for the module's test runs.
 */
public final class BlockingCallGuard {

    private static final AtomicBoolean INSTALLED = new AtomicBoolean();

    /** Reactor's periodic task types, whose {@code dispose} cancels a scheduled future. */
    private static final List<String> PERIODIC_TASKS =
            List.of("PeriodicWorkerTask", "PeriodicSchedulerTask", "InstantPeriodicWorkerTask");

    private BlockingCallGuard() {
    }

    /** Installs BlockHound unless already installed in this JVM; safe to call from every test class. */
    public static void install() {
        if (!INSTALLED.compareAndSet(false, true)) {
            return;
        }
        // BlockHound.install(..) also loads the integrations on the class path (Reactor's marks its non-blocking
        // threads); a bare builder would detect nothing.
        BlockHound.install(builder -> {
            builder.allowBlockingCallsInside("ch.qos.logback.core.OutputStreamAppender", "writeBytes")
                    .allowBlockingCallsInside("ch.qos.logback.core.OutputStreamAppender", "subAppend")
                    .allowBlockingCallsInside("ch.qos.logback.core.rolling.RollingFileAppender", "subAppend")
                    .allowBlockingCallsInside("org.slf4j.simple.SimpleLogger", "write");
            // Cancelling a periodic task (an interval's timer) takes its executor's queue lock for a moment, as
            // cancelling a one-shot task does; Reactor's integration allows the latter's dispose, not the former's.
            for (String periodicTask : PERIODIC_TASKS) {
                builder.allowBlockingCallsInside("reactor.core.scheduler." + periodicTask, "dispose");
            }
            builder.blockingMethodCallback(method -> {
                BlockingCallRecord.add(method + " on " + Thread.currentThread().getName() + stackOf(new Throwable()));
                // A park is a wait for a lock or a condition. Thrown out of it, the error would leave the thread
                // queued on that lock, and later waiters behind it would never be woken: the lock, often a
                // scheduler's, would hang every later test of the JVM. Recorded, it still fails the test.
                if (!method.getName().equals("park")) {
                    throw new BlockingOperationError(method);
                }
            });
        });
    }

    /** The caller frames of a detection, so a report points at the code that blocked. */
    private static String stackOf(Throwable here) {
        StringBuilder frames = new StringBuilder();
        for (StackTraceElement frame : here.getStackTrace()) {
            String name = frame.getClassName();
            if (!name.startsWith("reactor.blockhound") && !name.startsWith("io.awareactive.testkit.BlockingCallGuard")) {
                frames.append("\n\tat ").append(frame);
            }
        }
        return frames.toString();
    }

    /**
     * The blocking calls detected since installation (or the last {@link #clear()}), oldest first.
     *
     * @return an immutable snapshot
     */
    public static List<String> violations() {
        return BlockingCallRecord.snapshot();
    }

    /** Forgets the recorded violations. */
    public static void clear() {
        BlockingCallRecord.clear();
    }

    /**
     * Throws when any blocking call was detected. {@link BlockingCallGuardExtension} (part of
     * {@link AwaPostgresTest}) runs this check after each test, so test classes do not call it.
     *
     * @throws AssertionError listing the detected calls
     */
    public static void assertNoViolations() {
        List<String> found = violations();
        if (!found.isEmpty()) {
            throw new AssertionError("blocking calls on non-blocking threads: " + found);
        }
    }
}
