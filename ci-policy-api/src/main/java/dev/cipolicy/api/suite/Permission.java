package dev.cipolicy.api.suite;

import java.util.Locale;

/** A commenter's permission on the repository, as the host reads it from GitHub. */
public enum Permission {
  /** Repository administrator. */
  ADMIN,
  /** Maintainer. */
  MAINTAIN,
  /** Write access (collaborator). */
  WRITE,
  /** Triage only. */
  TRIAGE,
  /** Read only. */
  READ,
  /** No access (an outside contributor). */
  NONE;

  /**
   * Whether this permission includes write access.
   *
   * @return true for {@link #ADMIN}, {@link #MAINTAIN} and {@link #WRITE}
   */
  public boolean canWrite() {
    return this == ADMIN || this == MAINTAIN || this == WRITE;
  }

  /**
   * The GitHub spelling.
   *
   * @return e.g. {@code write}
   */
  public String githubName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
