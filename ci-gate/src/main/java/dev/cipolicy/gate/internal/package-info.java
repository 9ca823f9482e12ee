/** Implementation details of the gate (statistics, number rendering); not part of the public API. */
@NullMarked
package dev.cipolicy.gate.internal;

import org.jspecify.annotations.NullMarked;
