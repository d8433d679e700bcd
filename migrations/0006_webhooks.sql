-- Webhooks: one endpoint per workspace, a delivery row per webhook event (written in the event's own
-- transaction), and the history of attempts. The delivery's attempts are driven by a durable job
-- (kind 'webhooks.deliver'); these tables hold state and diagnostics, never a receiver's response body.

CREATE TABLE webhook_endpoints (
  workspace_id  text PRIMARY KEY REFERENCES workspaces (id),
  url           text NOT NULL,
  enabled       boolean NOT NULL,
  -- HMAC key: it must be readable to sign, so it is stored as is (like an API key's hash is not).
  secret        text NOT NULL,
  secret_created_at timestamptz NOT NULL,
  -- Last successful webhook.test: the one-per-minute limit is checked under this row's lock.
  last_test_at  timestamptz,
  -- When the endpoint was last paused (rotation or PUT enabled=false); null while enabled.
  paused_at     timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
  workspace_id     text NOT NULL REFERENCES workspaces (id),
  -- The body's `id`: a change-feed event id in decimal, or `test_…` for a test delivery.
  event_id         text NOT NULL,
  type             text NOT NULL,
  invoice_id       text,
  -- The body as first built; every attempt sends these exact bytes with a fresh timestamp and signature.
  body             text NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  last_attempt_at  timestamptz,
  last_status_code integer,
  last_error       text,
  last_duration_ms integer,
  -- Retries end (status 'failed') once an attempt fails WEBHOOK_RETRY_WINDOW_SECONDS after this
  -- moment: the delivery's creation, or its latest manual retry or resume.
  window_started_at timestamptz NOT NULL,
  delivered_at     timestamptz,
  created_at       timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, event_id)
);
CREATE INDEX webhook_deliveries_recent_idx ON webhook_deliveries (workspace_id, created_at DESC);
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (workspace_id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (workspace_id) WHERE status = 'failed';
CREATE INDEX webhook_deliveries_invoice_idx ON webhook_deliveries (workspace_id, invoice_id) WHERE invoice_id IS NOT NULL;

CREATE TABLE webhook_attempts (
  workspace_id text NOT NULL REFERENCES workspaces (id),
  id           bigint GENERATED ALWAYS AS IDENTITY,
  event_id     text NOT NULL,
  invoice_id   text,
  attempt      integer NOT NULL,
  started_at   timestamptz NOT NULL,
  duration_ms  integer NOT NULL,
  -- The receiver's HTTP status when it answered; the body is never read past its status line.
  status_code  integer,
  -- null when acknowledged; else a safe category such as 'http_status', 'timeout' or 'blocked_destination'.
  error        text,
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX webhook_attempts_recent_idx ON webhook_attempts (workspace_id, started_at DESC);
CREATE INDEX webhook_attempts_invoice_idx ON webhook_attempts (workspace_id, invoice_id, started_at DESC) WHERE invoice_id IS NOT NULL;
CREATE INDEX webhook_attempts_started_idx ON webhook_attempts (started_at);
