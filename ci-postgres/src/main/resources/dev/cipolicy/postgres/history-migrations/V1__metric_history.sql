-- Version 1 of the metric history schema: series, coordinates, runs and their values.
-- ${schema} is replaced by the validated, quoted schema name. Versions of this set are recorded in
-- gate_schema_version, apart from the queue's (docs/adr/0002-postgres-history-migrations.md). This script,
-- once released, is never edited (the migrator refuses a schema whose recorded checksum differs from the
-- shipped script's): later changes are new versions.

-- A series: one test file on one backend in one suite. Baselines of different series never mix.
CREATE TABLE ${schema}.gate_series (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_path text NOT NULL CHECK (test_path <> ''),
  backend text NOT NULL,
  suite text NOT NULL,
  CONSTRAINT gate_series_key UNIQUE (test_path, backend, suite)
);

-- A coordinate of a series: metric key, canonical steps key, canonical constraint key, step (-1 = last).
-- first_run_id/first_ord record the first write (the run and the sample's position in it), the order in
-- which coordinates(series) lists them; rows are inserted in key order so that concurrent writers of the
-- same new coordinates take their locks in one order and never deadlock.
CREATE TABLE ${schema}.gate_coordinates (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  series_id bigint NOT NULL REFERENCES ${schema}.gate_series (id),
  metric_key text NOT NULL,
  steps_key text NOT NULL,
  constraint_key text NOT NULL,
  step integer NOT NULL CHECK (step >= -1),
  first_run_id bigint NOT NULL,
  first_ord integer NOT NULL,
  CONSTRAINT gate_coordinates_key UNIQUE (series_id, metric_key, steps_key, constraint_key, step)
);

-- A baseline run. "Newest" is the latest (created_at, created_nano), ties broken by id (write order):
-- created_at is the run's time truncated to microseconds, created_nano its exact nano-of-second (whose
-- microseconds the store checks against created_at when it reads the row).
-- written_at and revoked_at are the database's clock, for operators only; the store never reads them.
-- ci_repository, ci_run_id and ci_attempt are the CI run identity of the write, which makes writes
-- idempotent: per series, at most one run of an identified CI run (repository and run id, whatever the
-- attempt) is stored. The store inserts with ON CONFLICT DO NOTHING against the unique index below, so a write
-- retried after a lost acknowledgement, or repeated by a later attempt of the run, stores nothing new. Runs
-- written without an identity have no attempt and are not constrained.
CREATE TABLE ${schema}.gate_runs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  series_id bigint NOT NULL REFERENCES ${schema}.gate_series (id),
  ci_run_id text CHECK (ci_run_id <> ''),
  commit_sha text CHECK (commit_sha <> ''),
  cadence text CHECK (cadence <> ''),
  created_at timestamptz NOT NULL,
  created_nano integer NOT NULL CHECK (created_nano BETWEEN 0 AND 999999999),
  trusted boolean NOT NULL,
  revoked boolean NOT NULL DEFAULT false,
  written_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  ci_repository text CHECK (ci_repository <> ''),
  ci_attempt integer CHECK (ci_attempt >= 1),
  CONSTRAINT gate_runs_identity_complete
    CHECK (ci_attempt IS NULL AND ci_repository IS NULL OR ci_attempt IS NOT NULL AND ci_run_id IS NOT NULL)
);
-- Revocation by CI run id or by commit.
CREATE INDEX gate_runs_ci_run_id ON ${schema}.gate_runs (ci_run_id) WHERE ci_run_id IS NOT NULL;
CREATE INDEX gate_runs_commit ON ${schema}.gate_runs (commit_sha) WHERE commit_sha IS NOT NULL;
-- One stored run per identified CI run and series.
CREATE UNIQUE INDEX gate_runs_ci_identity ON ${schema}.gate_runs
  (series_id, coalesce(ci_repository, ''), ci_run_id) WHERE ci_attempt IS NOT NULL;

-- One value of a run at a coordinate. created_s/created_nano (the run's time as epoch seconds and
-- nano-of-second: exact, and cheap to read back) and revoked are copies of the run's (the run row's are the
-- truth; the store writes both in one transaction) so that one index serves each read. trusted is the
-- value's current trust: as written, or made true by an accepted level shift.
CREATE TABLE ${schema}.gate_values (
  run_id bigint NOT NULL REFERENCES ${schema}.gate_runs (id),
  coordinate_id bigint NOT NULL REFERENCES ${schema}.gate_coordinates (id),
  value double precision NOT NULL CHECK (value NOT IN ('NaN', 'Infinity', '-Infinity')),
  trusted boolean NOT NULL,
  created_s bigint NOT NULL,
  created_nano integer NOT NULL CHECK (created_nano BETWEEN 0 AND 999999999),
  revoked boolean NOT NULL DEFAULT false,
  PRIMARY KEY (run_id, coordinate_id)
);
-- The newest trusted values of a coordinate (the baseline): a backward scan of this partial index, which
-- holds only trusted values of unrevoked runs, stops after the limit; the value is in the index.
CREATE INDEX gate_values_newest_trusted ON ${schema}.gate_values
  (coordinate_id, created_s, created_nano, run_id) INCLUDE (value) WHERE trusted AND NOT revoked;
-- The newest values of any trust (quarantine, level shifts) and the full history (replay), oldest first.
CREATE INDEX gate_values_newest ON ${schema}.gate_values
  (coordinate_id, created_s, created_nano, run_id) INCLUDE (value, trusted) WHERE NOT revoked;

-- An accepted level shift: the coordinate's visible history starts at this run's value (its time and id).
CREATE TABLE ${schema}.gate_level_starts (
  coordinate_id bigint PRIMARY KEY REFERENCES ${schema}.gate_coordinates (id),
  run_id bigint NOT NULL REFERENCES ${schema}.gate_runs (id),
  created_s bigint NOT NULL,
  created_nano integer NOT NULL
);
