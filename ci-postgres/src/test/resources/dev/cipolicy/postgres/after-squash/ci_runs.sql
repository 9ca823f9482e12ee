-- The CI run objects that version 1 gained after the squash (the block "CI runs" at the end of
-- V1__queue.sql, copied exactly): SquashedSchemaTest applies it on top of the pre-release chain.

-- CI runs (kind CI_RUN). A CI run request is keyed by (repository, workflow run id, attempt), unique in the
-- store (${prefix}requests_ci_run); it has no tag, parent or PR of its own (its commit and PR are the ci_*
-- columns) and is inserted in progress with its jobs. superseded_by: the newer CI run of the same repository
-- and concurrency group that cancelled it. Jobs carry args, opaque host-defined work of at most 64 KiB, a
-- domain because the column never changes after the insert.
ALTER TABLE ${schema}.${prefix}requests DROP CONSTRAINT ${prefix}requests_kind_check,
  DROP CONSTRAINT request_tag_required,
  ADD COLUMN ci_repository text,
  ADD COLUMN ci_run_id bigint,
  ADD COLUMN ci_attempt integer,
  ADD COLUMN ci_commit text,
  ADD COLUMN ci_cadence text,
  ADD COLUMN ci_event text,
  ADD COLUMN ci_pr bigint,
  ADD COLUMN ci_labels text[],
  ADD COLUMN ci_workflow text,
  ADD COLUMN ci_concurrency_group text,
  ADD COLUMN superseded_by bigint,
  ADD CONSTRAINT request_kind_known CHECK (kind IN ('MASTER', 'TRY', 'RELEASE', 'CI_RUN')),
  ADD CONSTRAINT request_tag_required
    CHECK (tag IS NOT NULL OR kind = 'CI_RUN'
      OR (kind = 'TRY' AND started_at IS NULL AND state IN ('WAITING_FOR_ARTIFACTS', 'CANCELLED'))),
  ADD CONSTRAINT request_ci_run_complete
    CHECK ((kind = 'CI_RUN') = (ci_repository IS NOT NULL)
      AND (ci_repository IS NULL) = (ci_run_id IS NULL) AND (ci_repository IS NULL) = (ci_attempt IS NULL)
      AND (ci_repository IS NULL) = (ci_commit IS NULL) AND (ci_repository IS NULL) = (ci_event IS NULL)
      AND (ci_repository IS NULL) = (ci_cadence IS NULL) AND (ci_repository IS NULL) = (ci_labels IS NULL)),
  ADD CONSTRAINT request_ci_run_key_valid
    CHECK (ci_repository ~ '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$' AND ci_run_id >= 1 AND ci_attempt >= 1
      AND (ci_pr IS NULL OR ci_pr >= 1)),
  ADD CONSTRAINT request_ci_run_has_no_parent
    CHECK (kind <> 'CI_RUN' OR (tag IS NULL AND parent_sha IS NULL AND pr IS NULL AND parent_request IS NULL
      AND started_at IS NOT NULL AND cardinality(benchmark_groups) = 0)),
  ADD CONSTRAINT request_superseded_is_cancelled_ci_run
    CHECK (superseded_by IS NULL OR (kind = 'CI_RUN' AND state = 'CANCELLED' AND superseded_by <> id));
CREATE UNIQUE INDEX ${prefix}requests_ci_run ON ${schema}.${prefix}requests (ci_repository, ci_run_id, ci_attempt);
-- The open CI runs of a repository and concurrency group, which a newer run of the group supersedes.
CREATE INDEX ${prefix}requests_open_ci_group ON ${schema}.${prefix}requests (ci_repository, ci_concurrency_group)
  WHERE kind = 'CI_RUN' AND state = 'IN_PROGRESS' AND ci_concurrency_group IS NOT NULL;
CREATE DOMAIN ${schema}.${prefix}job_args AS text
  CONSTRAINT job_args_size CHECK (octet_length(VALUE) <= 65536);
ALTER TABLE ${schema}.${prefix}jobs ADD COLUMN args ${schema}.${prefix}job_args;
