package io.awareactive.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test class against a real PostgreSQL: a shorthand for
 * {@code @ExtendWith(PostgresExtension.class)}.
 *
 * <p>Test code receives a {@link TestDatabase} by declaring a parameter of that type in the
 * constructor or in a {@code @BeforeAll}, {@code @BeforeEach} or test method.
 *
 * @see PostgresExtension
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(PostgresExtension.class)
public @interface AwaPostgresTest {
}
