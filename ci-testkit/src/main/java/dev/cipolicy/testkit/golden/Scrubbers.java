package dev.cipolicy.testkit.golden;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An ordered list of named {@link Scrubber}s, applied one after the other. The standard list replaces
 * the sandbox with {@value #SANDBOX} and then the repository root with {@value #REPO_ROOT}; the sandbox
 * comes first because it may lie inside the repository (a {@code target/} directory). Immutable.
 */
public final class Scrubbers {
  /** The placeholder of the launch's sandbox directory. */
  public static final String SANDBOX = "<SANDBOX>";

  /** The placeholder of the repository root. */
  public static final String REPO_ROOT = "<REPO_ROOT>";

  private final List<Scrubber> rules;

  private Scrubbers(List<Scrubber> rules) {
    this.rules = List.copyOf(rules);
  }

  /**
   * No rule.
   *
   * @return the empty list
   */
  public static Scrubbers none() {
    return new Scrubbers(List.of());
  }

  /**
   * The standard rules: {@code sandbox} then {@code repository root}.
   *
   * @param sandbox the sandbox directory
   * @param repositoryRoot the repository root
   * @return the rules
   */
  public static Scrubbers standard(Path sandbox, Path repositoryRoot) {
    return none().then(Scrubber.path("sandbox", sandbox, SANDBOX))
        .then(Scrubber.path("repository root", repositoryRoot, REPO_ROOT));
  }

  /**
   * These rules followed by one more.
   *
   * @param rule the rule, applied after these
   * @return a new list
   * @throws SnapshotConfigurationException when a rule of that name is already in the list
   */
  public Scrubbers then(Scrubber rule) {
    if (rules.stream().anyMatch(r -> r.name().equals(rule.name()))) {
      throw new SnapshotConfigurationException("a scrubber named '" + rule.name() + "' is already in " + names());
    }
    List<Scrubber> more = new ArrayList<>(rules);
    more.add(rule);
    return new Scrubbers(more);
  }

  /**
   * These rules followed by others.
   *
   * @param others rules applied after these, in order
   * @return a new list
   * @throws SnapshotConfigurationException for a repeated name
   */
  public Scrubbers then(List<Scrubber> others) {
    Scrubbers s = this;
    for (Scrubber r : others) {
      s = s.then(r);
    }
    return s;
  }

  /**
   * The rules, in order.
   *
   * @return the rules
   */
  public List<Scrubber> rules() {
    return rules;
  }

  /**
   * The rule names, in order.
   *
   * @return the names
   */
  public List<String> names() {
    return rules.stream().map(Scrubber::name).toList();
  }

  /**
   * Applies every rule in order.
   *
   * @param text the text
   * @return the scrubbed text
   */
  public String apply(String text) {
    String t = text;
    for (Scrubber r : rules) {
      t = r.apply(t);
    }
    return t;
  }
}
