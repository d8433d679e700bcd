-- Webhook deliveries are partitioned by the week of their event (created_at, Monday to Monday, UTC), so
-- that retention drops a whole week's partition instead of deleting its deliveries one by one (the
-- webhook retention job makes the coming weeks and drops the past ones: src/modules/webhooks/
-- webhook.jobs.ts). Weeks, not days, as for attempts (0011) and events (0012): a delivery is looked up by
-- its event id, which names no time, so every partition is probed.
--
-- The key becomes (workspace_id, event_id, created_at): a partitioned table's keys must hold the
-- partition column. A delivery's created_at is always its event's time, so it is still one row an event.
-- It keeps its name, which the writes of a delivery give as their arbiter (`ON CONFLICT ON CONSTRAINT
-- webhook_deliveries_pkey`), so processes of the release before this one go on writing deliveries
-- while this runs and after.
--
-- The table as it was becomes the partition `webhook_deliveries_legacy` of every time before next
-- Monday: no row is copied, and its indexes serve the new table's but the key, which is built anew on it
-- here. It takes the deliveries of events until then; retention deletes its finished ones row by row,
-- as before, and drops it once next Monday is older than the retention. A range, not the DEFAULT
-- partition: a week is attached by reading the DEFAULT partition for rows of that week, under a lock
-- that holds every lookup of a delivery. The DEFAULT partition is new and takes only deliveries dated in
-- a week without a partition: a clock far off, and the pending deliveries of a paused endpoint whose week
-- was dropped (they are moved there), so it stays small.
--
-- No foreign key to `workspaces` on the partitioned table: attaching each week would then lock
-- `workspaces` against the updates every create and payment makes (the old table keeps its own).
--
-- Three reads of the old table, here, under the lock the rename takes (deliveries wait): moving the rows
-- dated from next Monday on (a clock ahead) to their partitions, building the key's index, and attaching
-- it, which checks that every row is before next Monday.

ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_legacy;
ALTER INDEX webhook_deliveries_pkey RENAME TO webhook_deliveries_legacy_event_key;
ALTER INDEX webhook_deliveries_recent_idx RENAME TO webhook_deliveries_legacy_recent_idx;
ALTER INDEX webhook_deliveries_pending_idx RENAME TO webhook_deliveries_legacy_pending_idx;
ALTER INDEX webhook_deliveries_failed_idx RENAME TO webhook_deliveries_legacy_failed_idx;
ALTER INDEX webhook_deliveries_invoice_idx RENAME TO webhook_deliveries_legacy_invoice_idx;

CREATE TABLE webhook_deliveries (
  workspace_id      text NOT NULL,
  -- The body's `id`: a change-feed event id in decimal, or `test_…` for a test delivery.
  event_id          text NOT NULL,
  type              text NOT NULL,
  invoice_id        text,
  -- The body as first built; every attempt sends these exact bytes with a fresh timestamp and signature.
  body              text NOT NULL,
  status            text NOT NULL CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts          integer NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz,
  last_attempt_at   timestamptz,
  last_status_code  integer,
  last_error        text,
  last_duration_ms  integer,
  -- Retries end (status 'failed') once an attempt fails WEBHOOK_RETRY_WINDOW_SECONDS after this
  -- moment: the delivery's creation, or its latest manual retry or resume.
  window_started_at timestamptz NOT NULL,
  delivered_at      timestamptz,
  -- The event's time (a test delivery's own): the week it is kept in.
  created_at        timestamptz NOT NULL,
  CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (workspace_id, event_id, created_at)
) PARTITION BY RANGE (created_at);
-- The same definitions as the old table's: its indexes are attached as they are.
CREATE INDEX webhook_deliveries_recent_idx ON webhook_deliveries (workspace_id, created_at DESC);
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (workspace_id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (workspace_id) WHERE status = 'failed';
CREATE INDEX webhook_deliveries_invoice_idx ON webhook_deliveries (workspace_id, invoice_id) WHERE invoice_id IS NOT NULL;

CREATE TABLE webhook_deliveries_default (LIKE webhook_deliveries INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE webhook_deliveries ATTACH PARTITION webhook_deliveries_default DEFAULT;

-- The seven weeks from next Monday (UTC), named for their Mondays as src/db/partitions.ts names them.
DO $$
DECLARE
  monday date := date_trunc('week', now() AT TIME ZONE 'UTC')::date + 7;
  week   date;
  name   text;
BEGIN
  FOR offset_weeks IN 0..6 LOOP
    week := monday + 7 * offset_weeks;
    name := 'webhook_deliveries_p' || to_char(week, 'YYYYMMDD');
    EXECUTE format('CREATE TABLE %I (LIKE webhook_deliveries INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
    EXECUTE format('ALTER TABLE webhook_deliveries ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   name, week || ' 00:00:00+00', (week + 7) || ' 00:00:00+00');
  END LOOP;
END $$;

-- Old rows dated from next Monday on move to their weeks, or to the DEFAULT partition; the rest stay.
WITH moved AS (
  DELETE FROM webhook_deliveries_legacy
   WHERE created_at >= ((date_trunc('week', now() AT TIME ZONE 'UTC')::date + 7) || ' 00:00:00+00')::timestamptz
  RETURNING workspace_id, event_id, type, invoice_id, body, status, attempts, next_attempt_at, last_attempt_at,
            last_status_code, last_error, last_duration_ms, window_started_at, delivered_at, created_at
)
INSERT INTO webhook_deliveries SELECT * FROM moved;

-- The old table's key gives way to the new one, built on it (a partition has one primary key, and it must
-- be the partitioned table's).
ALTER TABLE webhook_deliveries_legacy DROP CONSTRAINT webhook_deliveries_legacy_event_key;
ALTER TABLE webhook_deliveries_legacy ADD CONSTRAINT webhook_deliveries_legacy_pkey PRIMARY KEY (workspace_id, event_id, created_at);
DO $$
BEGIN
  EXECUTE format('ALTER TABLE webhook_deliveries ATTACH PARTITION webhook_deliveries_legacy FOR VALUES FROM (MINVALUE) TO (%L)',
                 (date_trunc('week', now() AT TIME ZONE 'UTC')::date + 7) || ' 00:00:00+00');
END $$;
