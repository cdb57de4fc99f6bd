package io.awareactive.testkit;

import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestPlan;

/**
 * Installs {@link BlockingCallGuard} when a test run starts, before any test class creates a Reactor thread.
 *
 * <p>BlockHound cannot judge a thread that was already parked inside its pool's task queue when it was installed: the
 * thread keeps running the queue code as it was loaded, without BlockHound's allowance for idle waits, so its next idle
 * wait is reported as a blocking call. Installing from the first test class that needs the guard is therefore not
 * enough when test classes run in random order. A module opts in by listing this class in
 * {@code src/test/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener}; the JUnit Platform
 * then calls it in every test JVM of that module, unit and integration.
 */
public final class BlockingCallGuardListener implements TestExecutionListener {

    /** Creates the listener; the JUnit Platform does, through the service file. */
    public BlockingCallGuardListener() {
    }

    /**
     * Installs the guard (once per JVM).
     *
     * @param testPlan the plan about to run
     */
    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        BlockingCallGuard.install();
    }
}
