package io.awareactive.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test class against a real PostgreSQL, and checks after each test that no blocking call was
 * made on a non-blocking thread: a shorthand for
 * {@code @ExtendWith({PostgresExtension.class, BlockingCallGuardExtension.class})}. Test classes need not call
 * {@link BlockingCallGuard#assertNoViolations()} themselves.
 *
 * <p>Test code receives a {@link TestDatabase} by declaring a parameter of that type in the
 * constructor or in a {@code @BeforeAll}, {@code @BeforeEach} or test method.
 *
 * @see PostgresExtension
 * @see BlockingCallGuardExtension
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith({PostgresExtension.class, BlockingCallGuardExtension.class})
public @interface AwaPostgresTest {
}
