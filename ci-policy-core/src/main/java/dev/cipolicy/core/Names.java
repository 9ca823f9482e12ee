package dev.cipolicy.core;

import java.util.regex.Pattern;

/** The name grammars shared by the checks: labels, cadences and suites must be shell-safe. */
final class Names {
  /** A label, cadence, event or host name: starts alphanumeric, then {@code [A-Za-z0-9_.-]}. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

  /** The label prefix: shell-safe characters only. */
  static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.-]+");

  /**
   * The stage grammar: {@code stage-<tier>-cpu} or {@code stage-<tier>-<gpus>-gpu-<hw>}, optional
   * {@code nightly-} prefix; group 1 is the tier, 2 the GPU count, 3 the hardware.
   */
  static final Pattern STAGE =
      Pattern.compile("(?:nightly-)?stage-([abc])-(?:cpu|([1-9][0-9]{0,2})-gpu-([a-z0-9]+))");

  /** A container image repository: lowercase path components, optionally with a registry host. */
  static final Pattern IMAGE_REPOSITORY = Pattern.compile(
      "(?:[a-z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*");

  private Names() {}
}
