-- Version 3: an index for the first step of a claim, "queued jobs of my tag with affinity to me, by id".
-- Without it that lookup scans every row of the jobs table (finished jobs included) on every claim; with it,
-- it reads only the queued jobs that have an affinity, which are few (transient retries, crash rescues).
CREATE INDEX ${prefix}jobs_affinity ON ${schema}.${prefix}jobs (collector_tag, affinity, id)
  WHERE state = 'QUEUED' AND affinity IS NOT NULL;
