-- Foundation: workspaces, credits, wallet sign-in, API keys, durable jobs.
-- Tables that belong to a workspace are keyed by workspace_id first, so a sharded PostgreSQL
-- can distribute them by workspace.

CREATE TABLE workspaces (
  id             text PRIMARY KEY,
  name           text NOT NULL,
  description    text NOT NULL DEFAULT '',
  -- The one receiving address of the workspace: the wallet that signed in and created it (lowercase hex).
  wallet_address text NOT NULL CHECK (wallet_address ~ '^0x[0-9a-f]{40}$'),
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workspaces_wallet_idx ON workspaces (wallet_address, created_at);

-- Balance and reserve in whole credits; the CHECKs make overspending impossible even under races.
CREATE TABLE credit_accounts (
  workspace_id text PRIMARY KEY REFERENCES workspaces (id),
  balance      bigint NOT NULL CHECK (balance >= 0),
  reserved     bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0 AND reserved <= balance)
);

-- Append-only: every change of balance or reserve is one row.
CREATE TABLE credit_ledger (
  workspace_id   text NOT NULL REFERENCES workspaces (id),
  id             bigint GENERATED ALWAYS AS IDENTITY,
  kind           text NOT NULL,
  balance_change bigint NOT NULL DEFAULT 0,
  reserve_change bigint NOT NULL DEFAULT 0,
  reference      text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE auth_nonces (
  nonce      text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  used_at    timestamptz
);
CREATE INDEX auth_nonces_created_idx ON auth_nonces (created_at);

CREATE TABLE sessions (
  -- SHA-256 of the cookie value; the cookie itself is never stored.
  token_hash     bytea PRIMARY KEY,
  wallet_address text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL
);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

CREATE TABLE api_keys (
  workspace_id      text NOT NULL REFERENCES workspaces (id),
  id                text NOT NULL,
  name              text NOT NULL,
  permissions       text[] NOT NULL,
  -- Fixed to the workspace wallet at creation; a key whose recipient differs is blocked until revoked.
  recipient_address text NOT NULL,
  -- SHA-256 of the secret part; the secret is shown once and never stored.
  secret_hash       bytea NOT NULL,
  -- The first characters of the key, to recognise it in lists.
  display_prefix    text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  last_used_at      timestamptz,
  revoked_at        timestamptz,
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX api_keys_created_idx ON api_keys (workspace_id, created_at);

-- Durable jobs: claimed with FOR UPDATE SKIP LOCKED under a lease, retried with persisted backoff.
CREATE TABLE jobs (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind         text NOT NULL,
  workspace_id text,
  payload      jsonb NOT NULL DEFAULT '{}',
  -- At most one pending job per (kind, unique_key); later enqueues with the same key are no-ops.
  unique_key   text,
  run_at       timestamptz NOT NULL DEFAULT now(),
  attempts     integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 25,
  locked_by    text,
  locked_until timestamptz,
  last_error   text,
  failed_at    timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_due_idx ON jobs (run_at) WHERE failed_at IS NULL;
CREATE UNIQUE INDEX jobs_unique_key_idx ON jobs (kind, unique_key) WHERE unique_key IS NOT NULL AND failed_at IS NULL;

-- Wakes idle workers (LISTEN jobs) when work arrives; delivered at commit.
CREATE FUNCTION notify_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('jobs', '');
  RETURN NULL;
END $$;
CREATE TRIGGER jobs_notify AFTER INSERT ON jobs FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();
