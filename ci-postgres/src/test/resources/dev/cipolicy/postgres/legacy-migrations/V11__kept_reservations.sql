-- Version 11: kept reservations. A pool's reservation stays with the job it was given to until that job
-- starts. Every GPU claim of a pool, under the pool's advisory transaction lock, records here the pool's
-- reservation as it stands after its last placement (one row per pool: the job and the reserved host, or no
-- row), and the next claim offers that job as a candidate and keeps the host reserved for it while the job is
-- queued (and admitted by its fleet share). The wait reasons read the row too. A row whose job has left the
-- queue (claimed, cancelled, purged) is ignored and replaced by the next claim; job ids are never reused.

CREATE TABLE ${schema}.${prefix}reservations (
  collector_tag text PRIMARY KEY CHECK (length(collector_tag) BETWEEN 1 AND 200),
  job_id bigint NOT NULL,
  host text NOT NULL CHECK (length(host) BETWEEN 1 AND 200)
);
