package dev.cipolicy.core;

import java.util.regex.Pattern;

/**
 * The name grammars shared by the checks: labels, cadences and hosts must be shell-safe (a suite name's
 * grammar is {@code Suite.NAME_GRAMMAR}, checked by the suite itself).
 */
final class Names {
  /** A label, cadence, event or host name: starts alphanumeric, then {@code [A-Za-z0-9_.-]}. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

  /** The label prefix: shell-safe characters only. */
  static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.-]+");

  /** A container image repository: lowercase path components, optionally with a registry host. */
  static final Pattern IMAGE_REPOSITORY = Pattern.compile(
      "(?:[a-z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*");

  private Names() {}
}
