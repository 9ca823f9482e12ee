-- Version 2: CHECK constraints for every rule of a single row that the queue's values (Request, Job, Lease,
-- Collector) enforce, so that the database refuses a row edited by hand into a state no operation produces.
-- Rules that span rows (a leased job has exactly one lease row, whose attempt is the job's) cannot be CHECKs;
-- the store's reader reports those (docs/postgres.md, "Impossible rows"). Adding a constraint checks the
-- existing rows: a schema holding such a row refuses this migration and names the constraint.
-- Constraint names are per table, so they need no prefix.

ALTER TABLE ${schema}.${prefix}requests
  ADD CONSTRAINT request_pr_positive CHECK (pr IS NULL OR pr >= 1),
  ADD CONSTRAINT request_tag_plain
    CHECK (tag IS NULL OR (tag <> '' AND length(tag) <= 200 AND tag !~ '[[:space:][:cntrl:]]')),
  ADD CONSTRAINT request_parent_sha_plain
    CHECK (parent_sha IS NULL OR (parent_sha <> '' AND length(parent_sha) <= 200
      AND parent_sha !~ '[[:space:][:cntrl:]]')),
  ADD CONSTRAINT request_groups_plain
    CHECK (array_position(benchmark_groups, NULL) IS NULL AND '' <> ALL (benchmark_groups)),
  ADD CONSTRAINT request_outcome_known CHECK (outcome IN ('SUCCESS', 'PARTIAL_FAILURE', 'FAILURE')),
  ADD CONSTRAINT request_waiting_is_untagged_try
    CHECK (state <> 'WAITING_FOR_ARTIFACTS' OR (kind = 'TRY' AND tag IS NULL)),
  ADD CONSTRAINT request_tag_required
    CHECK (tag IS NOT NULL
      OR (kind = 'TRY' AND started_at IS NULL AND state IN ('WAITING_FOR_ARTIFACTS', 'CANCELLED'))),
  ADD CONSTRAINT request_release_has_no_parent_or_pr CHECK (kind <> 'RELEASE' OR (parent_sha IS NULL AND pr IS NULL)),
  ADD CONSTRAINT request_try_has_pr CHECK (kind <> 'TRY' OR pr IS NOT NULL),
  ADD CONSTRAINT request_started_at
    CHECK ((state IN ('IN_PROGRESS', 'COMPLETED') AND started_at IS NOT NULL)
      OR (state IN ('WAITING_FOR_ARTIFACTS', 'ARTIFACTS_READY') AND started_at IS NULL)
      OR state = 'CANCELLED'),
  ADD CONSTRAINT request_finished_at_iff_terminal
    CHECK ((state IN ('COMPLETED', 'CANCELLED')) = (finished_at IS NOT NULL)),
  ADD CONSTRAINT request_outcome_iff_completed CHECK ((state = 'COMPLETED') = (outcome IS NOT NULL)),
  ADD CONSTRAINT request_reason_iff_cancelled CHECK ((state = 'CANCELLED') = (cancel_reason IS NOT NULL)),
  ADD CONSTRAINT request_tag_is_not_parent CHECK (tag IS NULL OR parent_sha IS NULL OR tag <> parent_sha),
  ADD CONSTRAINT request_parent_request
    CHECK (parent_request IS NULL OR (started_at IS NOT NULL AND parent_request <> id));

ALTER TABLE ${schema}.${prefix}jobs
  ADD CONSTRAINT job_names_plain
    CHECK (benchmark_group <> '' AND length(benchmark_group) <= 200
      AND benchmark_group !~ '[[:space:][:cntrl:]]'
      AND collector_tag <> '' AND length(collector_tag) <= 200 AND collector_tag !~ '[[:space:][:cntrl:]]'),
  ADD CONSTRAINT job_affinity_plain
    CHECK (affinity IS NULL OR (affinity <> '' AND length(affinity) <= 200 AND affinity !~ '[[:space:][:cntrl:]]')),
  ADD CONSTRAINT job_attempt_not_negative CHECK (attempt >= 0),
  ADD CONSTRAINT job_crash_rescues_not_negative CHECK (crash_rescues >= 0),
  ADD CONSTRAINT job_transient_retries_not_negative CHECK (transient_retries >= 0),
  ADD CONSTRAINT job_leased_was_claimed CHECK (state <> 'LEASED' OR attempt >= 1),
  ADD CONSTRAINT job_failure_reason_known
    CHECK (failure_reason IN ('PERMANENT', 'TRANSIENT_BUDGET_EXHAUSTED', 'CRASH_BUDGET_EXHAUSTED')),
  ADD CONSTRAINT job_failure_iff_failed CHECK ((state = 'FAILED') = (failure_reason IS NOT NULL)),
  ADD CONSTRAINT job_failure_complete
    CHECK ((failure_reason IS NULL) = (failure_detail IS NULL) AND (failure_reason IS NULL) = (failure_at IS NULL)),
  ADD CONSTRAINT job_finished_at_iff_terminal
    CHECK ((state IN ('SUCCEEDED', 'FAILED', 'CANCELLED')) = (finished_at IS NOT NULL));

ALTER TABLE ${schema}.${prefix}leases
  ADD CONSTRAINT lease_collector_plain
    CHECK (collector <> '' AND length(collector) <= 200 AND collector !~ '[[:space:][:cntrl:]]');

ALTER TABLE ${schema}.${prefix}collectors
  ADD CONSTRAINT collector_names_plain
    CHECK (name <> '' AND length(name) <= 200 AND name !~ '[[:space:][:cntrl:]]'
      AND tag <> '' AND length(tag) <= 200 AND tag !~ '[[:space:][:cntrl:]]');
