package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
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
 * characters with a bounded amount of work, so a pathological pattern is reported, never run for ever: every
 * match goes through {@link #matchWhole}, which reads at most {@link #MATCH_BUDGET} characters, and a pattern
 * that could loop without reading (a counted repetition above {@link #MAX_REPETITION}, or one with a minimum of
 * 2 or more of a group, an anchor or a back reference) is rejected when the value is built.
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

  /**
   * The most characters one match may read: far more than any sane pattern needs on a 64-character name, far
   * less than a catastrophically backtracking one takes.
   */
  public static final int MATCH_BUDGET = 1_000_000;

  /**
   * The largest bound of a counted repetition ({@code {n}}, {@code {n,}}, {@code {n,m}}): 64, the longest
   * suite name, so a larger count never helps a name match.
   */
  public static final int MAX_REPETITION = 64;

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
   * Matches a whole name against the pattern, reading at most {@link #MATCH_BUDGET} characters: the one way
   * the library matches a name (a suite name or a job id) against the rule.
   *
   * @param name the name
   * @return the matcher after a successful whole match (its groups are readable), or empty when the name does
   *     not follow the rule
   * @throws BudgetExceededException when the match reads more than {@link #MATCH_BUDGET} characters
   */
  public Optional<Matcher> matchWhole(String name) {
    Matcher m = compiled().matcher(new BoundedChars(name, new int[] {MATCH_BUDGET}));
    try {
      return m.matches() ? Optional.of(m) : Optional.empty();
    } catch (BoundedChars.Exhausted e) {
      throw new BudgetExceededException(name);
    }
  }

  /** A match of the suite naming pattern that read more than {@link #MATCH_BUDGET} characters. */
  public static final class BudgetExceededException extends InvalidValueException {
    private static final long serialVersionUID = 1L;

    private final String name;

    /**
     * Creates the exception.
     *
     * @param name the name the pattern was matched against
     */
    public BudgetExceededException(String name) {
      super("SuiteNaming", List.of(new Problem("pattern", "takes more than " + MATCH_BUDGET + " steps")),
          "suite_naming.pattern: the suite naming pattern takes more than " + MATCH_BUDGET + " steps to match '"
              + name + "'; simplify it (no nested repetition)");
      this.name = name;
    }

    /**
     * The name being matched.
     *
     * @return the suite name or job id
     */
    public String name() {
      return name;
    }
  }

  /**
   * A name read through a budget of character reads, so that a pathological pattern stops with
   * {@link Exhausted} instead of backtracking for ever.
   */
  private static final class BoundedChars implements CharSequence {
    private final String text;
    private final int[] budget;

    BoundedChars(String text, int[] budget) {
      this.text = text;
      this.budget = budget;
    }

    @Override
    public int length() {
      return text.length();
    }

    @Override
    public char charAt(int index) {
      if (--budget[0] < 0) {
        throw new Exhausted();
      }
      return text.charAt(index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return new BoundedChars(text.substring(start, end), budget);
    }

    @Override
    public String toString() {
      return text;
    }

    /** The budget ran out. */
    static final class Exhausted extends RuntimeException {
      private static final long serialVersionUID = 1L;

      Exhausted() {
        super("match budget exhausted", null, false, false);
      }
    }
  }

  /**
   * Rejects an empty or too long pattern, one that does not compile, a named group outside {@link #GROUPS},
   * and a repetition that could loop without reading a character (see {@link #repetitionProblem}).
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
        Optional<String> repetition = repetitionProblem(pattern());
        check.require(repetition.isEmpty(), "pattern", () -> repetition.orElse(""));
      } catch (PatternSyntaxException e) {
        check.require(false, "pattern", () -> "regular expression does not compile: " + e.getDescription()
            + " near index " + e.getIndex());
      }
    }
    check.done();
  }

  /** What the last element before a quantifier was. */
  private enum Atom { NONE, CHARACTER, OTHER }

  /**
   * Why a compiled pattern may loop without reading a character, if it may. The character budget of
   * {@link #matchWhole} cannot stop a loop that reads nothing, and the regular expression engine repeats the
   * minimum of a counted repetition even when an iteration matches nothing, so {@code (?:^){2000000000}}
   * spins. Rejected: a bound above {@link #MAX_REPETITION}; a counted minimum of 2 or more on anything but a
   * single character, a character class or {@code .} (a group, an anchor, a back reference may match
   * nothing); and the comments flag {@code (?x)}, which this scan does not read.
   */
  static Optional<String> repetitionProblem(String p) {
    Atom prev = Atom.NONE;
    int i = 0;
    while (i < p.length()) {
      char c = p.charAt(i);
      switch (c) {
        case '\\' -> {
          char n = i + 1 < p.length() ? p.charAt(i + 1) : ' ';
          if (n == 'Q') {
            int end = p.indexOf("\\E", i + 2);
            i = end < 0 ? p.length() : end + 2;
            prev = Atom.CHARACTER;
            continue;
          }
          i += 2;
          if ((n == 'p' || n == 'P' || n == 'x' || n == 'N') && i < p.length() && p.charAt(i) == '{') {
            i = p.indexOf('}', i) + 1;
          } else if (n == 'k' && i < p.length() && p.charAt(i) == '<') {
            i = p.indexOf('>', i) + 1;
          } else if (n == 'c') {
            i++;
          }
          prev = "bBAGzZkR123456789".indexOf(n) >= 0 ? Atom.OTHER : Atom.CHARACTER;
        }
        case '[' -> {
          i = classEnd(p, i);
          prev = Atom.CHARACTER;
        }
        case '(' -> {
          int close = p.indexOf(')', i);
          int colon = p.indexOf(':', i);
          if (i + 1 < p.length() && p.charAt(i + 1) == '?' && close > i) {
            String head = p.substring(i + 2, colon > i && colon < close ? colon : close);
            if (head.matches("[a-zA-Z-]*") && head.indexOf('x') >= 0) {
              return Optional.of("the comments flag (?x) is not accepted in a suite naming pattern");
            }
          }
          i++;
          prev = Atom.NONE;
        }
        case ')' -> {
          i++;
          prev = Atom.OTHER;
        }
        case '^', '$' -> {
          i++;
          prev = Atom.OTHER;
        }
        case '|' -> {
          i++;
          prev = Atom.NONE;
        }
        case '*', '+', '?' -> {
          i++;
          if (i < p.length() && (p.charAt(i) == '?' || p.charAt(i) == '+')) {
            i++;
          }
          prev = Atom.OTHER;
        }
        case '{' -> {
          int end = p.indexOf('}', i);
          String[] bounds = p.substring(i + 1, end).split(",", -1);
          long min = parseBound(bounds[0]);
          long max = bounds.length > 1 && !bounds[1].isEmpty() ? parseBound(bounds[1]) : min;
          if (Math.max(min, max) > MAX_REPETITION) {
            return Optional.of("the counted repetition " + p.substring(i, end + 1) + " exceeds "
                + MAX_REPETITION + " (a suite name is at most 64 characters)");
          }
          if (min >= 2 && prev != Atom.CHARACTER) {
            return Optional.of("the counted repetition " + p.substring(i, end + 1) + " repeats a group, an"
                + " anchor or a back reference at least twice, which may match nothing and so loop without"
                + " reading; repeat a single character or class, or write the group out");
          }
          i = end + 1;
          if (i < p.length() && (p.charAt(i) == '?' || p.charAt(i) == '+')) {
            i++;
          }
          prev = Atom.OTHER;
        }
        default -> {
          i++;
          prev = Atom.CHARACTER;
        }
      }
    }
    return Optional.empty();
  }

  private static long parseBound(String digits) {
    String d = digits.strip();
    return d.length() > 10 ? Long.MAX_VALUE : Long.parseLong(d);
  }

  /** The index after the character class starting at {@code start}, nested classes and escapes included. */
  private static int classEnd(String p, int start) {
    int depth = 0;
    int i = start;
    while (i < p.length()) {
      char c = p.charAt(i);
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == '[') {
        depth++;
        i++;
        if (i < p.length() && p.charAt(i) == '^') {
          i++;
        }
        if (i < p.length() && p.charAt(i) == ']') {
          i++; // a ']' first in a class is a literal
        }
        continue;
      }
      if (c == ']' && --depth == 0) {
        return i + 1;
      }
      i++;
    }
    return p.length();
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
