/** Implementation details of the API module; not part of the public API. */
@NullMarked
package dev.cipolicy.api.internal;

import org.jspecify.annotations.NullMarked;
