-- Version 1 of the job queue schema: every table, index, domain, trigger and sequence of the store.
-- ${schema} is replaced by the validated, quoted schema name and ${prefix} by the validated table prefix
-- (default queue_), which every table, index, index-backed constraint, domain, trigger, function and sequence
-- carries, so that two stores with different prefixes share nothing in one schema (the names of CHECK
-- constraints are per table or per domain and need none). docs/postgres.md describes the schema; this
-- script, once released, is never edited (the migrator refuses a schema whose recorded checksum differs from
-- the shipped script's): later changes are new versions.

-- Domains: the rules of columns that never change after their row is inserted, for the three tables every
-- claim, completion and heartbeat writes (jobs, leases, collectors). A table's CHECK constraints are evaluated
-- on every INSERT and every UPDATE of a row, whichever columns it sets; a domain's rule only where a value is
-- assigned to its column. The claim and the completion update the job row, and a heartbeat the collector row,
-- without setting any of these columns, so they do not pay for these rules. Rules over columns that change (a
-- job's state, attempt, failure and finish columns) are CHECK constraints of their table. Constraint names are
-- per domain and need no prefix.
CREATE DOMAIN ${schema}.${prefix}plain_name AS text
  CONSTRAINT name_plain CHECK (VALUE <> '' AND length(VALUE) <= 200 AND VALUE !~ '[[:space:][:cntrl:]]');
CREATE DOMAIN ${schema}.${prefix}gpu_count AS integer
  CONSTRAINT gpu_count_range CHECK (VALUE BETWEEN 0 AND 256);
-- Estimates and timeouts: whole microseconds, at most 366 days.
CREATE DOMAIN ${schema}.${prefix}micros AS bigint
  CONSTRAINT micros_range CHECK (VALUE BETWEEN 0 AND 31622400000000);
CREATE DOMAIN ${schema}.${prefix}cadence_name AS text
  CONSTRAINT cadence_length CHECK (length(VALUE) <= 200);
CREATE DOMAIN ${schema}.${prefix}lease_attempt AS integer
  CONSTRAINT lease_attempt_positive CHECK (VALUE >= 1);

-- The single control row: startRequest locks it (SELECT ... FOR UPDATE) so that the cap check and the
-- start are one serialized step across every site process.
CREATE TABLE ${schema}.${prefix}control (
  id smallint PRIMARY KEY CHECK (id = 1)
);
INSERT INTO ${schema}.${prefix}control (id) VALUES (1);

-- Requests. The CHECK constraints named request_* hold every rule of a single row that the queue's Request
-- enforces, so that the database refuses a row edited by hand into a state no operation produces; rules that
-- span rows cannot be CHECKs, and the store's reader reports those (docs/postgres.md, "Impossible rows").
-- Constraint names are per table, so they need no prefix. parent_request has no foreign key: a purged request
-- is deleted with its jobs and results, and a request that recorded it as its parent keeps that id.
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
  parent_request bigint,
  cancel_reason text,
  CONSTRAINT request_pr_positive CHECK (pr IS NULL OR pr >= 1),
  CONSTRAINT request_tag_plain
    CHECK (tag IS NULL OR (tag <> '' AND length(tag) <= 200 AND tag !~ '[[:space:][:cntrl:]]')),
  CONSTRAINT request_parent_sha_plain
    CHECK (parent_sha IS NULL OR (parent_sha <> '' AND length(parent_sha) <= 200
      AND parent_sha !~ '[[:space:][:cntrl:]]')),
  CONSTRAINT request_groups_plain
    CHECK (array_position(benchmark_groups, NULL) IS NULL AND '' <> ALL (benchmark_groups)),
  CONSTRAINT request_outcome_known CHECK (outcome IN ('SUCCESS', 'PARTIAL_FAILURE', 'FAILURE')),
  CONSTRAINT request_waiting_is_untagged_try
    CHECK (state <> 'WAITING_FOR_ARTIFACTS' OR (kind = 'TRY' AND tag IS NULL)),
  CONSTRAINT request_tag_required
    CHECK (tag IS NOT NULL
      OR (kind = 'TRY' AND started_at IS NULL AND state IN ('WAITING_FOR_ARTIFACTS', 'CANCELLED'))),
  CONSTRAINT request_release_has_no_parent_or_pr CHECK (kind <> 'RELEASE' OR (parent_sha IS NULL AND pr IS NULL)),
  CONSTRAINT request_try_has_pr CHECK (kind <> 'TRY' OR pr IS NOT NULL),
  CONSTRAINT request_started_at
    CHECK ((state IN ('IN_PROGRESS', 'COMPLETED') AND started_at IS NOT NULL)
      OR (state IN ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY') AND started_at IS NULL)
      OR state = 'CANCELLED'),
  CONSTRAINT request_finished_at_iff_terminal
    CHECK ((state IN ('COMPLETED', 'CANCELLED')) = (finished_at IS NOT NULL)),
  CONSTRAINT request_outcome_iff_completed CHECK ((state = 'COMPLETED') = (outcome IS NOT NULL)),
  CONSTRAINT request_reason_iff_cancelled CHECK ((state = 'CANCELLED') = (cancel_reason IS NOT NULL)),
  CONSTRAINT request_tag_is_not_parent CHECK (tag IS NULL OR parent_sha IS NULL OR tag <> parent_sha),
  CONSTRAINT request_parent_request
    CHECK (parent_request IS NULL OR (started_at IS NOT NULL AND parent_request <> id))
);
-- At most one open request per (PR, kind), enforced by the database.
CREATE UNIQUE INDEX ${prefix}requests_open_pr ON ${schema}.${prefix}requests (kind, pr)
  WHERE pr IS NOT NULL AND state IN ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY', 'IN_PROGRESS');
CREATE INDEX ${prefix}requests_open ON ${schema}.${prefix}requests (id)
  WHERE state IN ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY', 'IN_PROGRESS');
-- The history lists completed requests newest first (completion instant, then id, both descending) and pages
-- by keyset, (finished_at, id) < (cursor); this partial index serves each page as one index range scan.
CREATE INDEX ${prefix}requests_history ON ${schema}.${prefix}requests (finished_at DESC, id DESC)
  WHERE state = 'COMPLETED';

-- Jobs. The row's indexed columns (id and the job key) never change after the insert, and with free space on
-- the page (fillfactor 50) the claim's and the completion's updates are heap-only. Which jobs are queued is
-- listed in ${prefix}queued and ${prefix}gpu_queued, kept complete by the triggers below, so no index of this
-- table depends on the state. gpus: the GPUs the job needs (0 for none); estimate_micros and timeout_micros:
-- its estimated duration and the longest it may run once claimed (0 for none); cadence: the cadence of the run
-- that planned it ('' for none).
CREATE TABLE ${schema}.${prefix}jobs (
  id bigserial PRIMARY KEY,
  request_id bigint NOT NULL REFERENCES ${schema}.${prefix}requests (id),
  benchmark_group ${schema}.${prefix}plain_name NOT NULL,
  collector_tag ${schema}.${prefix}plain_name NOT NULL,
  optional boolean NOT NULL,
  state text NOT NULL CHECK (state IN ('QUEUED', 'LEASED', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
  attempt integer NOT NULL,
  crash_rescues integer NOT NULL,
  transient_retries integer NOT NULL,
  -- Set by every claim (the claimer), so checked once per job, but not at the completion.
  affinity ${schema}.${prefix}plain_name,
  failure_reason text,
  failure_detail text,
  failure_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL,
  finished_at timestamptz,
  gpus ${schema}.${prefix}gpu_count NOT NULL DEFAULT 0,
  estimate_micros ${schema}.${prefix}micros NOT NULL DEFAULT 0,
  cadence ${schema}.${prefix}cadence_name NOT NULL DEFAULT '',
  timeout_micros ${schema}.${prefix}micros NOT NULL DEFAULT 0,
  -- The job key: a duplicate enqueue is INSERT ... ON CONFLICT DO NOTHING, a reported no-op.
  CONSTRAINT ${prefix}jobs_key UNIQUE (request_id, benchmark_group, collector_tag),
  CONSTRAINT job_attempt_not_negative CHECK (attempt >= 0),
  CONSTRAINT job_crash_rescues_not_negative CHECK (crash_rescues >= 0),
  CONSTRAINT job_transient_retries_not_negative CHECK (transient_retries >= 0),
  CONSTRAINT job_leased_was_claimed CHECK (state <> 'LEASED' OR attempt >= 1),
  CONSTRAINT job_failure_reason_known
    CHECK (failure_reason IN ('PERMANENT', 'TRANSIENT_BUDGET_EXHAUSTED', 'CRASH_BUDGET_EXHAUSTED')),
  CONSTRAINT job_failure_iff_failed CHECK ((state = 'FAILED') = (failure_reason IS NOT NULL)),
  CONSTRAINT job_failure_complete
    CHECK ((failure_reason IS NULL) = (failure_detail IS NULL) AND (failure_reason IS NULL) = (failure_at IS NULL)),
  CONSTRAINT job_finished_at_iff_terminal
    CHECK ((state IN ('SUCCEEDED', 'FAILED', 'CANCELLED')) = (finished_at IS NOT NULL))
) WITH (fillfactor = 50);

-- One row per queued job that needs no GPU: claims lock and delete these rows (FOR UPDATE SKIP LOCKED), so
-- their cost depends only on the queued jobs, never on the finished ones.
CREATE TABLE ${schema}.${prefix}queued (
  job_id bigint PRIMARY KEY REFERENCES ${schema}.${prefix}jobs (id),
  collector_tag text NOT NULL,
  affinity text
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000, autovacuum_vacuum_cost_delay = 0);
-- The claim index: queued jobs of a tag, by id.
CREATE INDEX ${prefix}queued_claim ON ${schema}.${prefix}queued (collector_tag, job_id);
-- The first step of a claim: queued jobs of a tag with affinity to the claimer (few: retries, rescues).
CREATE INDEX ${prefix}queued_affinity ON ${schema}.${prefix}queued (collector_tag, affinity, job_id)
  WHERE affinity IS NOT NULL;

-- Leases live in their own narrow table: heartbeats rewrite only this small row, never the wide job row.
-- devices: the indices of the devices a GPU job's lease may use.
CREATE TABLE ${schema}.${prefix}leases (
  job_id bigint PRIMARY KEY REFERENCES ${schema}.${prefix}jobs (id),
  attempt ${schema}.${prefix}lease_attempt NOT NULL,
  token bigint NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  collector ${schema}.${prefix}plain_name NOT NULL,
  collector_tag text NOT NULL,
  cancel_requested boolean NOT NULL DEFAULT false,
  devices integer[] NOT NULL DEFAULT '{}'
) WITH (fillfactor = 70, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000,
  autovacuum_vacuum_cost_delay = 0);
CREATE INDEX ${prefix}leases_expiry ON ${schema}.${prefix}leases (collector_tag, expires_at);
-- Autovacuum of the two tables every claim and completion deletes rows of (above): the default trigger (50
-- rows + 20 % of the table) waits for a large queue to leave a fifth of it dead; a fixed threshold vacuums
-- these narrow tables after a few thousand deletions, without throttling. The site loop also vacuums them
-- (PostgresQueueStore.expireLeases, docs/postgres.md).

-- Lease tokens are never reused.
CREATE SEQUENCE ${schema}.${prefix}lease_tokens;

-- Collectors (hosts). devices: the device indices a host advertised; device_groups: the group ordinal of each
-- device (an NVLink island), in the order of devices, empty when the host declared no groups.
CREATE TABLE ${schema}.${prefix}collectors (
  name ${schema}.${prefix}plain_name PRIMARY KEY,
  tag ${schema}.${prefix}plain_name NOT NULL,
  active boolean NOT NULL,
  registered_at timestamptz NOT NULL,
  last_heartbeat_at timestamptz NOT NULL,
  devices integer[] NOT NULL DEFAULT '{}',
  device_groups integer[] NOT NULL DEFAULT '{}'
) WITH (fillfactor = 70);

-- Job results. A collector's result is written by the same transaction that marks its job succeeded, fenced
-- by the lease like the completion itself, so it exists exactly for a job that succeeded with one and is
-- written once. The payload is opaque bytes, at most 1 MiB; request_id is the job's request, for reading a
-- request's results by index.
CREATE TABLE ${schema}.${prefix}results (
  job_id bigint PRIMARY KEY REFERENCES ${schema}.${prefix}jobs (id),
  request_id bigint NOT NULL,
  attempt integer NOT NULL CHECK (attempt >= 1),
  collector text NOT NULL,
  stored_at timestamptz NOT NULL,
  payload bytea NOT NULL CHECK (octet_length(payload) <= 1048576)
);
CREATE INDEX ${prefix}results_request ON ${schema}.${prefix}results (request_id, job_id);

-- GPU budgets. The database itself keeps two live leases from sharing a device: ${prefix}held_devices has one
-- row per device a lease holds, its primary key is (collector, device), and each row belongs to its lease
-- (ON DELETE CASCADE), so ending a lease in any way frees its devices in the same statement. A device can only
-- be held if the collector advertised it (the foreign key to ${prefix}collector_devices).
CREATE TABLE ${schema}.${prefix}collector_devices (
  collector text NOT NULL REFERENCES ${schema}.${prefix}collectors (name),
  device integer NOT NULL CHECK (device BETWEEN 0 AND 255),
  PRIMARY KEY (collector, device)
);

CREATE TABLE ${schema}.${prefix}held_devices (
  collector text NOT NULL,
  device integer NOT NULL,
  job_id bigint NOT NULL REFERENCES ${schema}.${prefix}leases (job_id) ON DELETE CASCADE,
  -- When the holder is expected to end: its claim plus its job's estimate (or its first expiry without one).
  estimated_end timestamptz NOT NULL,
  -- Two live leases never share a device.
  CONSTRAINT ${prefix}held_devices_once PRIMARY KEY (collector, device),
  FOREIGN KEY (collector, device) REFERENCES ${schema}.${prefix}collector_devices (collector, device)
);
CREATE INDEX ${prefix}held_devices_job ON ${schema}.${prefix}held_devices (job_id);

-- Queued GPU jobs are listed here instead of in ${prefix}queued: the one-statement claim of jobs that need no
-- GPU never meets them, and claims of GPU jobs read the oldest job of each GPU count of a tag from its index.
CREATE TABLE ${schema}.${prefix}gpu_queued (
  job_id bigint PRIMARY KEY REFERENCES ${schema}.${prefix}jobs (id),
  collector_tag text NOT NULL,
  gpus integer NOT NULL CHECK (gpus >= 1),
  estimate_micros bigint NOT NULL
);
CREATE INDEX ${prefix}gpu_queued_claim ON ${schema}.${prefix}gpu_queued (collector_tag, gpus, job_id);

-- Fleet shares: per (pool, cadence), how many runners or GPUs the cadence's live leases in the pool may hold at
-- once, and whether it may borrow idle capacity. A claim of a pool that has shares takes the pool's advisory
-- transaction lock, so that the share check and the lease are one step for every claimer of the pool.
CREATE TABLE ${schema}.${prefix}fleet_shares (
  pool text NOT NULL CHECK (length(pool) BETWEEN 1 AND 200),
  cadence text NOT NULL CHECK (length(cadence) BETWEEN 1 AND 200),
  unit text NOT NULL CHECK (unit IN ('RUNNERS', 'GPUS')),
  amount integer NOT NULL CHECK (amount BETWEEN 1 AND 1000000),
  borrow boolean NOT NULL,
  PRIMARY KEY (pool, cadence)
);

-- Kept reservations: a pool's reservation stays with the job it was given to until that job starts. Every GPU
-- claim of a pool, under the pool's advisory transaction lock, records here the pool's reservation as it
-- stands after its last placement (one row per pool, or none); the next claim offers that job as a candidate
-- and keeps the host reserved for it while it is queued. A row whose job has left the queue is ignored and
-- replaced by the next claim; job ids are never reused.
CREATE TABLE ${schema}.${prefix}reservations (
  collector_tag text PRIMARY KEY CHECK (length(collector_tag) BETWEEN 1 AND 200),
  job_id bigint NOT NULL,
  host text NOT NULL CHECK (length(host) BETWEEN 1 AND 200)
);

-- The database keeps the lists of queued jobs complete: the triggers add a job's row whenever it becomes
-- queued (inserted queued, requeued after a lost lease or a transient failure, or set to QUEUED by hand), so
-- a queued job is always claimable. Leaving the queued state removes the row in the same statement (claims,
-- cancellation); a row whose job is no longer queued (a state edited by hand) is never claimed, and the next
-- claim that meets it deletes it. The function also notifies collectors waiting for work (LISTEN
-- cipolicy_queue) with the payload "<schema>.<prefix> <collector tag>": schema and prefix are plain
-- identifiers and a tag has no white space, so the space separates them. PostgreSQL delivers a notification
-- when the transaction commits and sends identical ones of one transaction once.
CREATE FUNCTION ${schema}.${prefix}list_queued_job() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.gpus > 0 THEN
    INSERT INTO ${schema}.${prefix}gpu_queued (job_id, collector_tag, gpus, estimate_micros)
      VALUES (NEW.id, NEW.collector_tag, NEW.gpus, NEW.estimate_micros)
      ON CONFLICT (job_id) DO UPDATE SET collector_tag = EXCLUDED.collector_tag;
  ELSE
    INSERT INTO ${schema}.${prefix}queued (job_id, collector_tag, affinity)
      VALUES (NEW.id, NEW.collector_tag, NEW.affinity)
      ON CONFLICT (job_id) DO UPDATE SET collector_tag = EXCLUDED.collector_tag, affinity = EXCLUDED.affinity;
  END IF;
  PERFORM pg_notify('cipolicy_queue', TG_TABLE_SCHEMA || '.${prefix} ' || NEW.collector_tag);
  RETURN NULL;
END
$fn$;

-- The WHEN conditions are checked per row without calling the function: claims and completions (which never
-- make a job queued) pay only for the check.
CREATE TRIGGER ${prefix}jobs_list_inserted AFTER INSERT ON ${schema}.${prefix}jobs
  FOR EACH ROW WHEN (NEW.state = 'QUEUED') EXECUTE FUNCTION ${schema}.${prefix}list_queued_job();
CREATE TRIGGER ${prefix}jobs_list_requeued AFTER UPDATE OF state, affinity, collector_tag ON ${schema}.${prefix}jobs
  FOR EACH ROW WHEN (NEW.state = 'QUEUED' AND (OLD.state <> 'QUEUED' OR OLD.affinity IS DISTINCT FROM NEW.affinity
    OR OLD.collector_tag <> NEW.collector_tag))
  EXECUTE FUNCTION ${schema}.${prefix}list_queued_job();

-- ---- added after the squash: job logs ----------------------------------------------------------------------
-- One row per attempt of a job that wrote output: the first 64 KiB (head) and the last 64 KiB (tail) of it and
-- the count of every byte, the rule of LogWindow. An append locks the lease row (fenced by attempt and token),
-- reads the two lengths and the count, and writes what LogWindow.plan computes with one upsert; a head that
-- does not change keeps its stored value. Rows go with their job (purge).
CREATE TABLE ${schema}.${prefix}job_logs (
  job_id bigint NOT NULL REFERENCES ${schema}.${prefix}jobs (id) ON DELETE CASCADE,
  attempt integer NOT NULL CONSTRAINT log_attempt_positive CHECK (attempt >= 1),
  head bytea NOT NULL CONSTRAINT log_head_bounded CHECK (octet_length(head) <= 65536),
  tail bytea NOT NULL CONSTRAINT log_tail_bounded CHECK (octet_length(tail) <= 65536),
  total_bytes bigint NOT NULL CONSTRAINT log_total_counts_kept
    CHECK (total_bytes >= octet_length(head) + octet_length(tail)),
  PRIMARY KEY (job_id, attempt)
);

-- ---- added after the squash: CI runs ------------------------------------------------------------------------
-- CI runs (kind CI_RUN). A CI run request is keyed by (repository, workflow run id, attempt), unique in the
-- store (${prefix}requests_ci_run); it has no tag, parent or PR of its own (its commit and PR are the ci_*
-- columns) and is inserted in progress with its jobs. superseded_by: the newer CI run of the same repository
-- and concurrency group that cancelled it. Jobs carry args, opaque host-defined work of at most 64 KiB, a
-- domain because the column never changes after the insert.
ALTER TABLE ${schema}.${prefix}requests DROP CONSTRAINT ${prefix}requests_kind_check,
  DROP CONSTRAINT request_tag_required,
  ADD COLUMN ci_repository text,
  ADD COLUMN ci_run_id bigint,
  ADD COLUMN ci_attempt integer,
  ADD COLUMN ci_commit text,
  ADD COLUMN ci_cadence text,
  ADD COLUMN ci_event text,
  ADD COLUMN ci_pr bigint,
  ADD COLUMN ci_labels text[],
  ADD COLUMN ci_workflow text,
  ADD COLUMN ci_concurrency_group text,
  ADD COLUMN superseded_by bigint,
  ADD CONSTRAINT request_kind_known CHECK (kind IN ('MASTER', 'TRY', 'RELEASE', 'CI_RUN')),
  ADD CONSTRAINT request_tag_required
    CHECK (tag IS NOT NULL OR kind = 'CI_RUN'
      OR (kind = 'TRY' AND started_at IS NULL AND state IN ('WAITING_FOR_ARTIFACTS', 'CANCELLED'))),
  ADD CONSTRAINT request_ci_run_complete
    CHECK ((kind = 'CI_RUN') = (ci_repository IS NOT NULL)
      AND (ci_repository IS NULL) = (ci_run_id IS NULL) AND (ci_repository IS NULL) = (ci_attempt IS NULL)
      AND (ci_repository IS NULL) = (ci_commit IS NULL) AND (ci_repository IS NULL) = (ci_event IS NULL)
      AND (ci_repository IS NULL) = (ci_cadence IS NULL) AND (ci_repository IS NULL) = (ci_labels IS NULL)),
  ADD CONSTRAINT request_ci_run_key_valid
    CHECK (ci_repository ~ '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$' AND ci_run_id >= 1 AND ci_attempt >= 1
      AND (ci_pr IS NULL OR ci_pr >= 1)),
  ADD CONSTRAINT request_ci_run_has_no_parent
    CHECK (kind <> 'CI_RUN' OR (tag IS NULL AND parent_sha IS NULL AND pr IS NULL AND parent_request IS NULL
      AND started_at IS NOT NULL AND cardinality(benchmark_groups) = 0)),
  ADD CONSTRAINT request_superseded_is_cancelled_ci_run
    CHECK (superseded_by IS NULL OR (kind = 'CI_RUN' AND state = 'CANCELLED' AND superseded_by <> id));
CREATE UNIQUE INDEX ${prefix}requests_ci_run ON ${schema}.${prefix}requests (ci_repository, ci_run_id, ci_attempt);
-- The open CI runs of a repository and concurrency group, which a newer run of the group supersedes.
CREATE INDEX ${prefix}requests_open_ci_group ON ${schema}.${prefix}requests (ci_repository, ci_concurrency_group)
  WHERE kind = 'CI_RUN' AND state = 'IN_PROGRESS' AND ci_concurrency_group IS NOT NULL;
CREATE DOMAIN ${schema}.${prefix}job_args AS text
  CONSTRAINT job_args_size CHECK (octet_length(VALUE) <= 65536);
ALTER TABLE ${schema}.${prefix}jobs ADD COLUMN args ${schema}.${prefix}job_args;

-- ---- added after the squash: collector inventory and retirement ----------------------------------------------
-- A collector registered again with another inventory while a live lease holds a device that inventory removes
-- keeps its taken inventory (devices, device_groups) and records the new one as pending (pending_devices and
-- pending_device_groups, as the other two; NULL when none); its next claim after that lease ends takes it.
-- ${prefix}collector_devices lists the devices taken and those still held by a lease row. retiring: retired while
-- it held live leases; the row stays, inactive, and is left out of every read once it holds none; registering the
-- name again replaces it.
ALTER TABLE ${schema}.${prefix}collectors ADD COLUMN pending_devices integer[],
  ADD COLUMN pending_device_groups integer[],
  ADD COLUMN retiring boolean NOT NULL DEFAULT false,
  ADD CONSTRAINT collector_pending_complete CHECK ((pending_devices IS NULL) = (pending_device_groups IS NULL)),
  ADD CONSTRAINT collector_retiring_inactive CHECK (NOT (retiring AND active));

-- ---- added after the squash: job attempts ------------------------------------------------------------------
-- One row per attempt of a job (QueueStore.attempts): the claim that starts it inserts the collector, the devices
-- its lease holds and the start, in the claim's transaction; the transition that ends its lease (completion,
-- failure, release, expiry, cancellation) sets the end, the outcome (JobAttempt.Outcome) and the error, in its
-- own transaction. Rows go with their job (purge).
CREATE TABLE ${schema}.${prefix}job_attempts (
  job_id bigint NOT NULL REFERENCES ${schema}.${prefix}jobs (id) ON DELETE CASCADE,
  attempt integer NOT NULL CONSTRAINT attempt_number_positive CHECK (attempt >= 1),
  collector text NOT NULL,
  devices integer[] NOT NULL DEFAULT '{}',
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  outcome text CONSTRAINT attempt_outcome_known
    CHECK (outcome IN ('SUCCEEDED', 'FAILED', 'TRANSIENT_FAILURE', 'RELEASED', 'EXPIRED', 'CANCELLED')),
  error text,
  CONSTRAINT attempt_end_complete CHECK ((ended_at IS NULL) = (outcome IS NULL)),
  PRIMARY KEY (job_id, attempt)
);
-- ---- added after the squash: operator controls -------------------------------------------------------------
-- Paused pools: one row per paused collector tag. A claim by a collector of a paused pool leases nothing (the
-- claim fast path does not apply while the row exists; the full path refreshes the heartbeat, processes the
-- pool's expired leases and returns no claim). Resuming deletes the row.
CREATE TABLE ${schema}.${prefix}paused_pools (
  pool text PRIMARY KEY CHECK (length(pool) BETWEEN 1 AND 200),
  paused_at timestamptz NOT NULL
);
-- The operator audit: one row per action an operator took through the fleet server (who, what, on what, how it
-- ended, when), never updated; the page shows the newest.
CREATE TABLE ${schema}.${prefix}operator_actions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL,
  actor text NOT NULL CHECK (length(actor) BETWEEN 1 AND 4096),
  action text NOT NULL CHECK (length(action) BETWEEN 1 AND 4096),
  target text NOT NULL CHECK (length(target) BETWEEN 1 AND 4096),
  result text NOT NULL CHECK (length(result) BETWEEN 1 AND 4096)
);
