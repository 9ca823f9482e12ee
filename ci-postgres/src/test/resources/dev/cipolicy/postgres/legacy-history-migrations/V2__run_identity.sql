-- Version 2 of the metric history schema: the CI run identity of a baseline write (repository, run id,
-- attempt), which makes writes idempotent. Per series, at most one run of an identified CI run (repository
-- and run id, whatever the attempt) is stored: the store inserts with ON CONFLICT DO NOTHING against the
-- unique index below, so a write retried after a lost acknowledgement, or repeated by a later attempt of
-- the run, stores nothing new. Runs written before this version, and runs written without an identity, have
-- no attempt and are not constrained.
ALTER TABLE ${schema}.gate_runs
  ADD COLUMN ci_repository text CHECK (ci_repository <> ''),
  ADD COLUMN ci_attempt integer CHECK (ci_attempt >= 1),
  ADD CONSTRAINT gate_runs_identity_complete
    CHECK (ci_attempt IS NULL AND ci_repository IS NULL OR ci_attempt IS NOT NULL AND ci_run_id IS NOT NULL);

CREATE UNIQUE INDEX gate_runs_ci_identity ON ${schema}.gate_runs
  (series_id, coalesce(ci_repository, ''), ci_run_id) WHERE ci_attempt IS NOT NULL;
