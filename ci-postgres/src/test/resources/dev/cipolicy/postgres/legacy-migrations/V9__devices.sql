-- Version 9: GPU budgets. A job may need GPUs (gpus, 0 for none) and declares an estimated duration; a
-- collector (a host) advertises its device indices and, optionally, the group of each (an NVLink island);
-- a lease on a GPU job carries the indices of the devices it may use.
--
-- The database itself keeps two live leases from sharing a device: ${prefix}held_devices has one row per
-- device a lease holds, its primary key is (collector, device), and each row belongs to its lease
-- (ON DELETE CASCADE), so ending a lease in any way (completion, failure, release, cancellation, expiry)
-- frees its devices in the same statement. A device can only be held if the collector advertised it
-- (the foreign key to ${prefix}collector_devices).
--
-- Queued GPU jobs are listed in ${prefix}gpu_queued instead of ${prefix}queued: the one-statement claim of
-- jobs that need no GPU never meets them, and claims of GPU jobs read the oldest job of each GPU count of a
-- tag from its index.

ALTER TABLE ${schema}.${prefix}jobs
  ADD COLUMN gpus integer NOT NULL DEFAULT 0 CONSTRAINT ${prefix}jobs_gpus CHECK (gpus BETWEEN 0 AND 256),
  ADD COLUMN estimate_micros bigint NOT NULL DEFAULT 0
    CONSTRAINT ${prefix}jobs_estimate CHECK (estimate_micros BETWEEN 0 AND 31622400000000);

ALTER TABLE ${schema}.${prefix}collectors
  ADD COLUMN devices integer[] NOT NULL DEFAULT '{}',
  -- The group ordinal of each device, in the order of devices; empty when the host declared no groups.
  ADD COLUMN device_groups integer[] NOT NULL DEFAULT '{}';

ALTER TABLE ${schema}.${prefix}leases ADD COLUMN devices integer[] NOT NULL DEFAULT '{}';

CREATE TABLE ${schema}.${prefix}collector_devices (
  collector text NOT NULL REFERENCES ${schema}.${prefix}collectors (name),
  device integer NOT NULL CHECK (device BETWEEN 0 AND 255),
  PRIMARY KEY (collector, device)
);

CREATE TABLE ${schema}.${prefix}held_devices (
  collector text NOT NULL,
  device integer NOT NULL,
  job_id bigint NOT NULL REFERENCES ${schema}.${prefix}leases (job_id) ON DELETE CASCADE,
  -- When the holder is expected to end: its claim plus its job's estimate (or its first expiry without one).
  estimated_end timestamptz NOT NULL,
  -- Two live leases never share a device.
  CONSTRAINT ${prefix}held_devices_once PRIMARY KEY (collector, device),
  FOREIGN KEY (collector, device) REFERENCES ${schema}.${prefix}collector_devices (collector, device)
);
CREATE INDEX ${prefix}held_devices_job ON ${schema}.${prefix}held_devices (job_id);

CREATE TABLE ${schema}.${prefix}gpu_queued (
  job_id bigint PRIMARY KEY REFERENCES ${schema}.${prefix}jobs (id),
  collector_tag text NOT NULL,
  gpus integer NOT NULL CHECK (gpus >= 1),
  estimate_micros bigint NOT NULL
);
CREATE INDEX ${prefix}gpu_queued_claim ON ${schema}.${prefix}gpu_queued (collector_tag, gpus, job_id);

CREATE OR REPLACE FUNCTION ${schema}.${prefix}list_queued_job() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.gpus > 0 THEN
    INSERT INTO ${schema}.${prefix}gpu_queued (job_id, collector_tag, gpus, estimate_micros)
      VALUES (NEW.id, NEW.collector_tag, NEW.gpus, NEW.estimate_micros)
      ON CONFLICT (job_id) DO UPDATE SET collector_tag = EXCLUDED.collector_tag;
  ELSE
    INSERT INTO ${schema}.${prefix}queued (job_id, collector_tag, affinity)
      VALUES (NEW.id, NEW.collector_tag, NEW.affinity)
      ON CONFLICT (job_id) DO UPDATE SET collector_tag = EXCLUDED.collector_tag, affinity = EXCLUDED.affinity;
  END IF;
  PERFORM pg_notify('cipolicy_queue', TG_TABLE_SCHEMA || '.${prefix} ' || NEW.collector_tag);
  RETURN NULL;
END
$fn$;
