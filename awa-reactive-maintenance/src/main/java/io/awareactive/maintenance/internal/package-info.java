/**
 * Implementation of the maintenance engine: the serial task loop, leader election, metrics recorder, diagnostics
 * and blocker queries. Not a public API; it may change in any release.
 */
@NullMarked
package io.awareactive.maintenance.internal;

import org.jspecify.annotations.NullMarked;
