-- The change feed's events are partitioned by the week they were written in (Monday to Monday, UTC), so
-- that retention drops a whole week's partition instead of deleting its rows one by one
-- (the event retention job makes the coming weeks and retires the past ones: src/modules/events/
-- change-feed.jobs.ts). As for webhook attempts (0011): weeks, not days, because a feed page names no
-- time and so reads every partition.
--
-- The table as it was becomes the partition `events_legacy` of every time before next Monday: no row is
-- copied and no index is built. It takes the events written until then; retention deletes its rows row by
-- row, as before, and the weeks from next Monday are dropped whole. A range, not the DEFAULT partition: a
-- week is attached by reading the DEFAULT partition for rows of that week, under a lock that holds every
-- read of the feed, and old events may be kept for years (EVENT_RETENTION_DAYS). The DEFAULT partition is
-- new and takes only rows dated in a week without a partition (a clock far off), so it stays small.
--
-- Each week's partition has its own primary key (workspace_id, id): a key on the partitioned table would
-- have to include `created_at`, and building it over the old rows would hold every write for as long as
-- that takes. Ids stay unique across partitions because each workspace's counter
-- (workspaces.event_seq) hands them out.
--
-- Two reads of the old table, here, under the lock the rename takes (appends wait): moving the rows dated
-- from next Monday on (a clock ahead) to their partitions, and attaching it, which checks that every row
-- is before next Monday.

ALTER TABLE events RENAME TO events_legacy;
ALTER INDEX events_pkey RENAME TO events_legacy_pkey;
ALTER INDEX events_invoice_idx RENAME TO events_legacy_invoice_idx;

CREATE TABLE events (
  workspace_id      text NOT NULL,
  id                bigint NOT NULL,
  type              text NOT NULL,
  invoice_id        text,
  payment_intent_id text,
  data              json NOT NULL DEFAULT '{}'::jsonb,
  created_at        timestamptz NOT NULL DEFAULT now()
) PARTITION BY RANGE (created_at);
-- The same definition as the old table's: its index is attached as it is.
CREATE INDEX events_invoice_idx ON events (workspace_id, invoice_id, id) WHERE invoice_id IS NOT NULL;

CREATE TABLE events_default (LIKE events INCLUDING DEFAULTS);
ALTER TABLE events_default ADD PRIMARY KEY (workspace_id, id);
ALTER TABLE events ATTACH PARTITION events_default DEFAULT;

-- The seven weeks from next Monday (UTC), named for their Mondays as src/db/partitions.ts names them.
DO $$
DECLARE
  monday date := date_trunc('week', now() AT TIME ZONE 'UTC')::date + 7;
  week   date;
  name   text;
BEGIN
  FOR offset_weeks IN 0..6 LOOP
    week := monday + 7 * offset_weeks;
    name := 'events_p' || to_char(week, 'YYYYMMDD');
    EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS)', name);
    EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (workspace_id, id)', name);
    EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   name, week || ' 00:00:00+00', (week + 7) || ' 00:00:00+00');
  END LOOP;
END $$;

-- Old rows dated from next Monday on move to their weeks, or to the DEFAULT partition; the rest stay.
WITH moved AS (
  DELETE FROM events_legacy
   WHERE created_at >= ((date_trunc('week', now() AT TIME ZONE 'UTC')::date + 7) || ' 00:00:00+00')::timestamptz
  RETURNING *
)
INSERT INTO events SELECT * FROM moved;

DO $$
BEGIN
  EXECUTE format('ALTER TABLE events ATTACH PARTITION events_legacy FOR VALUES FROM (MINVALUE) TO (%L)',
                 (date_trunc('week', now() AT TIME ZONE 'UTC')::date + 7) || ' 00:00:00+00');
END $$;
