/** Cron schedules behind ci-policy's own types; the only package that touches cron-utils. */
@NullMarked
package dev.cipolicy.core.schedule;

import org.jspecify.annotations.NullMarked;
