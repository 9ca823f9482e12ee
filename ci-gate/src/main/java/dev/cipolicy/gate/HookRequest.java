package dev.cipolicy.gate;

import dev.cipolicy.api.gate.GateDeclaration;
import java.util.List;

/**
 * What the host passes to {@link GateHook#run}: the series, the test's gate declarations and the
 * defaults table, how to read the record, the mode, and the run's provenance.
 *
 * @param series the series of the test run
 * @param declarations the test's gate declarations; empty when it declares none
 * @param defaults the defaults table, typically {@code policy.gateDefaults()}
 * @param record how to read the test's metric record
 * @param mode baseline-writing or shadow
 * @param provenance the CI run and commit, stored with a baseline
 * @param acceptLevelShifts whether a baseline-writing run accepts the level shifts it proposes
 */
public record HookRequest(SeriesKey series, List<GateDeclaration> declarations, List<GateDeclaration> defaults,
    RecordSource record, GateMode mode, Provenance provenance, boolean acceptLevelShifts) {
  /** Copies the lists. */
  public HookRequest {
    declarations = List.copyOf(declarations);
    defaults = List.copyOf(defaults);
  }
}
