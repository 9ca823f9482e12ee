package dev.cipolicy.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A job that calls a reusable workflow ({@code uses:} at job level).
 *
 * @param uses the reference as written: {@code ./.github/workflows/x.yml} or
 *     {@code owner/repo/.github/workflows/x.yml@ref}
 * @param with the {@code with:} inputs as written, in order
 * @param location where {@code uses:} is
 * @param callee the called workflow, when it is local and the host supplied its file
 */
public record JobCall(String uses, Map<String, String> with, SourceLocation location, Optional<Workflow> callee) {
  /** Validates the reference and copies the inputs. */
  public JobCall {
    with = Collections.unmodifiableMap(new LinkedHashMap<>(with));
    ValueCheck.of("JobCall").nonEmpty("uses", uses).done();
  }

  /**
   * A call whose called workflow is not read.
   *
   * @param uses the reference as written
   * @param with the inputs as written
   * @param location where {@code uses:} is
   */
  public JobCall(String uses, Map<String, String> with, SourceLocation location) {
    this(uses, with, location, Optional.empty());
  }

  /**
   * This call with the called workflow read.
   *
   * @param workflow the called workflow
   * @return the new call
   */
  public JobCall withCallee(Workflow workflow) {
    return new JobCall(uses, with, location, Optional.of(workflow));
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
