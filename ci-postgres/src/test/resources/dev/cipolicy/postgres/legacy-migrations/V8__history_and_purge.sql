-- Version 8: the history of completed requests and purging an artifact.
-- The history lists completed requests newest first (completion instant, then id, both descending) and pages
-- by keyset, (finished_at, id) < (cursor); this partial index serves each page as one index range scan.
CREATE INDEX ${prefix}requests_history ON ${schema}.${prefix}requests (finished_at DESC, id DESC)
  WHERE state = 'COMPLETED';

-- A purged request is deleted with its jobs and results, and a request that recorded it as its parent
-- request keeps that id (a parent the store no longer holds has no pending jobs), so parent_request no
-- longer references a row: its foreign key goes. The name PostgreSQL gave it depends on the prefix, so it is
-- looked up.
DO $purge$
DECLARE
  fk text;
BEGIN
  FOR fk IN SELECT conname FROM pg_constraint
      WHERE conrelid = '${schema}.${prefix}requests'::regclass AND confrelid = '${schema}.${prefix}requests'::regclass
        AND contype = 'f'
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', '${schema}.${prefix}requests', fk);
  END LOOP;
END
$purge$;
