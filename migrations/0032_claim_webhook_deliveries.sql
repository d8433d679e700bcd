-- The webhook delivery runner's claim: claim_jobs (migration 0030) with, on each claimed job, what its
-- handler would read first: the delivery and its workspace's endpoint, as webhook_deliveries_to_send
-- (migration 0024) gives them, in a json array (null when either is gone). One round trip fewer per
-- batch of deliveries; the claim's own snapshot is as good as one taken a round trip later, since the
-- attempt's result is recorded only if the delivery is still pending in the same retry window.
-- Called from src/jobs/claim.ts (JobRunnerOptions.claimFunction); the array is read by
-- deliveryFromClaim in src/modules/webhooks/webhook.repo.ts.
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
BEGIN
  -- A subquery per job: one probe of each primary key. (As a join, the planner, expecting a thousand
  -- rows of the function, chose to scan every delivery of the table.)
  RETURN QUERY
    SELECT c.*,
           (SELECT json_build_array(d.invoice_id, d.body, d.attempts, d.status, d.window_started_at, e.url, e.enabled, e.secret)
              FROM webhook_deliveries d
              JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id
             WHERE d.workspace_id = c.workspace_id AND d.event_id = c.payload->>'eventId')
      FROM claim_jobs(p_kinds, p_worker, p_lease_seconds, p_limit, p_cap, p_running, p_room, p_others) AS c;
END $$;
