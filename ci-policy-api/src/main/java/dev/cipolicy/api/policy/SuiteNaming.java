package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.pattern.NameMatch;
import dev.cipolicy.api.pattern.NamePattern;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.immutables.value.Value;

/**
 * A policy's own rule for suite names: a regular expression in RE2 syntax (a {@link NamePattern}) every suite
 * name must match whole. Its named groups {@code gpus} and {@code hardware}, when present, tie the name to the
 * suite's fields (a name whose {@code gpus} group matched {@code 4} belongs to a suite with {@code gpus: 4}; a
 * name where the group did not take part belongs to a CPU suite); a group {@code tier} only documents a part of
 * the name. The pattern is at most {@link #MAX_PATTERN_LENGTH} characters, and every match (of a suite name or,
 * in workflow lint, of a job id) takes time linear in the pattern and the name: RE2 never backtracks.
 *
 * <pre>{@code
 * SuiteNaming.builder().pattern("stage-(?<tier>[abc])-(?:cpu|(?<gpus>[1-9][0-9]*)-gpu-(?<hardware>[a-z0-9]+))")
 *     .description("stage-<tier>-cpu or stage-<tier>-<gpus>-gpu-<hardware>").build();
 * }</pre>
 */
@Value.Immutable
@ValueStyle
public abstract class SuiteNaming {
  /** The longest pattern accepted: 512 characters ({@link NamePattern#MAX_LENGTH}). */
  public static final int MAX_PATTERN_LENGTH = NamePattern.MAX_LENGTH;

  /** The named groups a pattern may have; any other named group is a mistake (e.g. {@code gpu}). */
  public static final List<String> GROUPS = List.of("gpus", "hardware", "tier");

  /**
   * The regular expression a suite name must match whole.
   *
   * @return a regular expression in RE2 syntax of at most {@link #MAX_PATTERN_LENGTH} characters
   */
  public abstract String pattern();

  /**
   * The rule in words, quoted in the message about a name that breaks it.
   *
   * @return e.g. {@code stage-<tier>-<gpus>-gpu-<hardware>}, possibly empty
   */
  @Value.Default
  public String description() {
    return "";
  }

  /**
   * The compiled pattern.
   *
   * @return the pattern, compiled once
   */
  @Value.Lazy
  public NamePattern compiled() {
    return NamePattern.compile(pattern());
  }

  /**
   * The named groups the pattern declares, in order of appearance.
   *
   * @return a subset of {@link #GROUPS}
   */
  @Value.Lazy
  public Set<String> groups() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(compiled().groupNames()));
  }

  /**
   * Matches a whole name against the pattern in linear time: the one way the library matches a name (a suite
   * name or a job id) against the rule.
   *
   * @param name the name
   * @return the match (its named groups are readable), or empty when the name does not follow the rule (a name
   *     over {@link NamePattern#MAX_NAME_LENGTH} characters never does)
   */
  public Optional<NameMatch> matchWhole(String name) {
    return compiled().matchWhole(name);
  }

  /**
   * Rejects an empty or too long pattern, one that is not RE2 syntax or repeats too much (see
   * {@link NamePattern#compile}), and a named group outside {@link #GROUPS}.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck check = ValueCheck.of("SuiteNaming").nonEmpty("pattern", pattern());
    if (!pattern().isEmpty()) {
      try {
        for (String group : NamePattern.compile(pattern()).groupNames()) {
          check.require(GROUPS.contains(group), "pattern", () -> "named group '" + group
              + "' is not one of " + GROUPS);
        }
      } catch (InvalidValueException e) {
        e.problems().forEach(p -> check.require(false, "pattern", p::message));
      }
    }
    check.done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link SuiteNaming}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableSuiteNaming.Builder {
    Builder() {}
  }
}
