package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.immutables.value.Value;

/**
 * A policy's own rule for suite names: a Java regular expression every suite name must match whole. Its
 * named groups {@code gpus} and {@code hardware}, when present, tie the name to the suite's fields (a name
 * whose {@code gpus} group matched {@code 4} belongs to a suite with {@code gpus: 4}; a name where the group
 * did not take part belongs to a CPU suite); a group {@code tier} only documents a part of the name. The
 * pattern is at most {@link #MAX_PATTERN_LENGTH} characters and is matched against suite names of at most 64
 * characters with a bounded amount of work, so a pathological pattern is reported, never run for ever.
 *
 * <pre>{@code
 * SuiteNaming.builder().pattern("stage-(?<tier>[abc])-(?:cpu|(?<gpus>[1-9][0-9]*)-gpu-(?<hardware>[a-z0-9]+))")
 *     .description("stage-<tier>-cpu or stage-<tier>-<gpus>-gpu-<hardware>").build();
 * }</pre>
 */
@Value.Immutable
@ValueStyle
public abstract class SuiteNaming {
  /** The longest pattern accepted: 512 characters. */
  public static final int MAX_PATTERN_LENGTH = 512;

  /** The named groups a pattern may have; any other named group is a mistake (e.g. {@code gpu}). */
  public static final List<String> GROUPS = List.of("gpus", "hardware", "tier");

  private static final Pattern NAMED_GROUP = Pattern.compile("\\(\\?<([A-Za-z][A-Za-z0-9]*)>");

  /**
   * The regular expression a suite name must match whole.
   *
   * @return a Java regular expression of at most {@link #MAX_PATTERN_LENGTH} characters
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
  public Pattern compiled() {
    return Pattern.compile(pattern());
  }

  /**
   * The named groups the pattern declares, in order of appearance.
   *
   * @return a subset of {@link #GROUPS}
   */
  @Value.Lazy
  public Set<String> groups() {
    Set<String> out = new LinkedHashSet<>();
    Matcher m = NAMED_GROUP.matcher(pattern());
    while (m.find()) {
      out.add(m.group(1));
    }
    return Collections.unmodifiableSet(out);
  }

  /**
   * Rejects an empty or too long pattern, one that does not compile, and a named group outside
   * {@link #GROUPS}.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck check = ValueCheck.of("SuiteNaming").nonEmpty("pattern", pattern())
        .atMost("pattern", pattern().length(), MAX_PATTERN_LENGTH);
    if (!pattern().isEmpty() && pattern().length() <= MAX_PATTERN_LENGTH) {
      try {
        Pattern.compile(pattern());
        Matcher m = NAMED_GROUP.matcher(pattern());
        while (m.find()) {
          String group = m.group(1);
          check.require(GROUPS.contains(group), "pattern", () -> "named group '" + group
              + "' is not one of " + GROUPS);
        }
      } catch (PatternSyntaxException e) {
        check.require(false, "pattern", () -> "regular expression does not compile: " + e.getDescription()
            + " near index " + e.getIndex());
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
