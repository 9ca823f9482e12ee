package dev.cipolicy.gate;

import java.util.Optional;

/**
 * The quarantine state of an out-of-band value: how many consecutive values of its coordinate, this one
 * included, are out of band on the same side, and — once enough of them agree — the proposal to accept a
 * new level.
 *
 * @param consecutive the consecutive untrusted out-of-band values on this side, this one included
 * @param required how many it takes to propose a level shift
 * @param proposal the proposal, when {@code consecutive ≥ required} and the values agree
 */
public record Quarantine(int consecutive, int required, Optional<LevelShiftProposal> proposal) {}
