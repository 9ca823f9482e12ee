-- Version 13: the rules of columns that never change after a row is inserted move from CHECK constraints
-- of their table to domains, for the three tables every claim and completion writes (jobs, leases,
-- collectors). The rules are the same; what changes is when PostgreSQL evaluates them. A table's CHECK
-- constraints are prepared and evaluated on every INSERT and on every UPDATE of the row, whichever columns it
-- changes, and each statement prepares them again; a domain's rule is evaluated only where a value is
-- assigned to the column (an INSERT, or an UPDATE that sets it). A job row is updated twice per job (claimed,
-- finished) and a collector row once per heartbeat, and none of these updates sets a name, a GPU count or an
-- estimate, so after this version they no longer pay for those rules.
-- Rules over columns that change (a job's state, attempt, failure and finish columns) stay CHECKs. The
-- domains carry the table prefix, so that two stores in one schema never share one; their constraint names
-- are per domain and need none. Changing a column's type rewrites its table and rebuilds its indexes under an
-- exclusive lock: on a large queue, run this version while no collector is claiming.

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

-- The requeue trigger's condition names collector_tag and affinity, whose type cannot change under it.
DROP TRIGGER ${prefix}jobs_list_requeued ON ${schema}.${prefix}jobs;

ALTER TABLE ${schema}.${prefix}jobs
  DROP CONSTRAINT job_names_plain,
  DROP CONSTRAINT job_affinity_plain,
  DROP CONSTRAINT ${prefix}jobs_gpus,
  DROP CONSTRAINT ${prefix}jobs_estimate,
  DROP CONSTRAINT ${prefix}jobs_cadence,
  DROP CONSTRAINT ${prefix}jobs_timeout,
  ALTER COLUMN benchmark_group TYPE ${schema}.${prefix}plain_name,
  ALTER COLUMN collector_tag TYPE ${schema}.${prefix}plain_name,
  -- Set by every claim (the claimer), so still checked once per job, but no longer at the completion.
  ALTER COLUMN affinity TYPE ${schema}.${prefix}plain_name,
  ALTER COLUMN gpus TYPE ${schema}.${prefix}gpu_count,
  ALTER COLUMN estimate_micros TYPE ${schema}.${prefix}micros,
  ALTER COLUMN timeout_micros TYPE ${schema}.${prefix}micros,
  ALTER COLUMN cadence TYPE ${schema}.${prefix}cadence_name;

CREATE TRIGGER ${prefix}jobs_list_requeued AFTER UPDATE OF state, affinity, collector_tag ON ${schema}.${prefix}jobs
  FOR EACH ROW WHEN (NEW.state = 'QUEUED' AND (OLD.state <> 'QUEUED' OR OLD.affinity IS DISTINCT FROM NEW.affinity
    OR OLD.collector_tag <> NEW.collector_tag))
  EXECUTE FUNCTION ${schema}.${prefix}list_queued_job();

-- A lease is inserted once and then only extended or flagged: its heartbeats no longer evaluate these.
ALTER TABLE ${schema}.${prefix}leases
  DROP CONSTRAINT lease_collector_plain,
  DROP CONSTRAINT ${prefix}leases_attempt_check,
  ALTER COLUMN collector TYPE ${schema}.${prefix}plain_name,
  ALTER COLUMN attempt TYPE ${schema}.${prefix}lease_attempt;

-- A collector's name and tag are set when it registers; its heartbeat rewrites only last_heartbeat_at.
ALTER TABLE ${schema}.${prefix}collectors
  DROP CONSTRAINT collector_names_plain,
  ALTER COLUMN name TYPE ${schema}.${prefix}plain_name,
  ALTER COLUMN tag TYPE ${schema}.${prefix}plain_name;
