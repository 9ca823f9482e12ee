package dev.cipolicy.api.pattern;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A regular expression in RE2 syntax that names are matched against whole, in time linear in the length of the
 * pattern and of the name: a pattern a policy supplies can never backtrack. RE2 syntax is Java's without back
 * references, lookaround, possessive quantifiers and the comments flag; a pattern using them is refused when
 * compiled, with the index and what is not supported.
 *
 * <p>Limits: a pattern has at most {@link #MAX_LENGTH} characters; a counted repetition ({@code {n}},
 * {@code {n,}}, {@code {n,m}}), multiplied by the counted repetitions it is nested in, repeats at most
 * {@link #MAX_REPETITION} times (which bounds the compiled program, as RE2 expands counted repetitions); a name
 * longer than {@link #MAX_NAME_LENGTH} characters never matches.
 *
 * <pre>{@code
 * NamePattern p = NamePattern.compile("stage-(?<tier>[abc])-cpu");
 * p.matches("stage-a-cpu");                                            // true
 * p.matchWhole("stage-b-cpu").flatMap(m -> m.group("tier"));           // Optional[b]
 * }</pre>
 */
public final class NamePattern {
  /** The longest pattern accepted: 512 characters. */
  public static final int MAX_LENGTH = 512;

  /**
   * The most times a counted repetition repeats, nested counted repetitions multiplied: 64, the longest name
   * matched, so a larger count never helps a name match.
   */
  public static final int MAX_REPETITION = 64;

  /** The longest name matched: 64 characters (a suite name's limit); a longer name never matches. */
  public static final int MAX_NAME_LENGTH = 64;

  private final String regex;
  private final Pattern compiled;
  private final List<String> groupNames;

  private NamePattern(String regex, Pattern compiled) {
    this.regex = regex;
    this.compiled = compiled;
    List<Map.Entry<String, Integer>> named = new ArrayList<>(compiled.namedGroups().entrySet());
    named.sort(Map.Entry.comparingByValue(Comparator.naturalOrder()));
    this.groupNames = named.stream().map(Map.Entry::getKey).toList();
  }

  /**
   * Compiles a pattern.
   *
   * @param regex a regular expression in RE2 syntax
   * @return the compiled pattern
   * @throws InvalidValueException (value {@code NamePattern}, field {@code pattern}) when the pattern is too long,
   *     repeats too much or is not RE2 syntax; the message says where and why
   */
  public static NamePattern compile(String regex) {
    ValueCheck.of("NamePattern").atMost("pattern", regex.length(), MAX_LENGTH).done();
    Optional<String> repetition = repetitionProblem(regex);
    if (repetition.isPresent()) {
      throw new InvalidValueException("NamePattern", "pattern", repetition.get());
    }
    try {
      return new NamePattern(regex, Pattern.compile(regex));
    } catch (PatternSyntaxException e) {
      throw new InvalidValueException("NamePattern", "pattern", syntaxProblem(regex, e));
    }
  }

  /**
   * The pattern as written.
   *
   * @return the regular expression
   */
  public String regex() {
    return regex;
  }

  /**
   * The named groups of the pattern, in order of appearance.
   *
   * @return the group names, e.g. {@code [tier, gpus, hardware]}
   */
  public List<String> groupNames() {
    return groupNames;
  }

  /**
   * Whether a whole name matches.
   *
   * @param name the name
   * @return true when the pattern matches the whole name (never for a name over {@link #MAX_NAME_LENGTH}
   *     characters)
   */
  public boolean matches(String name) {
    return name.length() <= MAX_NAME_LENGTH && compiled.matches(name);
  }

  /**
   * Matches a whole name, capturing the named groups.
   *
   * @param name the name
   * @return the match, or empty when the name does not match whole or is longer than {@link #MAX_NAME_LENGTH}
   */
  public Optional<NameMatch> matchWhole(String name) {
    if (name.length() > MAX_NAME_LENGTH) {
      return Optional.empty();
    }
    Matcher m = compiled.matcher(name);
    if (!m.matches()) {
      return Optional.empty();
    }
    Map<String, String> groups = new LinkedHashMap<>();
    for (String g : groupNames) {
      @Nullable String text = m.group(g);
      if (text != null) {
        groups.put(g, text);
      }
    }
    return Optional.of(new NameMatch(name, groups));
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof NamePattern p && p.regex.equals(regex);
  }

  @Override
  public int hashCode() {
    return regex.hashCode();
  }

  @Override
  public String toString() {
    return regex;
  }

  /** The single-line message for a pattern RE2 does not accept: where, what, and a hint for Java-only syntax. */
  private static String syntaxProblem(String regex, PatternSyntaxException e) {
    String fragment = e.getPattern() == null ? "" : e.getPattern();
    int at = Math.max(0, fragment.isEmpty() ? 0 : regex.indexOf(fragment));
    String what;
    if (fragment.startsWith("(?=") || fragment.startsWith("(?!")) {
      what = "lookahead is not supported";
    } else if (fragment.startsWith("(?<=") || fragment.startsWith("(?<!")) {
      what = "lookbehind is not supported";
    } else if (fragment.matches("\\\\[1-9k].*")) {
      what = "back references are not supported";
    } else if (fragment.matches("[*+?}][+]")) {
      what = "possessive quantifiers are not supported";
    } else {
      what = e.getDescription();
    }
    return "not RE2 syntax at index " + at + ": " + what + " (" + e.getDescription() + ": '"
        + fragment.replaceAll("[\\r\\n]", " ") + "')";
  }

  /**
   * Why a pattern would compile to too big a program, if it would: a counted repetition whose count, multiplied
   * by the counts of the counted repetitions around it, is above {@link #MAX_REPETITION}. Reads RE2 syntax
   * (escapes, {@code \Q...\E}, classes with {@code [:name:]}, groups); a pattern that is not RE2 syntax may be
   * read loosely, since RE2 refuses it before building anything.
   */
  static Optional<String> repetitionProblem(String p) {
    Deque<long[]> groups = new ArrayDeque<>(); // per open group: the largest product inside it
    groups.push(new long[] {1});
    long last = 1; // the product of the last atom
    int i = 0;
    while (i < p.length()) {
      char c = p.charAt(i);
      switch (c) {
        case '\\' -> {
          char n = i + 1 < p.length() ? p.charAt(i + 1) : ' ';
          if (n == 'Q') {
            int end = p.indexOf("\\E", i + 2);
            i = end < 0 ? p.length() : end + 2;
          } else {
            i += 2;
            if ((n == 'p' || n == 'P' || n == 'x') && i < p.length() && p.charAt(i) == '{') {
              int end = p.indexOf('}', i);
              i = end < 0 ? p.length() : end + 1;
            }
          }
          last = 1;
        }
        case '[' -> {
          i = classEnd(p, i);
          last = 1;
        }
        case '(' -> {
          groups.push(new long[] {1});
          i++;
          last = 1;
        }
        case ')' -> {
          last = groups.size() > 1 ? groups.pop()[0] : 1;
          groups.peek()[0] = Math.max(groups.peek()[0], last);
          i++;
        }
        case '{' -> {
          int end = p.indexOf('}', i);
          String body = end < 0 ? "" : p.substring(i + 1, end);
          if (!body.matches("[0-9]+(,[0-9]*)?")) {
            i++; // a literal brace, as RE2 reads it
            last = 1;
            continue;
          }
          String[] bounds = body.split(",", -1);
          long count = Math.max(bound(bounds[0]), bounds.length > 1 ? bound(bounds[1]) : 0);
          String rep = p.substring(i, end + 1);
          if (count > MAX_REPETITION) {
            return Optional.of("the counted repetition " + rep + " at index " + i + " exceeds " + MAX_REPETITION
                + ", the longest name matched");
          }
          last = last * Math.max(count, 1);
          if (last > MAX_REPETITION) {
            return Optional.of("the counted repetition " + rep + " at index " + i + " repeats " + last
                + " times with the counted repetitions it is nested in; at most " + MAX_REPETITION
                + ", the longest name matched");
          }
          groups.peek()[0] = Math.max(groups.peek()[0], last);
          i = end + 1;
        }
        default -> {
          i++;
          if (c != '*' && c != '+' && c != '?' && c != '|') {
            last = 1;
          }
        }
      }
    }
    return Optional.empty();
  }

  private static long bound(String digits) {
    return digits.isEmpty() ? 0 : digits.length() > 10 ? Long.MAX_VALUE / 2 : Long.parseLong(digits);
  }

  /**
   * The index after the character class starting at {@code start}, read as RE2 does: a {@code ]} first (after an
   * optional {@code ^}) is a literal, {@code [:name:]} is a named class, any other {@code [} is a literal.
   */
  private static int classEnd(String p, int start) {
    int i = start + 1;
    if (i < p.length() && p.charAt(i) == '^') {
      i++;
    }
    if (i < p.length() && p.charAt(i) == ']') {
      i++;
    }
    while (i < p.length()) {
      char c = p.charAt(i);
      if (c == '\\') {
        i += 2;
      } else if (c == '[' && i + 1 < p.length() && p.charAt(i + 1) == ':') {
        int end = p.indexOf(":]", i + 2);
        i = end < 0 ? i + 1 : end + 2;
      } else if (c == ']') {
        return i + 1;
      } else {
        i++;
      }
    }
    return p.length();
  }
}
