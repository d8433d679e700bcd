-- A claim that limits how many jobs of one workspace run at once (webhook deliveries) looks up due jobs
-- workspace by workspace, and skips from one workspace to the next: without this index each look would
-- read every job queued before the ones it wants. Jobs of no workspace are in it too (NULLs last).
CREATE INDEX jobs_workspace_due_idx ON jobs (workspace_id, run_at, id) WHERE failed_at IS NULL;

-- A queue's size swings in seconds: let autovacuum analyze it after a few hundred changes rather than
-- after a fifth of the table, so that claims are not planned for an empty table while a backlog drains.
ALTER TABLE jobs SET (autovacuum_analyze_threshold = 200, autovacuum_analyze_scale_factor = 0.05);
