-- Version 12: a job's own timeout. A job may declare the longest it may run once claimed (the policy's
-- timeout for its suite shard, carried by the planner); the collector that runs it stops it then and fails
-- it. In whole microseconds like the estimate, 0 for none (every job queued before this version), at most
-- 366 days (JobSpec.MAX_TIMEOUT).

ALTER TABLE ${schema}.${prefix}jobs
  ADD COLUMN timeout_micros bigint NOT NULL DEFAULT 0
    CONSTRAINT ${prefix}jobs_timeout CHECK (timeout_micros BETWEEN 0 AND 31622400000000);
