package dev.cipolicy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.util.Optional;

/**
 * The process that waits for, or holds, a {@code fleet lease} job, as the job's arguments record it:
 * {@code {"v":1,"kind":"fleet-lease","host":"h200-0","pid":4242,"start":"2026-12-06T05:02:30.120Z",
 * "pidns":"pid:[4026531836]"}}. Any lease process of the same host reads it to tell whether the job's owner still
 * runs (its pid alive with the same start time), so that a waiter that died without cancelling does not hold the
 * host's queue. A process in another pid namespace (another container) cannot tell, and takes the owner for alive.
 *
 * @param host the host the owner runs on
 * @param pid the owner's process id
 * @param start the owner's start time, when the system reports one
 * @param pidNamespace the owner's pid namespace ({@code /proc/self/ns/pid}), when the system has one
 */
record LeaseOwner(String host, long pid, Optional<Instant> start, Optional<String> pidNamespace) {
  static final String KIND = "fleet-lease";
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  /** This process on a host. */
  static LeaseOwner current(String host) {
    ProcessHandle self = ProcessHandle.current();
    return new LeaseOwner(host, self.pid(), self.info().startInstant(), namespace());
  }

  /** This process's pid namespace, e.g. {@code pid:[4026531836]}; empty where there is none to read. */
  static Optional<String> namespace() {
    try {
      return Optional.of(java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/ns/pid")).toString());
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return Optional.empty();
    }
  }

  /** The owner recorded in a job's arguments; empty when they are not a fleet lease's. */
  static Optional<LeaseOwner> read(Optional<String> args) {
    if (args.isEmpty()) {
      return Optional.empty();
    }
    try {
      JsonNode n = JSON.readTree(args.get());
      if (n == null || !n.path("v").isInt() || n.path("v").intValue() != 1 || !KIND.equals(n.path("kind").asText())
          || !n.path("host").isTextual() || !n.path("pid").canConvertToLong()) {
        return Optional.empty();
      }
      Optional<Instant> start = n.path("start").isTextual()
          ? Optional.of(Instant.parse(n.path("start").asText())) : Optional.empty();
      Optional<String> ns = n.path("pidns").isTextual() ? Optional.of(n.path("pidns").asText()) : Optional.empty();
      return Optional.of(new LeaseOwner(n.path("host").asText(), n.path("pid").longValue(), start, ns));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The job arguments that record this owner. */
  String toArgs() {
    ObjectNode n = JSON.createObjectNode();
    n.put("v", 1).put("kind", KIND).put("host", host).put("pid", pid);
    start.ifPresent(s -> n.put("start", s.toString()));
    pidNamespace.ifPresent(s -> n.put("pidns", s));
    return n.toString();
  }

  /**
   * Whether the owner still runs: only meaningful on its own host, where a pid names a process of this machine.
   * A pid reused by another process has another start time; an owner in another pid namespace than this process
   * is taken for alive (its pid means nothing here).
   */
  boolean alive() {
    if (!pidNamespace.equals(namespace())) {
      return true;
    }
    Optional<ProcessHandle> h = ProcessHandle.of(pid);
    if (h.isEmpty() || !h.get().isAlive()) {
      return false;
    }
    return start.isEmpty() || h.get().info().startInstant().map(start.get()::equals).orElse(true);
  }
}
