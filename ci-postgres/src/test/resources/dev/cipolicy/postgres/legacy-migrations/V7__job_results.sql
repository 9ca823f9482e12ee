-- Version 7: job results. A collector's result is written by the same transaction that marks its job
-- succeeded (QueueStore.complete with a result), fenced by the lease like the completion itself, so a
-- result exists exactly for a job that succeeded with one, and it is written once: the primary key on
-- job_id refuses a second row, and a stale attempt never reaches the insert. The payload is opaque bytes
-- (bytea), at most 1 MiB; request_id is the job's request, for reading a request's results by index.

CREATE TABLE ${schema}.${prefix}results (
  job_id bigint PRIMARY KEY REFERENCES ${schema}.${prefix}jobs (id),
  request_id bigint NOT NULL,
  attempt integer NOT NULL CHECK (attempt >= 1),
  collector text NOT NULL,
  stored_at timestamptz NOT NULL,
  payload bytea NOT NULL CHECK (octet_length(payload) <= 1048576)
);

CREATE INDEX ${prefix}results_request ON ${schema}.${prefix}results (request_id, job_id);
