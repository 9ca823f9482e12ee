package dev.cipolicy.core.diff;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of parsing a diff: its entries, or the reason it cannot be used. An unusable diff is a
 * value, not an error: the caller prunes nothing and reports the reason.
 */
public sealed interface DiffParse {

  /**
   * A diff that parsed completely.
   *
   * @param entries the changed files, in the diff's order
   */
  record Usable(List<ChangeEntry> entries) implements DiffParse {
    /** Copies the entries. */
    public Usable {
      entries = List.copyOf(entries);
    }

    /**
     * Every path of every entry, in order, with both the old and the new path of a rename or copy.
     *
     * @return the paths, possibly with duplicates
     */
    public List<String> paths() {
      List<String> out = new ArrayList<>();
      for (ChangeEntry entry : entries) {
        out.addAll(entry.paths());
      }
      return List.copyOf(out);
    }
  }

  /**
   * A diff that cannot be used.
   *
   * @param reason one sentence saying why, e.g. {@code the diff is not NUL-terminated}
   */
  record Unusable(String reason) implements DiffParse {}
}
