-- The webhook delivery runner's claim: claim_jobs (migration 0030) with, on each claimed job, what its
-- handler would read first: the delivery and its workspace's endpoint, as webhook_deliveries_to_send
-- (migration 0024) gives them, in a json array (null when either is gone). One round trip fewer per
-- batch of deliveries. Called from src/jobs/claim.ts (JobRunnerOptions.claimFunction); the array is
-- read by deliveryFromClaim in src/modules/webhooks/webhook.repo.ts.
--
-- The deliveries are read by a statement of their own, after the claim: its snapshot then holds every
-- delivery whose job the claim took (a job and its delivery commit together). A statement around the
-- claim would read with a snapshot taken before claim_jobs's own, and could miss the delivery of a job
-- committed in between: its handler would take the delivery for gone and end the job without sending.

CREATE FUNCTION claim_webhook_deliveries(
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
           (SELECT json_build_array(d.invoice_id, d.body, d.attempts, d.status, d.window_started_at,
                                    e.url, e.enabled, e.secret)
              FROM webhook_deliveries d
              JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id
             WHERE d.workspace_id = j.workspace_id AND d.event_id = j.payload->>'eventId')
      FROM jobs j
     WHERE j.id = ANY(v_ids);
  RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::text, NULL::jsonb, NULL::text, NULL::timestamptz,
    NULL::integer, NULL::integer, NULL::text, NULL::timestamptz, NULL::text, NULL::timestamptz,
    NULL::timestamptz, NULL::text, v_next, v_passed_over, v_others_found, NULL::json;
END $$;
