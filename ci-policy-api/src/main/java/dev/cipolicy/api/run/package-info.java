/** Inputs and decisions of one CI run: the trigger, the resolved cadence and the run policy. */
@NullMarked
package dev.cipolicy.api.run;

import org.jspecify.annotations.NullMarked;
