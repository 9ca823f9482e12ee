/**
 * The fleet server: {@link dev.cipolicy.fleet.server.FleetServer} runs the site loop
 * ({@link dev.cipolicy.fleet.server.FleetSite}) over a job queue and serves the status page and its JSON API
 * (the documents of {@link dev.cipolicy.fleet.server.Api}, built by {@link dev.cipolicy.fleet.server.FleetView});
 * {@link dev.cipolicy.fleet.server.RequestGuard} decides which requests it answers (the host it serves,
 * same-origin writes) and the security headers of every answer. The page's script and style ship in this jar;
 * there is no front-end build step.
 */
@NullMarked
package dev.cipolicy.fleet.server;

import org.jspecify.annotations.NullMarked;
