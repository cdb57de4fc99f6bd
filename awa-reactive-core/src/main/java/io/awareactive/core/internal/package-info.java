/**
 * Implementation details of awa-reactive core: SQL, schema DDL, transactions. Not a public API; it may change
 * in any release.
 */
@NullMarked
package io.awareactive.core.internal;

import org.jspecify.annotations.NullMarked;
