package dev.cipolicy.core.load;

/**
 * The bounds every document loaded by this package must respect (policy, registrations, gate
 * declarations). They are checked before any parsing, so an oversized or hostile document fails in time
 * proportional to the limit, with our exception and a located message. The numbers are listed with the
 * other input limits in {@code docs/limits.md}.
 */
public final class DocumentLimits {
  /**
   * The largest document, in characters (UTF-16 code units): 4 MiB. A host reading a file should stop
   * reading past this many bytes plus one.
   */
  public static final int MAX_DOCUMENT_CHARS = 4 * 1024 * 1024;

  /**
   * The longest line of a YAML document, in characters: 64 KiB. The YAML reader's cost grows faster than
   * linearly with the length of a line; a JSON document (read by a different parser) has no line limit.
   */
  public static final int MAX_YAML_LINE_CHARS = 64 * 1024;

  /** The deepest nesting of mappings and lists. */
  public static final int MAX_NESTING_DEPTH = 64;

  private DocumentLimits() {}
}
