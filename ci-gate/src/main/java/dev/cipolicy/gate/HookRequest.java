package dev.cipolicy.gate;

import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import org.immutables.value.Value;

/**
 * What the host passes to {@link GateHook#run}: the series, the test's gate declarations and the
 * defaults table, how to read the record, the mode, and the run's provenance.
 *
 * <pre>{@code
 * HookRequest request = HookRequest.builder().series(series).addAllDeclarations(declared)
 *     .addAllDefaults(policy.gateDefaults()).record(() -> readRecord(path)).mode(GateMode.BASELINE)
 *     .provenance(Provenance.of(runId, sha, "nightly")).build();
 * }</pre>
 *
 * <p>Series, record and mode are required; {@code build()} rejects a request without one of them with an
 * {@link dev.cipolicy.api.InvalidValueException} naming the field.
 */
@Value.Immutable
@ValueStyle
public abstract class HookRequest {

  /**
   * The series of the test run.
   *
   * @return the series
   */
  public abstract SeriesKey series();

  /**
   * The test's gate declarations.
   *
   * @return the declarations; empty when the test declares none
   */
  public abstract List<GateDeclaration> declarations();

  /**
   * The defaults table a declaration takes what it leaves out from.
   *
   * @return typically {@code policy.gateDefaults()}; empty unless set
   */
  public abstract List<GateDeclaration> defaults();

  /**
   * How to read the test's metric record; called once, and only when a gate is declared.
   *
   * @return the record source
   */
  @Value.Auxiliary
  public abstract RecordSource record();

  /**
   * Baseline-writing or shadow.
   *
   * @return the mode
   */
  public abstract GateMode mode();

  /**
   * The CI run and commit, stored with a baseline.
   *
   * @return the provenance; {@link Provenance#none()} unless set
   */
  @Value.Default
  public Provenance provenance() {
    return Provenance.none();
  }

  /**
   * Whether a baseline-writing run accepts the level shifts it proposes; a shadow run never writes.
   *
   * @return false unless set
   */
  @Value.Default
  public boolean acceptLevelShifts() {
    return false;
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link HookRequest}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableHookRequest.Builder {
    Builder() {}
  }
}
