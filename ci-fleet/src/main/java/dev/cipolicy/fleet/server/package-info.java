/**
 * The fleet server's HTTP rules that do not depend on a web framework: {@link dev.cipolicy.fleet.server.RequestGuard}
 * decides which requests the server answers (the host it serves, same-origin writes) and the security headers of
 * every answer.
 */
@NullMarked
package dev.cipolicy.fleet.server;

import org.jspecify.annotations.NullMarked;
