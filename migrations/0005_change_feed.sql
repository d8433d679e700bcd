-- Change-feed retention: events older than EVENT_RETENTION_DAYS are deleted as a prefix of each
-- workspace's feed, and the highest deleted id is remembered so that a reader whose cursor points into
-- the deleted range is told (410 cursor_expired) instead of silently skipping events.

ALTER TABLE workspaces
  -- Every event with id <= this was deleted by retention (0: nothing deleted yet). Raised in the same
  -- statement as the delete, so one snapshot never sees the events gone but this value not yet raised.
  ADD COLUMN events_pruned_through bigint NOT NULL DEFAULT 0;
