-- PL/pgSQL keeps its statements' plans, but for the first five runs and whenever it judges a custom
-- plan cheaper it plans again with the call's values. For these statements, whose parameters are arrays
-- of ids and workspaces, it kept choosing custom plans: while a webhook backlog drained, planning inside
-- these functions took about as long as running them (1.9 s of 3.8 s for 5,000 deliveries of one
-- workspace, pg_stat_statements with track = all). Their generic plans are the index scans the custom
-- ones chose, so they are used from the first call.
ALTER FUNCTION claim_jobs(text[], text, float8, integer, integer, text[], integer[], boolean)
  SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION complete_jobs(bigint[], text[], integer[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION record_webhook_attempts(
  text[], text[], text[], integer[], timestamptz[], integer[], integer[], text[], text[], timestamptz[], timestamptz[]
) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION webhook_deliveries_to_send(text[], text[]) SET plan_cache_mode = force_generic_plan;
