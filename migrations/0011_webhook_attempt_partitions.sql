-- Webhook attempts are partitioned by the week they started in (Monday to Monday, UTC), so that retention
-- drops a whole week's partition instead of deleting its rows one by one (src/db/partitions.ts makes the
-- coming weeks' partitions and drops those past retention, from the webhook retention job). Weeks, not
-- days: a read that names no time (an invoice's attempts, the latest ones) touches every partition.
--
-- The table as it was becomes the DEFAULT partition: no row is copied and its indexes serve the new
-- table's. It holds the attempts written before this migration, and any dated on a day that has no
-- partition; retention deletes those row by row, so it empties within 30 days.
--
-- Attaching a week while the DEFAULT partition holds rows reads all of them, under a lock that holds
-- every read of attempts. So the seven weeks from next Monday are made here, before the DEFAULT partition
-- is attached: it is read once, now, and by the time the service makes a week of its own (eight days
-- ahead, 42 days or more from now) the rows written until next Monday are gone too.
--
-- The partitioned table has no primary key: a unique key would have to include `started_at`, and
-- nothing looks an attempt up by its id (ids only order attempts of the same instant). Ids still come
-- from one sequence, which goes on from the old identity's position. Nor has it a foreign key to
-- `workspaces`: attaching each day's partition would then lock `workspaces` against the updates every
-- create and payment makes (only the service writes attempts, for workspaces that are never deleted).

ALTER TABLE webhook_attempts RENAME TO webhook_attempts_default;
ALTER INDEX webhook_attempts_recent_idx RENAME TO webhook_attempts_default_recent_idx;
ALTER INDEX webhook_attempts_invoice_idx RENAME TO webhook_attempts_default_invoice_idx;
ALTER INDEX webhook_attempts_started_idx RENAME TO webhook_attempts_default_started_idx;

CREATE SEQUENCE webhook_attempt_ids AS bigint;
SELECT setval('webhook_attempt_ids', last_value, is_called) FROM webhook_attempts_id_seq;
ALTER TABLE webhook_attempts_default ALTER COLUMN id DROP IDENTITY;

CREATE TABLE webhook_attempts (
  workspace_id text NOT NULL,
  id           bigint NOT NULL DEFAULT nextval('webhook_attempt_ids'),
  event_id     text NOT NULL,
  invoice_id   text,
  attempt      integer NOT NULL,
  started_at   timestamptz NOT NULL,
  duration_ms  integer NOT NULL,
  -- The receiver's HTTP status when it answered; the body is never read past its status line.
  status_code  integer,
  -- null when acknowledged; else a safe category such as 'http_status', 'timeout' or 'blocked_destination'.
  error        text
) PARTITION BY RANGE (started_at);
ALTER SEQUENCE webhook_attempt_ids OWNED BY webhook_attempts.id;
CREATE INDEX webhook_attempts_recent_idx ON webhook_attempts (workspace_id, started_at DESC);
CREATE INDEX webhook_attempts_invoice_idx ON webhook_attempts (workspace_id, invoice_id, started_at DESC) WHERE invoice_id IS NOT NULL;

-- The seven weeks from next Monday (UTC), named for their Mondays as src/db/partitions.ts names them.
DO $$
DECLARE
  monday date := date_trunc('week', now() AT TIME ZONE 'UTC')::date + 7;
  week   date;
BEGIN
  FOR offset_weeks IN 0..6 LOOP
    week := monday + 7 * offset_weeks;
    EXECUTE format('CREATE TABLE %I (LIKE webhook_attempts INCLUDING DEFAULTS)', 'webhook_attempts_p' || to_char(week, 'YYYYMMDD'));
    EXECUTE format('ALTER TABLE webhook_attempts ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   'webhook_attempts_p' || to_char(week, 'YYYYMMDD'), week || ' 00:00:00+00', (week + 7) || ' 00:00:00+00');
  END LOOP;
END $$;

-- Old rows dated in those weeks (a clock ahead) move to them; the rest stay.
WITH moved AS (
  DELETE FROM webhook_attempts_default
   WHERE started_at >= ((date_trunc('week', now() AT TIME ZONE 'UTC')::date + 7) || ' 00:00:00+00')::timestamptz
     AND started_at < ((date_trunc('week', now() AT TIME ZONE 'UTC')::date + 56) || ' 00:00:00+00')::timestamptz
  RETURNING *
)
INSERT INTO webhook_attempts SELECT * FROM moved;

ALTER TABLE webhook_attempts ATTACH PARTITION webhook_attempts_default DEFAULT;
