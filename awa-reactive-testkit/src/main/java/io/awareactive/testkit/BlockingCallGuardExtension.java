package io.awareactive.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test when {@link BlockingCallGuard} detected a blocking call on a non-blocking thread while it ran (its
 * {@code @BeforeEach}, body and {@code @AfterEach}), and a test class when one was detected in its {@code @AfterAll}
 * methods. The recorded calls are cleared with each report, so the next test starts clean. Needs the guard installed
 * ({@link BlockingCallGuardListener}); without it this extension does nothing.
 *
 * <p>{@link AwaPostgresTest} includes this check; use {@code @ExtendWith(BlockingCallGuardExtension.class)} in test
 * classes that manage their own server.
 */
public final class BlockingCallGuardExtension implements AfterEachCallback, AfterAllCallback {

    /** Creates the extension; JUnit does this for {@code @ExtendWith}. */
    public BlockingCallGuardExtension() {
    }

    /**
     * Checks the calls recorded since the last check (runs after the test's {@code @AfterEach} methods).
     *
     * @param context the test's context
     * @throws AssertionError listing the detected calls
     */
    @Override
    public void afterEach(ExtensionContext context) {
        BlockingCallRecord.checkAndClear(context.getDisplayName());
    }

    /**
     * Checks the calls recorded in the class's {@code @AfterAll} methods.
     *
     * @param context the test class's context
     * @throws AssertionError listing the detected calls
     */
    @Override
    public void afterAll(ExtensionContext context) {
        BlockingCallRecord.checkAndClear(context.getDisplayName());
    }
}
