-- A test migration: a later version of the queue schema, applied on top of the shipped version 1.
CREATE INDEX ${prefix}jobs_by_creation ON ${schema}.${prefix}jobs (created_at);
