/**
 * Internals of the Spring Boot starter: not an API, may change in any release.
 */
@NullMarked
package io.awareactive.spring.boot.internal;

import org.jspecify.annotations.NullMarked;
