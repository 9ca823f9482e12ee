/** Implementation details of the core module; not part of the public API. */
@NullMarked
package dev.cipolicy.core.internal;

import org.jspecify.annotations.NullMarked;
