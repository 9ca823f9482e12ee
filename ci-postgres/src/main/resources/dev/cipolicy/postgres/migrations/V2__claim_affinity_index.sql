-- Version 2: an index for the first step of a claim, "queued jobs of my tag with affinity to me, by id".
-- Without it that lookup scans every row of queue_jobs (finished jobs included) on every claim; with it,
-- it reads only the queued jobs that have an affinity, which are few (transient retries, crash rescues).
CREATE INDEX queue_jobs_affinity ON ${schema}.queue_jobs (collector_tag, affinity, id)
  WHERE state = 'QUEUED' AND affinity IS NOT NULL;
