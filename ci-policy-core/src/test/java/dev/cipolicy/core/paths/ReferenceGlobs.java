package dev.cipolicy.core.paths;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * A deliberately simple reference for {@link GlobSet}: each glob becomes one {@link java.util.regex}
 * pattern (its brace alternatives joined with {@code |}), and the globs are tried one by one. It assumes
 * a valid glob; validation is {@link GlobSet}'s job.
 */
final class ReferenceGlobs {
  private ReferenceGlobs() {}

  /** The lowest index of a glob whose pattern matches the whole path. */
  static OptionalInt firstMatch(List<String> globs, String path) {
    for (int i = 0; i < globs.size(); i++) {
      if (toPattern(globs.get(i)).matcher(path).matches()) {
        return OptionalInt.of(i);
      }
    }
    return OptionalInt.empty();
  }

  /** The regular expression of one valid glob. */
  static Pattern toPattern(String glob) {
    List<String> alternatives = new ArrayList<>();
    for (List<String> lexemes : expand(lex(glob))) {
      alternatives.add("(?:" + translate(lexemes) + ")");
    }
    return Pattern.compile(String.join("|", alternatives), Pattern.DOTALL);
  }

  /**
   * The glob as parts, each a list of alternatives, each a list of lexemes: {@code \x}, a run of
   * {@code *}, {@code ?}, a whole {@code [...]} class, or one other character.
   */
  private static List<List<List<String>>> lex(String glob) {
    List<List<List<String>>> parts = new ArrayList<>();
    List<List<String>> group = null;
    List<String> current = new ArrayList<>();
    int i = 0;
    while (i < glob.length()) {
      int start = i;
      int c = glob.codePointAt(i);
      i += Character.charCount(c);
      if (c == '\\') {
        i += Character.charCount(glob.codePointAt(i));
        current.add(glob.substring(start, i));
      } else if (c == '*') {
        while (i < glob.length() && glob.charAt(i) == '*') {
          i++;
        }
        current.add(glob.substring(start, i));
      } else if (c == '[') {
        if (glob.charAt(i) == '!') {
          i++;
        }
        while (glob.charAt(i) != ']') {
          i += glob.charAt(i) == '\\' ? 1 + Character.charCount(glob.codePointAt(i + 1))
              : Character.charCount(glob.codePointAt(i));
        }
        i++;
        current.add(glob.substring(start, i));
      } else if (c == '{' && group == null) {
        parts.add(List.of(current));
        group = new ArrayList<>();
        current = new ArrayList<>();
      } else if (c == ',' && group != null) {
        group.add(current);
        current = new ArrayList<>();
      } else if (c == '}' && group != null) {
        group.add(current);
        parts.add(group);
        group = null;
        current = new ArrayList<>();
      } else {
        current.add(glob.substring(start, i));
      }
    }
    parts.add(List.of(current));
    return parts;
  }

  private static List<List<String>> expand(List<List<List<String>>> parts) {
    List<List<String>> out = List.of(List.of());
    for (List<List<String>> part : parts) {
      List<List<String>> next = new ArrayList<>();
      for (List<String> prefix : out) {
        for (List<String> choice : part) {
          List<String> joined = new ArrayList<>(prefix);
          joined.addAll(choice);
          next.add(joined);
        }
      }
      out = next;
    }
    return out;
  }

  private static boolean isSlash(String lexeme) {
    return lexeme.equals("/") || lexeme.equals("\\/");
  }

  private static String translate(List<String> lexemes) {
    StringBuilder re = new StringBuilder();
    boolean atStart = true;
    boolean afterSlash = false;
    for (int k = 0; k < lexemes.size(); k++) {
      String lx = lexemes.get(k);
      if (lx.startsWith("**")) {
        boolean slashNext = k + 1 < lexemes.size() && isSlash(lexemes.get(k + 1));
        if ((atStart || afterSlash) && slashNext) {
          re.append("(?:.*/)?");
          k++;
          atStart = false;
          afterSlash = true;
          continue;
        }
        re.append(afterSlash && k + 1 == lexemes.size() ? ".+" : ".*");
      } else if (lx.equals("*")) {
        re.append("[^/]*");
      } else if (lx.equals("?")) {
        re.append("[^/]");
      } else if (lx.startsWith("[")) {
        re.append(translateClass(lx));
      } else if (lx.startsWith("\\")) {
        re.append(Pattern.quote(lx.substring(1)));
      } else {
        re.append(Pattern.quote(lx));
      }
      atStart = false;
      afterSlash = isSlash(lx);
    }
    return re.toString();
  }

  private static String translateClass(String lx) {
    String body = lx.substring(1, lx.length() - 1);
    boolean negated = body.startsWith("!");
    List<Integer> chars = new ArrayList<>();
    int i = negated ? 1 : 0;
    while (i < body.length()) {
      int c = body.codePointAt(i);
      i += Character.charCount(c);
      if (c == '\\') {
        c = body.codePointAt(i);
        i += Character.charCount(c);
      }
      chars.add(c);
      // A '-' that is not last, right after a character, makes a range with the next one.
      if (i + 1 < body.length() && body.charAt(i) == '-') {
        i++;
        int hi = body.codePointAt(i);
        i += Character.charCount(hi);
        if (hi == '\\') {
          hi = body.codePointAt(i);
          i += Character.charCount(hi);
        }
        chars.add(-hi);
      }
    }
    // A class never matches '/', even through a range that spans it (e.g. [*-a]): intersect with [^/].
    StringBuilder re = new StringBuilder(negated ? "[^/" : "[[");
    for (int c : chars) {
      if (c < 0) {
        re.append('-');
      }
      re.append("\\x{").append(Integer.toHexString(Math.abs(c))).append('}');
    }
    return re.append(negated ? "]" : "]&&[^/]]").toString();
  }
}
