package dev.cipolicy.testkit.golden;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One named rewrite applied to a recording's text before it is compared: every match of a pattern is
 * replaced. Immutable.
 *
 * @param name what the rule is for, unique within its {@link Scrubbers}
 * @param pattern what to replace
 * @param replacement the replacement, which may refer to groups as {@code $1} for a regex rule
 */
public record Scrubber(String name, Pattern pattern, String replacement) {
  /**
   * Checks the name.
   *
   * @param name the rule name
   * @param pattern the pattern
   * @param replacement the replacement
   */
  public Scrubber {
    if (name.isBlank()) {
      throw new SnapshotConfigurationException("a scrubber needs a name; got a blank one for pattern " + pattern);
    }
  }

  /**
   * Replaces a literal text.
   *
   * @param name the rule name
   * @param text the text
   * @param replacement its replacement (literal)
   * @return the rule
   * @throws SnapshotConfigurationException when {@code text} is empty
   */
  public static Scrubber literal(String name, String text, String replacement) {
    if (text.isEmpty()) {
      throw new SnapshotConfigurationException("scrubber '" + name + "' would replace the empty text");
    }
    return new Scrubber(name, Pattern.compile(Pattern.quote(text)), Matcher.quoteReplacement(replacement));
  }

  /**
   * Replaces a regular expression.
   *
   * @param name the rule name
   * @param regex the expression
   * @param replacement its replacement ({@code $1} refers to a group)
   * @return the rule
   * @throws SnapshotConfigurationException naming the rule when the expression does not compile
   */
  public static Scrubber regex(String name, String regex, String replacement) {
    try {
      return new Scrubber(name, Pattern.compile(regex), replacement);
    } catch (PatternSyntaxException e) {
      throw new SnapshotConfigurationException("scrubber '" + name + "': bad regular expression: " + e.getMessage(), e);
    }
  }

  /**
   * Replaces a directory wherever it appears as a whole path prefix (so {@code /work/repo} does not match
   * inside {@code /work/repo-old}), under both its normalised absolute form and its real form when the two
   * differ (a symbolic link such as a temporary directory on macOS).
   *
   * @param name the rule name
   * @param directory the directory
   * @param placeholder its replacement, e.g. {@code <SANDBOX>}
   * @return the rule
   */
  public static Scrubber path(String name, Path directory, String placeholder) {
    Set<String> forms = new LinkedHashSet<>();
    Path absolute = directory.toAbsolutePath().normalize();
    try {
      forms.add(absolute.toRealPath().toString());
    } catch (IOException e) {
      // A directory that does not exist (yet) has only its absolute form.
    }
    forms.add(absolute.toString());
    StringBuilder alternatives = new StringBuilder();
    // Longest first, so that a real path extending the absolute one wins.
    forms.stream().sorted((a, b) -> b.length() - a.length()).forEach(f -> {
      if (alternatives.length() > 0) {
        alternatives.append('|');
      }
      alternatives.append(Pattern.quote(f));
    });
    return new Scrubber(name, Pattern.compile("(?:" + alternatives + ")(?![A-Za-z0-9._-])"),
        Matcher.quoteReplacement(placeholder));
  }

  /**
   * Applies the rule.
   *
   * @param text the text
   * @return the text with every match replaced
   */
  public String apply(String text) {
    return pattern.matcher(text).replaceAll(replacement);
  }
}
