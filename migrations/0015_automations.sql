-- Automations: an invoice template on a schedule. A durable job per automation (kind 'automations.run',
-- unique key = the automation id) creates the invoice of each due occurrence, in one transaction with
-- the automation's own row (locked: one runner per automation in every process), the invoice under the
-- Idempotency-Key 'automation:<id>:<occurrence>', its credits, and the `invoice.scheduled` event with
-- its webhook delivery. So an occurrence yields exactly one invoice however often the job runs.

CREATE TABLE automations (
  workspace_id    text NOT NULL REFERENCES workspaces (id),
  id              text NOT NULL,
  name            text NOT NULL,
  -- The POST /invoices fields it creates each invoice with (externalId may hold {n} and {date}).
  template        jsonb NOT NULL,
  every           text NOT NULL CHECK (every IN ('hour', 'day', 'week', 'month')),
  interval_count  integer NOT NULL CHECK (interval_count >= 1),
  start_at        timestamptz NOT NULL,
  end_at          timestamptz,
  max_occurrences integer CHECK (max_occurrences >= 1),
  status          text NOT NULL CHECK (status IN ('active', 'paused', 'ended')),
  -- {"code", "message"} while paused.
  paused_reason   jsonb,
  paused_at       timestamptz,
  -- The first occurrence not run yet; occurrences created, and passed over.
  next_occurrence integer NOT NULL DEFAULT 1,
  occurrences     integer NOT NULL DEFAULT 0,
  skipped         integer NOT NULL DEFAULT 0,
  last_invoice_id text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, id)
);
-- The list, newest first.
CREATE INDEX automations_created_idx ON automations (workspace_id, created_at DESC, id DESC);
-- GET /issues: the workspace's paused automations.
CREATE INDEX automations_paused_idx ON automations (workspace_id, paused_at) WHERE status = 'paused';

-- The automation and occurrence an invoice was created for (null for any other invoice).
ALTER TABLE invoices
  ADD COLUMN automation_id text,
  ADD COLUMN occurrence integer,
  DROP CONSTRAINT invoices_source_check,
  ADD CONSTRAINT invoices_source_check CHECK (source IN ('api', 'portal', 'batch', 'automation'));
CREATE INDEX invoices_automation_idx ON invoices (workspace_id, automation_id, occurrence)
  WHERE automation_id IS NOT NULL;
