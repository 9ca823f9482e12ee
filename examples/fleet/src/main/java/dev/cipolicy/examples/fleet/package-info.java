/** The reference fleet example: simulated GPU hosts on the job queue, with a live status page. */
@NullMarked
package dev.cipolicy.examples.fleet;

import org.jspecify.annotations.NullMarked;
