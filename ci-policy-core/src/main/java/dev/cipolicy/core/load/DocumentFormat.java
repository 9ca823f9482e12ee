package dev.cipolicy.core.load;

import java.util.Locale;

/** The syntax of a policy or manifest document. */
public enum DocumentFormat {
  /** YAML 1.1 (a superset of JSON for our purposes). */
  YAML("YAML"),
  /** Strict JSON. */
  JSON("JSON");

  private final String displayName;

  DocumentFormat(String displayName) {
    this.displayName = displayName;
  }

  /**
   * The name used in error messages.
   *
   * @return {@code YAML} or {@code JSON}
   */
  public String displayName() {
    return displayName;
  }

  /**
   * Picks the format from a file name: {@code .json} is JSON, anything else YAML.
   *
   * @param fileName a file name or path
   * @return the format
   */
  public static DocumentFormat fromFileName(String fileName) {
    return fileName.toLowerCase(Locale.ROOT).endsWith(".json") ? JSON : YAML;
  }
}
