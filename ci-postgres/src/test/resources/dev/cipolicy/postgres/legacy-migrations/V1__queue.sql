-- Version 1 of the job queue schema. ${schema} is replaced by the validated, quoted schema name and
-- ${prefix} by the validated table prefix (default queue_), which every table, index and named constraint has.

-- The single control row: startRequest locks it (SELECT ... FOR UPDATE) so that the cap check and the
-- start are one serialized step across every site process.
CREATE TABLE ${schema}.${prefix}control (
  id smallint PRIMARY KEY CHECK (id = 1)
);
INSERT INTO ${schema}.${prefix}control (id) VALUES (1);

CREATE TABLE ${schema}.${prefix}requests (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('MASTER', 'TRY', 'RELEASE')),
  state text NOT NULL CHECK (state IN ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED')),
  tag text UNIQUE,
  parent_sha text,
  pr bigint,
  benchmark_groups text[] NOT NULL,
  created_at timestamptz NOT NULL,
  started_at timestamptz,
  finished_at timestamptz,
  outcome text,
  parent_request bigint REFERENCES ${schema}.${prefix}requests (id),
  cancel_reason text
);
-- At most one open request per (PR, kind), enforced by the database.
CREATE UNIQUE INDEX ${prefix}requests_open_pr ON ${schema}.${prefix}requests (kind, pr)
  WHERE pr IS NOT NULL AND state IN ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY', 'IN_PROGRESS');
CREATE INDEX ${prefix}requests_open ON ${schema}.${prefix}requests (id)
  WHERE state IN ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY', 'IN_PROGRESS');

CREATE TABLE ${schema}.${prefix}jobs (
  id bigserial PRIMARY KEY,
  request_id bigint NOT NULL REFERENCES ${schema}.${prefix}requests (id),
  benchmark_group text NOT NULL,
  collector_tag text NOT NULL,
  optional boolean NOT NULL,
  state text NOT NULL CHECK (state IN ('QUEUED', 'LEASED', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
  attempt integer NOT NULL,
  crash_rescues integer NOT NULL,
  transient_retries integer NOT NULL,
  affinity text,
  failure_reason text,
  failure_detail text,
  failure_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL,
  finished_at timestamptz,
  -- The job key: a duplicate enqueue is INSERT ... ON CONFLICT DO NOTHING, a reported no-op.
  CONSTRAINT ${prefix}jobs_key UNIQUE (request_id, benchmark_group, collector_tag)
);
-- The claim index: queued jobs of a tag, by id.
CREATE INDEX ${prefix}jobs_claimable ON ${schema}.${prefix}jobs (collector_tag, id) WHERE state = 'QUEUED';

-- Leases live in their own narrow table: heartbeats rewrite only this small row, never the wide job row.
CREATE TABLE ${schema}.${prefix}leases (
  job_id bigint PRIMARY KEY REFERENCES ${schema}.${prefix}jobs (id),
  attempt integer NOT NULL CHECK (attempt >= 1),
  token bigint NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  collector text NOT NULL,
  collector_tag text NOT NULL,
  cancel_requested boolean NOT NULL DEFAULT false
) WITH (fillfactor = 70);
CREATE INDEX ${prefix}leases_expiry ON ${schema}.${prefix}leases (collector_tag, expires_at);

-- Lease tokens are never reused.
CREATE SEQUENCE ${schema}.${prefix}lease_tokens;

CREATE TABLE ${schema}.${prefix}collectors (
  name text PRIMARY KEY,
  tag text NOT NULL,
  active boolean NOT NULL,
  registered_at timestamptz NOT NULL,
  last_heartbeat_at timestamptz NOT NULL
) WITH (fillfactor = 70);
