package dev.cipolicy.core.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A job that calls a reusable workflow ({@code uses:} at job level).
 *
 * @param uses the reference as written: {@code ./.github/workflows/x.yml} or
 *     {@code owner/repo/.github/workflows/x.yml@ref}
 * @param with the {@code with:} inputs as written, in order
 * @param location where {@code uses:} is
 */
public record JobCall(String uses, Map<String, String> with, SourceLocation location) {
  /** Validates the reference and copies the inputs. */
  public JobCall {
    with = Collections.unmodifiableMap(new LinkedHashMap<>(with));
    ValueCheck.of("JobCall").nonEmpty("uses", uses).done();
  }

  /**
   * Whether the called workflow is in the same repository ({@code ./...}).
   *
   * @return whether the reference is local
   */
  public boolean local() {
    return uses.startsWith("./");
  }
}
