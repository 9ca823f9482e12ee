-- Version 10: fleet shares. A job keeps the cadence of the run that planned it ('' for none), and
-- ${prefix}fleet_shares holds the shares the store enforces on its claims: per (pool, cadence), how many
-- runners or GPUs the cadence's live leases in the pool may hold at once, and whether it may borrow idle
-- capacity. A claim of a pool that has shares takes the pool's advisory transaction lock, so that the share
-- check and the lease are one step for every claimer of the pool; the one-statement claim does not apply to
-- such a pool.

ALTER TABLE ${schema}.${prefix}jobs
  ADD COLUMN cadence text NOT NULL DEFAULT '' CONSTRAINT ${prefix}jobs_cadence CHECK (length(cadence) <= 200);

CREATE TABLE ${schema}.${prefix}fleet_shares (
  pool text NOT NULL CHECK (length(pool) BETWEEN 1 AND 200),
  cadence text NOT NULL CHECK (length(cadence) BETWEEN 1 AND 200),
  unit text NOT NULL CHECK (unit IN ('RUNNERS', 'GPUS')),
  amount integer NOT NULL CHECK (amount BETWEEN 1 AND 1000000),
  borrow boolean NOT NULL,
  PRIMARY KEY (pool, cadence)
);
