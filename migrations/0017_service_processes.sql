-- The running service processes, so that per-process budgets (the in-memory API key and checkout rate
-- limits) can be divided among those that serve HTTP. Each process upserts its row every few seconds
-- (seen_at), deletes it on a graceful stop, and deletes rows no process has refreshed for a minute (those
-- of processes that ended without a word). Times are the database's, so hosts' clocks need not agree.

CREATE TABLE service_processes (
  -- host:pid:random, unique per start.
  id          text        PRIMARY KEY,
  role        text        NOT NULL CHECK (role IN ('all', 'api', 'worker')),
  started_at  timestamptz NOT NULL DEFAULT now(),
  seen_at     timestamptz NOT NULL DEFAULT now()
);

-- Counting the live ones and deleting the long unseen ones both go by seen_at.
CREATE INDEX service_processes_seen_at ON service_processes (seen_at);
