/**
 * The job queue's values: requests, jobs, leases, specs, devices, fleet shares and wait reasons. Every value checks its rules when it is built.
 */
@NullMarked
package dev.cipolicy.queue.model;

import org.jspecify.annotations.NullMarked;
