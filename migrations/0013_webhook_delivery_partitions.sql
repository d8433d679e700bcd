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
-- was dropped (they are moved there), so it holds no more than those backlogs.
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


-- == Looking a delivery up in its week ====================================================================
-- A delivery looked up by its event id alone is probed for in every partition. Its job's payload now
-- carries its created_at (`at`), which the claim gives as the key's third column: only that week's
-- partition is read. Each delivery the claim and webhook_deliveries_to_send give carries its created_at in
-- the database's own text (no precision lost on the way), which the delivery's attempt hands back to
-- record_webhook_attempts, so that its update reads that partition alone too.

-- == function claim_webhook_deliveries (0013) =============================================================
-- As in 0001, and each delivery read in its week when the job names it (the payload's `at`); a job from a
-- release before this one, or one whose `at` finds nothing, reads every partition. The delivery's
-- created_at is the array's ninth element (processes of the release before this one read the first eight).
CREATE OR REPLACE FUNCTION claim_webhook_deliveries(
  p_kinds text[], p_worker text, p_lease_seconds float8, p_limit integer,
  p_cap integer, p_running text[], p_room integer[], p_others boolean
) RETURNS TABLE (
  id bigint, kind text, workspace_id text, payload jsonb, unique_key text, run_at timestamptz,
  attempts integer, max_attempts integer, locked_by text, locked_until timestamptz, last_error text,
  failed_at timestamptz, created_at timestamptz, wake_on text,
  next_due_seconds float8, passed_over integer, others_found integer, details json
)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  v_ids bigint[];
  v_next float8;
  v_passed_over integer;
  v_others_found integer;
BEGIN
  SELECT coalesce(array_agg(c.id) FILTER (WHERE c.id IS NOT NULL), '{}'), max(c.next_due_seconds),
         max(c.passed_over), max(c.others_found)
    INTO v_ids, v_next, v_passed_over, v_others_found
    FROM claim_jobs(p_kinds, p_worker, p_lease_seconds, p_limit, p_cap, p_running, p_room, p_others) AS c;

  -- The claimed rows as the claim left them (this transaction's own update), each with its delivery.
  RETURN QUERY
    SELECT j.id, j.kind, j.workspace_id, j.payload, j.unique_key, j.run_at, j.attempts, j.max_attempts,
           j.locked_by, j.locked_until, j.last_error, j.failed_at, j.created_at, j.wake_on,
           v_next, NULL::integer, NULL::integer,
           coalesce(
             (SELECT json_build_array(d.invoice_id, d.body, d.attempts, d.status, d.window_started_at,
                                      e.url, e.enabled, e.secret, d.created_at)
                FROM webhook_deliveries d
                JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id
               WHERE d.workspace_id = j.workspace_id AND d.event_id = j.payload->>'eventId'
                 AND d.created_at = (j.payload->>'at')::timestamptz),
             -- One row an event (its created_at is the event's time); LIMIT 1 all the same, so that a
             -- second row could never fail the claim of every workspace's jobs.
             (SELECT json_build_array(d.invoice_id, d.body, d.attempts, d.status, d.window_started_at,
                                      e.url, e.enabled, e.secret, d.created_at)
                FROM webhook_deliveries d
                JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id
               WHERE d.workspace_id = j.workspace_id AND d.event_id = j.payload->>'eventId'
               LIMIT 1))
      FROM jobs j
     WHERE j.id = ANY(v_ids);
  RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::text, NULL::jsonb, NULL::text, NULL::timestamptz,
    NULL::integer, NULL::integer, NULL::text, NULL::timestamptz, NULL::text, NULL::timestamptz,
    NULL::timestamptz, NULL::text, v_next, v_passed_over, v_others_found, NULL::json;
END $$;

-- == function webhook_deliveries_to_send (0013) ===========================================================
-- As in 0001, with each delivery's created_at as text (processes of the release before this one read the
-- other columns by name).
DROP FUNCTION webhook_deliveries_to_send(text[], text[]);
CREATE FUNCTION webhook_deliveries_to_send(p_workspace_ids text[], p_event_ids text[])
RETURNS TABLE (
  workspace_id text, event_id text, invoice_id text, body text, attempts integer, status text,
  window_started_at timestamptz, url text, enabled boolean, secret text, created_at text
)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
    SELECT d.workspace_id, d.event_id, d.invoice_id, d.body, d.attempts, d.status, d.window_started_at,
           e.url, e.enabled, e.secret, to_json(d.created_at)#>>'{}'
      FROM unnest(p_workspace_ids, p_event_ids) AS k(workspace_id, event_id)
      JOIN webhook_deliveries d ON d.workspace_id = k.workspace_id AND d.event_id = k.event_id
      JOIN webhook_endpoints e ON e.workspace_id = k.workspace_id;
END $$;

-- == function record_webhook_attempts (0013) ==============================================================
-- As in 0001, with each delivery's created_at (p_created_at), so that a result is written to the
-- delivery's own week. The function of 0001 stays for processes of the release before this one.
-- Each delivery and job is found by its key, one index lookup each, in the week the key names: the
-- planner is kept from hash joins and scans, which read every partition whole when it took the weeks for
-- small (a week not yet analyzed), where a lookup reads one.
CREATE FUNCTION record_webhook_attempts(
  p_workspace_ids text[], p_event_ids text[], p_invoice_ids text[], p_attempts integer[],
  p_started_at timestamptz[], p_duration_ms integer[], p_status_codes integer[], p_errors text[],
  p_statuses text[], p_next_attempt_at timestamptz[], p_window_started_at timestamptz[],
  p_job_ids bigint[], p_job_workers text[], p_job_attempts integer[], p_created_at timestamptz[]
) RETURNS TABLE (n integer, job_deleted boolean)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan
  SET enable_hashjoin = off SET enable_mergejoin = off SET enable_seqscan = off AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    WITH r AS (
      SELECT * FROM unnest(p_workspace_ids, p_event_ids, p_invoice_ids, p_attempts, p_started_at, p_duration_ms,
                           p_status_codes, p_errors, p_statuses, p_next_attempt_at, p_window_started_at,
                           p_job_ids, p_job_workers, p_job_attempts, p_created_at)
             WITH ORDINALITY AS r(workspace_id, event_id, invoice_id, attempt, started_at, duration_ms,
                                  status_code, error, status, next_attempt_at, window_started_at,
                                  job_id, job_worker, job_attempts, created_at, n)
    ), appended AS (
      INSERT INTO webhook_attempts (workspace_id, event_id, invoice_id, attempt, started_at, duration_ms, status_code, error)
      SELECT r.workspace_id, r.event_id, r.invoice_id, r.attempt, r.started_at, r.duration_ms, r.status_code, r.error FROM r
    ), recorded AS (
      UPDATE webhook_deliveries d
         SET status = r.status,
             attempts = r.attempt,
             next_attempt_at = r.next_attempt_at,
             last_attempt_at = r.started_at,
             last_status_code = r.status_code,
             last_error = r.error,
             last_duration_ms = r.duration_ms,
             delivered_at = CASE WHEN r.error IS NULL THEN r.started_at END
        FROM r
       WHERE d.workspace_id = r.workspace_id AND d.event_id = r.event_id AND d.created_at = r.created_at
         AND d.status <> 'succeeded'
         AND (r.window_started_at IS NULL OR d.window_started_at = r.window_started_at)
      RETURNING r.n, r.status, r.job_id, r.job_worker, r.job_attempts
    ), deleted AS (
      DELETE FROM jobs j
       USING recorded c
       WHERE c.status <> 'pending' AND j.id = c.job_id AND j.locked_by = c.job_worker AND j.attempts = c.job_attempts
      RETURNING j.id
    )
    SELECT c.n::integer, c.job_id IS NOT NULL AND c.job_id IN (SELECT id FROM deleted)
      FROM recorded c;
END $$;
