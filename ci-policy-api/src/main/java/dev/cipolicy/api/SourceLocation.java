package dev.cipolicy.api;

/**
 * A position in a named source document: 1-based line and column.
 *
 * @param source the document's name, typically its file name
 * @param line 1-based line number
 * @param column 1-based column number
 */
public record SourceLocation(String source, int line, int column) {
  /** Validates the components. */
  public SourceLocation {
    if (source == null || line < 1 || column < 1) {
      throw new IllegalArgumentException(
          "a source location needs a source name and a 1-based line and column, got "
              + source + ":" + line + ":" + column);
    }
  }

  @Override
  public String toString() {
    return source + ":" + line + ":" + column;
  }
}
