-- Version 6: autovacuum settings for the two tables every claim and completion rewrites. Claims delete
-- rows of ${prefix}queued, completions rows of ${prefix}leases; the deleted rows' index entries stay where the
-- next claim starts reading until a vacuum removes them. The default trigger (50 rows + 20 % of the table)
-- waits for a large queue to leave a fifth of it dead; a fixed threshold vacuums these narrow tables after a
-- few thousand deletions, without throttling. Autovacuum still visits a database at most once per
-- autovacuum_naptime (1 min by default), so under a sustained backlog the site loop also vacuums them
-- (PostgresQueueStore.expireLeases, docs/postgres.md "Tuning").

ALTER TABLE ${schema}.${prefix}queued SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000,
  autovacuum_vacuum_cost_delay = 0);
ALTER TABLE ${schema}.${prefix}leases SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000,
  autovacuum_vacuum_cost_delay = 0);
