-- A test migration: a later version of the metric history schema, applied on top of the shipped version 1.
CREATE INDEX gate_runs_by_write ON ${schema}.gate_runs (written_at);
