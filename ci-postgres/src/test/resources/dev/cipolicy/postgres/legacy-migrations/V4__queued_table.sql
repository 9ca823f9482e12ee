-- Version 4: queued jobs are listed in their own narrow table, and the job row leaves every index a claim
-- or a completion changes.
--
-- Before, claims found work through partial indexes on the job row (WHERE state = 'QUEUED'). That had two
-- costs. Every claim and every completion changed an indexed column (state, affinity), so no job update could
-- be a heap-only (HOT) update: each wrote a new tuple on another page plus an entry in every index of the
-- table. And the planner could prefer walking the primary key past every finished job (with statistics
-- taken while most jobs were queued), so a claim's cost grew with the table's history.
--
-- Now ${prefix}queued holds one row (job, tag, affinity) per queued job; claims lock and delete these rows
-- (FOR UPDATE SKIP LOCKED) and their cost depends only on the queued jobs. The job row's indexed columns
-- (id and the job key) never change after the insert, so with free space on the page (fillfactor 50) its
-- updates are heap-only.
--
-- The database keeps the table complete: triggers add the row whenever a job becomes queued (inserted
-- queued, requeued after a lost lease or a transient failure, or set to QUEUED by hand), so a queued job is
-- always claimable. Leaving the queued state removes the row in the same statement (claims, cancellation);
-- a row whose job is no longer queued (a job's state edited by hand) is never claimed, and the next claim
-- that meets it deletes it.

CREATE TABLE ${schema}.${prefix}queued (
  job_id bigint PRIMARY KEY REFERENCES ${schema}.${prefix}jobs (id),
  collector_tag text NOT NULL,
  affinity text
);
-- The claim index: queued jobs of a tag, by id.
CREATE INDEX ${prefix}queued_claim ON ${schema}.${prefix}queued (collector_tag, job_id);
-- The first step of a claim: queued jobs of a tag with affinity to the claimer (few: retries, rescues).
CREATE INDEX ${prefix}queued_affinity ON ${schema}.${prefix}queued (collector_tag, affinity, job_id)
  WHERE affinity IS NOT NULL;

CREATE FUNCTION ${schema}.${prefix}list_queued_job() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO ${schema}.${prefix}queued (job_id, collector_tag, affinity)
    VALUES (NEW.id, NEW.collector_tag, NEW.affinity)
    ON CONFLICT (job_id) DO UPDATE SET collector_tag = EXCLUDED.collector_tag, affinity = EXCLUDED.affinity;
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

-- Jobs queued before this version.
INSERT INTO ${schema}.${prefix}queued (job_id, collector_tag, affinity)
  SELECT id, collector_tag, affinity FROM ${schema}.${prefix}jobs WHERE state = 'QUEUED';

DROP INDEX ${schema}.${prefix}jobs_claimable;
DROP INDEX ${schema}.${prefix}jobs_affinity;

-- Room on each page for the claim's and the completion's new row versions (heap-only updates). Applies to
-- pages filled from now on; VACUUM FULL or pg_repack rewrites older ones.
ALTER TABLE ${schema}.${prefix}jobs SET (fillfactor = 50);
