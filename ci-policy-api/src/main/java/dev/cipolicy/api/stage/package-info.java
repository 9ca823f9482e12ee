/** Which PR stages a change needs, and which it may skip, with the reason for each stage. */
@NullMarked
package dev.cipolicy.api.stage;

import org.jspecify.annotations.NullMarked;
