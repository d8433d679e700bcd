-- The claim of the job runners (src/jobs/claim.ts) as a function: a runner claims after every job it
-- finishes, and planning the statement cost more than running it (1.2 ms against 0.35 ms a claim while
-- a webhook backlog drained). PL/pgSQL keeps its statements' plans for the session. Plain statements
-- through a transaction pooler, unlike prepared ones.
--
-- Claims up to p_limit due jobs of p_kinds for p_worker, oldest first, counting an attempt each, and
-- says when the next job falls due (one now() for both: every job is claimable now or counted as not
-- yet due). With p_cap, at most p_cap jobs of one workspace run on the claimer at once: p_running are
-- the workspaces it runs some of, p_room how many more each may have; the others (looked for only
-- when p_others) are found by skipping from workspace to workspace along jobs_workspace_due_idx, one
-- probe per workspace however long its backlog. Only the rows claimed are locked (a lock is a write),
-- except without p_cap, where the oldest are locked as found so that concurrent claimers take disjoint
-- rows. passed_over: rows chosen that another claimer took meanwhile; others_found: due jobs found
-- outside p_running. A claim that takes nothing returns one row of nulls with those three.
CREATE FUNCTION claim_jobs(
  p_kinds text[], p_worker text, p_lease_seconds float8, p_limit integer,
  p_cap integer, p_running text[], p_room integer[], p_others boolean
) RETURNS TABLE (
  id bigint, kind text, workspace_id text, payload jsonb, unique_key text, run_at timestamptz,
  attempts integer, max_attempts integer, locked_by text, locked_until timestamptz, last_error text,
  failed_at timestamptz, created_at timestamptz, wake_on text,
  next_due_seconds float8, passed_over integer, others_found integer
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_others bigint[] := '{}';
  v_chosen bigint[];
  v_claimed integer;
  v_next float8;
BEGIN
  IF p_cap IS NULL THEN
    SELECT coalesce(array_agg(j.id), '{}') INTO v_others FROM (
      SELECT j.id FROM jobs j
       WHERE j.kind = ANY(p_kinds) AND j.failed_at IS NULL AND j.run_at <= now() AND j.attempts < j.max_attempts
         AND (j.locked_until IS NULL OR j.locked_until < now())
       ORDER BY j.run_at, j.id LIMIT p_limit
       FOR UPDATE SKIP LOCKED) j;
    v_chosen := v_others;
  ELSE
    IF p_others THEN
      WITH RECURSIVE workspaces(workspace_id) AS (
        (SELECT j.workspace_id FROM jobs j
          WHERE j.workspace_id IS NOT NULL AND j.failed_at IS NULL AND j.kind = ANY(p_kinds)
          ORDER BY j.workspace_id LIMIT 1)
        UNION ALL
        SELECT (SELECT j.workspace_id FROM jobs j
                 WHERE j.workspace_id IS NOT NULL AND j.failed_at IS NULL AND j.kind = ANY(p_kinds)
                   AND j.workspace_id > w.workspace_id
                 ORDER BY j.workspace_id LIMIT 1)
          FROM workspaces w WHERE w.workspace_id IS NOT NULL
      )
      SELECT coalesce(array_agg(c.id), '{}') INTO v_others FROM (
        SELECT j.id FROM workspaces w
         CROSS JOIN LATERAL (
           SELECT j.id FROM jobs j
            WHERE j.workspace_id = w.workspace_id AND j.kind = ANY(p_kinds) AND j.failed_at IS NULL
              AND j.run_at <= now() AND j.attempts < j.max_attempts
              AND (j.locked_until IS NULL OR j.locked_until < now())
            ORDER BY j.run_at, j.id LIMIT least(p_cap, p_limit)) j
         WHERE w.workspace_id IS NOT NULL AND w.workspace_id <> ALL(p_running)
        UNION ALL
        (SELECT j.id FROM jobs j
          WHERE j.workspace_id IS NULL AND j.kind = ANY(p_kinds) AND j.failed_at IS NULL
            AND j.run_at <= now() AND j.attempts < j.max_attempts
            AND (j.locked_until IS NULL OR j.locked_until < now())
          ORDER BY j.run_at, j.id LIMIT p_limit)) c;
    END IF;
    SELECT coalesce(array_agg(c.id ORDER BY c.run_at, c.id), '{}') INTO v_chosen FROM (
      SELECT j.id, j.run_at FROM (
        SELECT j.id, j.run_at FROM jobs j WHERE j.id = ANY(v_others)
        UNION ALL
        SELECT j.id, j.run_at FROM unnest(p_running, p_room) AS r(workspace_id, room)
         CROSS JOIN LATERAL (
           SELECT j.id, j.run_at FROM jobs j
            WHERE j.workspace_id = r.workspace_id AND j.kind = ANY(p_kinds) AND j.failed_at IS NULL
              AND j.run_at <= now() AND j.attempts < j.max_attempts
              AND (j.locked_until IS NULL OR j.locked_until < now())
            ORDER BY j.run_at, j.id LIMIT least(r.room, p_cap, p_limit)) j
         WHERE r.room > 0) j
      ORDER BY j.run_at, j.id LIMIT p_limit) c;
  END IF;

  SELECT extract(epoch FROM min(j.run_at) - now())::float8 INTO v_next FROM jobs j
   WHERE j.kind = ANY(p_kinds) AND j.failed_at IS NULL AND j.run_at > now();

  RETURN QUERY
    WITH locked AS MATERIALIZED (
      SELECT j.id FROM jobs j
       WHERE j.id = ANY(v_chosen) AND j.kind = ANY(p_kinds) AND j.failed_at IS NULL AND j.run_at <= now()
         AND j.attempts < j.max_attempts AND (j.locked_until IS NULL OR j.locked_until < now())
         FOR UPDATE SKIP LOCKED
    )
    UPDATE jobs j
       SET attempts = j.attempts + 1,
           locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds)
      FROM locked
     WHERE j.id = locked.id
    RETURNING j.id, j.kind, j.workspace_id, j.payload, j.unique_key, j.run_at, j.attempts, j.max_attempts,
              j.locked_by, j.locked_until, j.last_error, j.failed_at, j.created_at, j.wake_on,
              v_next, NULL::integer, NULL::integer;
  GET DIAGNOSTICS v_claimed = ROW_COUNT;
  -- The counts and the next due time, on a row of their own (the claimed rows carry nulls there).
  RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::text, NULL::jsonb, NULL::text, NULL::timestamptz,
    NULL::integer, NULL::integer, NULL::text, NULL::timestamptz, NULL::text, NULL::timestamptz,
    NULL::timestamptz, NULL::text, v_next, cardinality(v_chosen) - v_claimed, cardinality(v_others);
END $$;
