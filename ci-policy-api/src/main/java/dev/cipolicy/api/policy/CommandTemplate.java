package dev.cipolicy.api.policy;

import java.util.Map;
import java.util.Optional;

/**
 * The grammar of one template of a {@link RunCommand}: literal text with {@link RunPlaceholder}s in braces,
 * <code>&#123;&#123;</code> and <code>&#125;&#125;</code> standing for a literal brace. A template is one argument, one image or one
 * environment value, rendered on its own: there is no shell, so a placeholder never splits into several
 * arguments and no character of a rendered value is interpreted.
 *
 * <pre>{@code
 * CommandTemplate.problem("--suite {suite}");           // empty: valid
 * CommandTemplate.render("--suite={suite}", Map.of(RunPlaceholder.SUITE, "unit")); // "--suite=unit"
 * }</pre>
 */
public final class CommandTemplate {
  /** The longest template, in characters: 4,096. */
  public static final int MAX_LENGTH = 4_096;

  private CommandTemplate() {}

  /**
   * What is wrong with a template, as one sentence that quotes it.
   *
   * @param template the template
   * @return the problem, absent for a valid template
   */
  public static Optional<String> problem(String template) {
    if (template.length() > MAX_LENGTH) {
      return Optional.of("the template '" + shown(template) + "' is " + template.length()
          + " characters long; expected at most " + MAX_LENGTH);
    }
    int i = 0;
    while (i < template.length()) {
      char c = template.charAt(i);
      if (c == '{') {
        if (i + 1 < template.length() && template.charAt(i + 1) == '{') {
          i += 2;
          continue;
        }
        int close = template.indexOf('}', i + 1);
        int nextOpen = template.indexOf('{', i + 1);
        if (close < 0 || (nextOpen >= 0 && nextOpen < close)) {
          return Optional.of("unclosed brace at index " + i + " in template '" + shown(template)
              + "'; expected a placeholder such as {suite}, one of " + RunPlaceholder.KNOWN
              + " (write {{ for a literal brace)");
        }
        String name = template.substring(i + 1, close);
        if (RunPlaceholder.of(name).isEmpty()) {
          return Optional.of("unknown placeholder {" + shown(name) + "} in template '" + shown(template)
              + "'; expected one of " + RunPlaceholder.KNOWN + " (write {{ and }} for literal braces)");
        }
        i = close + 1;
      } else if (c == '}') {
        if (i + 1 < template.length() && template.charAt(i + 1) == '}') {
          i += 2;
          continue;
        }
        return Optional.of("unmatched } at index " + i + " in template '" + shown(template)
            + "'; write }} for a literal brace");
      } else if (c == '\0') {
        return Optional.of("the template '" + shown(template) + "' contains a NUL character at index " + i
            + ", which no argument or environment value can hold");
      } else {
        i++;
      }
    }
    return Optional.empty();
  }

  /**
   * Renders a valid template: each placeholder is replaced by its value, <code>&#123;&#123;</code> and
   * <code>&#125;&#125;</code> by one brace. A value is inserted as it is and never read again, so braces in a value stay as they are.
   *
   * @param template a template without {@link #problem}
   * @param values the value of each placeholder
   * @return the rendered text
   * @throws IllegalArgumentException when the template is not valid or a value is missing (a bug of the caller)
   */
  public static String render(String template, Map<RunPlaceholder, String> values) {
    problem(template).ifPresent(p -> {
      throw new IllegalArgumentException(p);
    });
    StringBuilder out = new StringBuilder(template.length() + 16);
    int i = 0;
    while (i < template.length()) {
      char c = template.charAt(i);
      if ((c == '{' || c == '}') && i + 1 < template.length() && template.charAt(i + 1) == c) {
        out.append(c);
        i += 2;
      } else if (c == '{') {
        int close = template.indexOf('}', i + 1);
        RunPlaceholder p = RunPlaceholder.of(template.substring(i + 1, close)).orElseThrow();
        String value = values.get(p);
        if (value == null) {
          throw new IllegalArgumentException("no value for placeholder {" + p.token() + "}");
        }
        out.append(value);
        i = close + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static String shown(String text) {
    String oneLine = text.replace("\n", "\\n").replace("\r", "\\r");
    return oneLine.length() > 120 ? oneLine.substring(0, 120) + "..." : oneLine;
  }
}
