-- A job waiting for something outside the database (the next block of a chain) names it in `wake_on`: when
-- it happens, a watcher makes every such job due at once instead of leaving it to its retry delay, which
-- stays the fallback. Set when a handler gives its job back to wait, cleared when the job is woken.

ALTER TABLE jobs ADD COLUMN wake_on text;
CREATE INDEX jobs_wake_on_idx ON jobs (wake_on) WHERE wake_on IS NOT NULL;
