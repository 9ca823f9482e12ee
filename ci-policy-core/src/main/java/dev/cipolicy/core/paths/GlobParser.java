package dev.cipolicy.core.paths;

import java.util.ArrayList;
import java.util.List;

/**
 * The parser of one glob into its brace-free alternatives, each a list of {@link Token}s; a glob
 * without braces has exactly one alternative. Braces are expanded token by token, so adjacent
 * {@code *} from different parts of a group never merge into {@code **}.
 */
final class GlobParser {

  /** The most alternatives one glob may expand to (the product of its groups' sizes). */
  static final int MAX_ALTERNATIVES = 1024;

  /** The kind of a token: what one piece of a glob matches. */
  enum Kind {
    /** One given code point. */
    CHAR,
    /** {@code ?}: one code point except {@code /}. */
    QUEST,
    /** {@code [...]}: one code point of a class, never {@code /}. */
    CLASS,
    /** {@code *}: any run of code points except {@code /}. */
    STAR,
    /** {@code **} (or a longer run of {@code *}): its meaning depends on its neighbours. */
    DOUBLE_STAR
  }

  /**
   * One piece of a glob.
   *
   * @param kind what the piece matches
   * @param codePoint the code point of a {@link Kind#CHAR}, else 0
   * @param ranges the inclusive code point ranges of a {@link Kind#CLASS} as {@code lo0, hi0, lo1, hi1, ...}
   * @param negated whether a {@link Kind#CLASS} matches the code points outside its ranges
   * @param position the token's 0-based position in the glob
   */
  // Tokens are never compared or hashed, so the array's identity equality in equals() never matters.
  @SuppressWarnings("ArrayRecordComponent")
  record Token(Kind kind, int codePoint, int[] ranges, boolean negated, int position) {
    static Token of(Kind kind, int position) {
      return new Token(kind, 0, NO_RANGES, false, position);
    }

    static Token character(int codePoint, int position) {
      return new Token(Kind.CHAR, codePoint, NO_RANGES, false, position);
    }

    boolean isSlash() {
      return kind == Kind.CHAR && codePoint == '/';
    }
  }

  private static final int[] NO_RANGES = new int[0];

  private final String glob;
  private final int index;
  private int pos;

  private GlobParser(String glob, int index) {
    this.glob = glob;
    this.index = index;
  }

  /**
   * Parses a glob into its brace-free alternatives.
   *
   * @param glob the glob
   * @param index the glob's index in its list, for error messages
   * @return one token list per alternative, in the order the braces list them
   * @throws InvalidGlobException when the glob does not parse
   */
  static List<List<Token>> parse(String glob, int index) {
    return new GlobParser(glob, index).parse();
  }

  private List<List<Token>> parse() {
    if (glob.isEmpty()) {
      throw error(0, "the glob is empty", "at least one character");
    }
    if (glob.charAt(0) == '/') {
      throw error(0, "the glob starts with '/'",
          "a repository-relative path (write \"a/b\", not \"/a/b\")");
    }
    // The glob as a sequence of parts; each part is a list of alternatives (one outside braces).
    List<List<List<Token>>> parts = new ArrayList<>();
    List<List<Token>> group = null;
    int groupStart = -1;
    List<Token> current = new ArrayList<>();
    while (pos < glob.length()) {
      int start = pos;
      int c = glob.codePointAt(pos);
      pos += Character.charCount(c);
      switch (c) {
        case '\\' -> current.add(Token.character(escaped(start), start));
        case '*' -> {
          boolean run = false;
          while (pos < glob.length() && glob.charAt(pos) == '*') {
            pos++;
            run = true;
          }
          current.add(Token.of(run ? Kind.DOUBLE_STAR : Kind.STAR, start));
        }
        case '?' -> current.add(Token.of(Kind.QUEST, start));
        case '[' -> current.add(characterClass(start));
        case '{' -> {
          if (group != null) {
            throw error(start, "'{' inside the group opened at position " + groupStart
                + " (groups do not nest)", "',' or '}'");
          }
          parts.add(List.of(current));
          group = new ArrayList<>();
          groupStart = start;
          current = new ArrayList<>();
        }
        case ',' -> {
          if (group != null) {
            group.add(current);
            current = new ArrayList<>();
          } else {
            current.add(Token.character(c, start));
          }
        }
        case '}' -> {
          if (group != null) {
            group.add(current);
            parts.add(group);
            group = null;
            current = new ArrayList<>();
          } else {
            current.add(Token.character(c, start));
          }
        }
        default -> current.add(Token.character(c, start));
      }
    }
    if (group != null) {
      throw error(glob.length(), "the group opened at position " + groupStart + " is not closed", "'}'");
    }
    parts.add(List.of(current));
    return expand(parts);
  }

