/** JMH benchmarks of ci-policy; run on demand, see docs/performance.md. */
@NullMarked
package dev.cipolicy.benchmarks;

import org.jspecify.annotations.NullMarked;
