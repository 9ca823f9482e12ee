package dev.cipolicy.api.concurrency;

import java.util.regex.Pattern;

/**
 * Which value completes a concurrency group key after the workflow's literal prefix: the first present
 * of PR number, schedule cron, release ref and run id.
 */
public enum GroupKeySource {
  /** A pull request's number: a positive decimal without leading zeros. */
  PR_NUMBER(Pattern.compile("[1-9][0-9]*")),
  /** The cron string of a scheduled run, exactly as the workflow declares it. */
  CRON(Pattern.compile("\\S(?:.*\\S)?")),
  /**
   * A full git ref, e.g. {@code refs/heads/release/v0.5} or {@code refs/tags/v0.5.0}: {@code refs/} then
   * slash-separated segments of letters, digits and {@code _ . + @ -}, no segment starting with a dot and no
   * {@code ..}.
   */
  RELEASE_REF(Pattern.compile("refs(?:/(?!\\.)[A-Za-z0-9_.+@-]+)+")),
  /** A GitHub Actions run id: a positive decimal without leading zeros. */
  RUN_ID(Pattern.compile("[1-9][0-9]*"));

  private final Pattern grammar;

  GroupKeySource(Pattern grammar) {
    this.grammar = grammar;
  }

  /**
   * Whether a value has the form this source requires.
   *
   * @param value the candidate key suffix
   * @return true when {@code value} fully matches {@link #grammar()} (and, for refs, contains no {@code ..})
   */
  public boolean accepts(String value) {
    return grammar.matcher(value).matches() && !(this == RELEASE_REF && value.contains(".."));
  }

  /**
   * The grammar of this source's values.
   *
   * @return the pattern a value must fully match
   */
  public Pattern grammar() {
    return grammar;
  }

  /**
   * A few words naming the source with its value, for reasons, e.g. {@code PR #123}.
   *
   * @param value the key suffix
   * @return a human description
   */
  public String describe(String value) {
    return switch (this) {
      case PR_NUMBER -> "PR #" + value;
      case CRON -> "schedule '" + value + "'";
      case RELEASE_REF -> "release ref " + value;
      case RUN_ID -> "run id " + value;
    };
  }
}