  private int escaped(int backslash) {
    if (pos >= glob.length()) {
      throw error(backslash, "the glob ends with an unfinished escape '\\'", "a character after '\\'");
    }
    int c = glob.codePointAt(pos);
    pos += Character.charCount(c);
    return c;
  }

  private Token characterClass(int open) {
    boolean negated = false;
    if (pos < glob.length() && glob.charAt(pos) == '!') {
      negated = true;
      pos++;
    }
    List<Integer> ranges = new ArrayList<>();
    while (true) {
      if (pos >= glob.length()) {
        throw error(glob.length(), "the character class opened at position " + open + " is not closed", "']'");
      }
      if (glob.charAt(pos) == ']') {
        if (ranges.isEmpty()) {
          throw error(pos, "the character class opened at position " + open + " is empty",
              "at least one character before ']' (write \\] for a literal ']')");
        }
        pos++;
        break;
      }
      int loPos = pos;
      int lo = classCharacter();
      int hi = lo;
      if (pos + 1 < glob.length() && glob.charAt(pos) == '-' && glob.charAt(pos + 1) != ']') {
        pos++;
        hi = classCharacter();
        if (hi < lo) {
          throw error(loPos, "the range " + glob.substring(loPos, pos) + " is reversed",
              "a range whose start is not after its end");
        }
      }
      ranges.add(lo);
      ranges.add(hi);
    }
    int[] array = ranges.stream().mapToInt(Integer::intValue).toArray();
    return new Token(Kind.CLASS, 0, array, negated, open);
  }

  private int classCharacter() {
    int start = pos;
    int c = glob.codePointAt(pos);
    pos += Character.charCount(c);
    if (c == '\\') {
      c = escaped(start);
    }
    if (c == '/') {
      throw error(start, "'/' inside a character class", "other characters (a class never matches '/')");
    }
    return c;
  }

  private List<List<Token>> expand(List<List<List<Token>>> parts) {
    long count = 1;
    for (List<List<Token>> part : parts) {
      count *= part.size();
      if (count > MAX_ALTERNATIVES) {
        throw error(0, "the groups expand to more than " + MAX_ALTERNATIVES + " alternatives",
            "at most " + MAX_ALTERNATIVES + " (split the glob into several globs)");
      }
    }
    List<List<Token>> alternatives = new ArrayList<>();
    alternatives.add(List.of());
    for (List<List<Token>> part : parts) {
      List<List<Token>> next = new ArrayList<>(alternatives.size() * part.size());
      for (List<Token> prefix : alternatives) {
        for (List<Token> choice : part) {
          List<Token> joined = new ArrayList<>(prefix.size() + choice.size());
          joined.addAll(prefix);
          joined.addAll(choice);
          next.add(joined);
        }
      }
      alternatives = next;
    }
    for (List<Token> alternative : alternatives) {
      if (!alternative.isEmpty() && alternative.get(0).isSlash()) {
        throw error(alternative.get(0).position(), "an alternative starts with '/'",
            "a repository-relative path (no leading '/')");
      }
    }
    return alternatives;
  }

  private InvalidGlobException error(int position, String problem, String expected) {
    return new InvalidGlobException(glob, index, position, problem, expected);
  }
}
