-- Version 5: the trigger that lists a job when it becomes queued also sends a notification, so that
-- collectors waiting for work (PostgresQueueWakeups, LISTEN cipolicy_queue) wake up at once instead of at
-- their next poll. The payload is "<schema>.<prefix> <collector tag>": schema and prefix are plain
-- identifiers and a tag has no white space (CHECK job_names_plain), so the space separates them. PostgreSQL
-- delivers a notification when the transaction commits and sends identical ones of one transaction once, so
-- enqueueing a thousand jobs of one tag sends one.

CREATE OR REPLACE FUNCTION ${schema}.${prefix}list_queued_job() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO ${schema}.${prefix}queued (job_id, collector_tag, affinity)
    VALUES (NEW.id, NEW.collector_tag, NEW.affinity)
    ON CONFLICT (job_id) DO UPDATE SET collector_tag = EXCLUDED.collector_tag, affinity = EXCLUDED.affinity;
  PERFORM pg_notify('cipolicy_queue', TG_TABLE_SCHEMA || '.${prefix} ' || NEW.collector_tag);
  RETURN NULL;
END
$fn$;
