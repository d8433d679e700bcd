-- A webhook delivery job used to finish in two commits: its attempt's result (record_webhook_attempts,
-- migration 0024), then the deletion of the job (complete_jobs). This version takes each attempt's job
-- claim too, and deletes the job in the same statement when the recorded result ends the delivery
-- (succeeded or failed): one round trip and one commit less per batch of deliveries, and no moment when
-- a finished delivery still has a job. The deletion is fenced like complete_jobs (id, lease holder and
-- attempt all match); a job whose claim was lost, or whose delivery goes on being retried, is left to
-- the runner. Returns each recorded attempt's 1-based position and whether its job was deleted.
--
-- The version of 0024 stays for processes of the previous release during a rolling upgrade.
CREATE FUNCTION record_webhook_attempts(
  p_workspace_ids text[], p_event_ids text[], p_invoice_ids text[], p_attempts integer[],
  p_started_at timestamptz[], p_duration_ms integer[], p_status_codes integer[], p_errors text[],
  p_statuses text[], p_next_attempt_at timestamptz[], p_window_started_at timestamptz[],
  p_job_ids bigint[], p_job_workers text[], p_job_attempts integer[]
) RETURNS TABLE (n integer, job_deleted boolean)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    WITH r AS (
      SELECT * FROM unnest(p_workspace_ids, p_event_ids, p_invoice_ids, p_attempts, p_started_at, p_duration_ms,
                           p_status_codes, p_errors, p_statuses, p_next_attempt_at, p_window_started_at,
                           p_job_ids, p_job_workers, p_job_attempts)
             WITH ORDINALITY AS r(workspace_id, event_id, invoice_id, attempt, started_at, duration_ms,
                                  status_code, error, status, next_attempt_at, window_started_at,
                                  job_id, job_worker, job_attempts, n)
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
       WHERE d.workspace_id = r.workspace_id AND d.event_id = r.event_id
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
