-- The baseline: the whole schema, created on an empty database in one transaction.
--
-- It replaces the migrations 0001–0035 of the first development period (their history is in git,
-- before the commit that added this file). A database created by those files cannot be migrated by
-- this one: the migration runner refuses it, and it is recreated from empty (the embedded database:
-- stop the service and delete DATA_DIR/postgres, `.data/postgres` by default).
--
-- This file and every migration after it are frozen once they are on main: a deployed database must
-- never differ from a fresh one. A change is a new migration, recorded in migrations/checksums.json
-- (test/structure/migration-checksums.test.ts refuses any other).
--
-- Tables that belong to a workspace are keyed by workspace_id first, so a sharded PostgreSQL can
-- distribute them by workspace. Amounts of USDC are in micro-units (bigint).
--
-- Contents, in this order; each function has a section of its own, headed `-- == function <name>`:
--   Tables: workspaces and credits · sign-in and API keys · jobs · invoices · the change feed ·
--           payments · credit purchases · webhooks · automations · service processes and limits
--   Functions (with their triggers):
--     notify_jobs, claim_jobs, complete_jobs                     the durable jobs
--     credit_ledger_position                                      the credit ledger
--     append_event, append_events                                 the change feed
--     invoice_number_text, create_invoice_group                   invoice creation
--     notify_order_change, notify_workspace_wallet_change         the payable orders' cache
--     webhook_deliveries_to_send, record_webhook_attempts,
--       claim_webhook_deliveries                                  webhook deliveries


-- ============================================================================================
-- Tables
-- ============================================================================================

-- -- Workspaces and credits ------------------------------------------------------------------

CREATE TABLE workspaces (
  id             text PRIMARY KEY,
  name           text NOT NULL,
  description    text NOT NULL DEFAULT '',
  -- The one receiving address of the workspace: the wallet that signed in and created it (lowercase hex).
  wallet_address text NOT NULL CHECK (wallet_address ~ '^0x[0-9a-f]{40}$'),
  created_at     timestamptz NOT NULL DEFAULT now(),
  -- Per-workspace counters, bumped in the transaction that uses them: numbers are gapless (a rolled-back
  -- create consumes nothing) and the row lock makes commit order equal id order within a workspace.
  invoice_seq    bigint NOT NULL DEFAULT 0,
  event_seq      bigint NOT NULL DEFAULT 0,
  -- Allowed origins of successUrl/cancelUrl, checked when an invoice is created.
  return_origins text[] NOT NULL DEFAULT '{}',
  -- Change-feed retention deletes a prefix of the workspace's events: every event with id <= this was
  -- deleted (0: none yet), so a reader whose cursor points into the deleted range is told (410
  -- cursor_expired). Raised in the same statement as the delete, so one snapshot never sees the events
  -- gone but this value not yet raised.
  events_pruned_through bigint NOT NULL DEFAULT 0
);
CREATE INDEX workspaces_wallet_idx ON workspaces (wallet_address, created_at);

-- Balance and reserve in whole credits; the CHECKs make overspending impossible even under races.
CREATE TABLE credit_accounts (
  workspace_id    text PRIMARY KEY REFERENCES workspaces (id),
  balance         bigint NOT NULL CHECK (balance >= 0),
  reserved        bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0 AND reserved <= balance),
  -- Whether the workspace was its wallet's first, the only one that receives the new-workspace grant,
  -- so the portal can say why a later workspace started with none.
  first_of_wallet boolean NOT NULL DEFAULT true
);

-- Append-only: every change of balance or reserve is one row. Writers change the credit account row
-- first and then append the entry, in one transaction: the account row lock they hold makes `seq`
-- follow commit order and `balance_after` the balance as this entry left it (credit_ledger_position
-- fills both for writers that do not).
CREATE TABLE credit_ledger (
  workspace_id   text NOT NULL,
  id             bigint GENERATED ALWAYS AS IDENTITY,
  kind           text NOT NULL,
  balance_change bigint NOT NULL DEFAULT 0,
  reserve_change bigint NOT NULL DEFAULT 0,
  -- The id of what the entry was for (an invoice or a credit purchase).
  reference      text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  -- The entry's position in the workspace's ledger (1, 2, …: the entry id the API shows, so global
  -- counts never leak between workspaces), and the balance it left.
  seq            bigint NOT NULL,
  balance_after  bigint NOT NULL,
  -- Why the entry was made, in words (a manual grant's reason, the new-workspace grant).
  reason         text,
  PRIMARY KEY (workspace_id, id),
  CONSTRAINT credit_ledger_seq_key UNIQUE (workspace_id, seq)
);

-- -- Sign-in and API keys --------------------------------------------------------------------

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

-- -- Jobs ------------------------------------------------------------------------------------

-- Durable jobs: claimed under a lease (claim_jobs), retried with persisted backoff.
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
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- What a job waiting for something outside the database (the next block of a chain) waits for: when
  -- it happens, a watcher makes every such job due at once instead of leaving it to its retry delay,
  -- which stays the fallback. Set when a handler gives its job back to wait, cleared when it is woken.
  wake_on      text
)
-- A queue's size swings in seconds: autovacuum analyzes it after a few hundred changes rather than
-- after a fifth of the table, so that claims are not planned for an empty table while a backlog drains.
WITH (autovacuum_analyze_threshold = 200, autovacuum_analyze_scale_factor = 0.05);
CREATE INDEX jobs_due_idx ON jobs (run_at) WHERE failed_at IS NULL;
CREATE UNIQUE INDEX jobs_unique_key_idx ON jobs (kind, unique_key) WHERE unique_key IS NOT NULL AND failed_at IS NULL;
CREATE INDEX jobs_wake_on_idx ON jobs (wake_on) WHERE wake_on IS NOT NULL;
-- A claim that limits how many jobs of one workspace run at once (webhook deliveries) looks up due jobs
-- workspace by workspace, skipping from one to the next, each range already in (run_at, id) order.
-- Jobs of no workspace are in it too (NULLs last).
CREATE INDEX jobs_workspace_due_idx ON jobs (workspace_id, run_at, id) WHERE failed_at IS NULL;

-- -- Invoices --------------------------------------------------------------------------------

-- The four tables every invoice creation writes a row into (invoices, events, credit_ledger,
-- idempotency_keys) have no foreign key to workspaces: each is a row trigger, and on a group commit
-- their checks were a sixth of the group's time (docs/performance.md, "Invoice creation"). What the
-- key would guard still holds: no path deletes a workspace, and each writer of these tables writes for
-- a workspace it has read in the same transaction (creation locks it and refuses a missing one,
-- append_event takes the event id from its row, ledger entries follow their account's update, keys are
-- claimed for the workspace of the API key or session that asks).
CREATE TABLE invoices (
  workspace_id   text NOT NULL,
  id             text NOT NULL,
  number         bigint NOT NULL,
  status         text NOT NULL CHECK (status IN ('open', 'processing', 'paid', 'expired', 'cancelled')),
  amount         bigint NOT NULL CHECK (amount > 0),
  currency       text NOT NULL CHECK (currency = 'USDC'),
  network        text,
  expires_in     integer NOT NULL CHECK (expires_in IN (3600, 86400, 432000)),
  expires_at     timestamptz NOT NULL,
  -- Bumped by renewal; payments signed for an older version are refused.
  link_version   integer NOT NULL DEFAULT 1,
  external_id    text,
  success_url    text,
  cancel_url     text,
  -- The receiving address recorded at creation (the workspace wallet then).
  pay_to         text NOT NULL,
  source         text NOT NULL CHECK (source IN ('api', 'portal', 'batch', 'automation')),
  -- The success fee still held in reserve for this invoice (0 once captured or released).
  fee_reserved   bigint NOT NULL DEFAULT 0 CHECK (fee_reserved >= 0),
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  paid_at        timestamptz,
  expired_at     timestamptz,
  cancelled_at   timestamptz,
  -- The automation and occurrence the invoice was created for (null for any other invoice).
  automation_id  text,
  occurrence     integer,
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, number)
);
CREATE INDEX invoices_open_deadline_idx ON invoices (expires_at) WHERE status = 'open';
-- GET /invoice-search: every kind of match is an index range scan within one workspace that already
-- yields invoices in number order, so a page is read from the index without sorting. Many invoices may
-- share an order reference; number last so they come out in page order.
CREATE INDEX invoices_external_id_number_idx ON invoices (workspace_id, external_id, number) WHERE external_id IS NOT NULL;
-- The portal's dashboard sums paid invoices per day over the last 30 days. Partial, so open, expired
-- and cancelled invoices never enter it, and only the payment itself writes to it.
CREATE INDEX invoices_paid_idx ON invoices (workspace_id, paid_at) WHERE paid_at IS NOT NULL;
-- The monthly statement counts a workspace's invoices created, cancelled and expired in one calendar
-- month (paid ones through invoices_paid_idx). Only a cancellation or an expiry writes to the partial
-- ones; invoices_created_idx is one small entry per creation.
CREATE INDEX invoices_created_idx ON invoices (workspace_id, created_at);
CREATE INDEX invoices_cancelled_idx ON invoices (workspace_id, cancelled_at) WHERE status = 'cancelled';
CREATE INDEX invoices_expired_idx ON invoices (workspace_id, expired_at) WHERE status = 'expired';
CREATE INDEX invoices_automation_idx ON invoices (workspace_id, automation_id, occurrence)
  WHERE automation_id IS NOT NULL;

-- Idempotency keys of every create (scope 'invoices.create', 'credit_purchases.create', …).
CREATE TABLE idempotency_keys (
  workspace_id text NOT NULL,
  scope        text NOT NULL,
  key          text NOT NULL,
  -- SHA-256 of the canonical request body: the same key with another body is refused.
  request_hash bytea NOT NULL,
  -- The stored result replayed to retries; set in the transaction that created the key.
  response     jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, scope, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);

-- Invoice batches: the binding of a batch's Idempotency-Key to its request. Each item is created under
-- a key derived from the batch key and its position (in idempotency_keys, like any invoice), so a
-- retried batch replays the items that were created and tries the others again. A workspace retains
-- 1,000 bindings, with no time-based expiry: the 1,001st evicts the oldest. An evicted binding keeps its
-- key and request hash (a tombstone), so a late retry of it is refused (409 batch_binding_evicted)
-- instead of creating its invoices a second time.
CREATE TABLE invoice_batches (
  workspace_id    text NOT NULL REFERENCES workspaces (id),
  idempotency_key text NOT NULL,
  request_hash    bytea NOT NULL,
  item_count      integer NOT NULL CHECK (item_count BETWEEN 1 AND 25),
  created_at      timestamptz NOT NULL,
  evicted_at      timestamptz,
  PRIMARY KEY (workspace_id, idempotency_key)
);
CREATE INDEX invoice_batches_retained_idx ON invoice_batches (workspace_id, created_at, idempotency_key) WHERE evicted_at IS NULL;

-- -- The change feed -------------------------------------------------------------------------

-- The change feed (outbox): one row per state change, written in the same transaction, in the shape
-- the API serves it. Only append_event and create_invoice_group insert here. `data` is json (its
-- text), not jsonb: the feed serves it as stored, rendered once when written; nothing queries inside it.
CREATE TABLE events (
  workspace_id      text NOT NULL,
  id                bigint NOT NULL,
  type              text NOT NULL,
  invoice_id        text,
  payment_intent_id text,
  data              json NOT NULL DEFAULT '{}'::jsonb,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX events_invoice_idx ON events (workspace_id, invoice_id, id) WHERE invoice_id IS NOT NULL;

-- -- Payments --------------------------------------------------------------------------------

-- Payment intents: one per payment attempt (an EIP-3009 authorization or a submitted transaction), for
-- an invoice or a credit purchase, never both. Purchase attempts share everything else (claims,
-- settlement and verification jobs, the found/holds/overpayment rules) but announce nothing.
CREATE TABLE payment_intents (
  workspace_id       text NOT NULL REFERENCES workspaces (id),
  id                 text NOT NULL,
  invoice_id         text,
  method             text NOT NULL CHECK (method IN ('authorization', 'transaction')),
  status             text NOT NULL CHECK (status IN ('processing', 'succeeded', 'failed')),
  failure_reason     text,
  network            text NOT NULL,
  amount             bigint NOT NULL CHECK (amount > 0),
  pay_to             text NOT NULL,
  payer              text,
  link_version       integer NOT NULL,
  -- The signed EIP-3009 authorization and its signature (method = 'authorization').
  authorization_data jsonb,
  -- The relayer's settlement transaction, stored before it is sent so a retry resends the same bytes.
  settlement_raw     text,
  tx_hash            text,
  log_index          integer,
  block_number       bigint,
  block_time         timestamptz,
  submitted_at       timestamptz NOT NULL,
  finished_at        timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  -- When the payment was found (a mined transfer that pays the order) or accepted (a verified
  -- authorization): from then on it is announced in the feed; before it, a submitted hash is only a claim.
  found_at           timestamptz,
  -- Whether this attempt keeps its order `processing`; while any attempt does, the order is not reopened.
  holds_invoice      boolean NOT NULL DEFAULT false,
  -- A payment that landed for an order another payment had already paid (or that was cancelled).
  overpayment        boolean NOT NULL DEFAULT false,
  credit_purchase_id text,
  PRIMARY KEY (workspace_id, id),
  CONSTRAINT payment_intents_one_order CHECK (num_nonnulls(invoice_id, credit_purchase_id) = 1)
);
-- Exactly one payment pays an order; overpayments are beside it.
CREATE UNIQUE INDEX payment_intents_one_success_idx ON payment_intents (workspace_id, invoice_id)
  WHERE status = 'succeeded' AND NOT overpayment;
CREATE UNIQUE INDEX payment_intents_one_purchase_success_idx ON payment_intents (workspace_id, credit_purchase_id)
  WHERE status = 'succeeded' AND NOT overpayment AND credit_purchase_id IS NOT NULL;
CREATE INDEX payment_intents_invoice_idx ON payment_intents (workspace_id, invoice_id, created_at);
-- A purchase's attempts, newest last (its latest attempt, the holders that keep it processing).
CREATE INDEX payment_intents_purchase_idx ON payment_intents (workspace_id, credit_purchase_id, created_at)
  WHERE credit_purchase_id IS NOT NULL;
-- Payments by transaction hash, across workspaces: a buyer must not submit the relayer's settlement of
-- another payment as their own transfer (it would claim that payment's money for their invoice).
CREATE INDEX payment_intents_tx_hash_idx ON payment_intents (tx_hash) WHERE tx_hash IS NOT NULL;
-- Transaction hash within a workspace, for GET /invoice-search: a search must never touch another
-- workspace's rows, even to filter them out.
CREATE INDEX payment_intents_workspace_tx_hash_idx ON payment_intents (workspace_id, tx_hash, invoice_id) WHERE tx_hash IS NOT NULL;
-- GET /issues lists the workspace's recent overpayments.
CREATE INDEX payment_intents_overpayment_idx ON payment_intents (workspace_id, finished_at) WHERE overpayment;
-- /metrics counts the attempts still in flight on every scrape: a few entries, never the table.
CREATE INDEX payment_intents_processing_idx ON payment_intents (created_at) WHERE status = 'processing';

-- A transfer pays at most one order, in any workspace: keyed by the chain's own identity of it.
CREATE TABLE payment_claims (
  network           text NOT NULL,
  tx_hash           text NOT NULL,
  log_index         integer NOT NULL,
  workspace_id      text NOT NULL,
  payment_intent_id text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (network, tx_hash, log_index)
);

-- Each EIP-3009 authorization the service accepts pays one order and nothing else. The row is written
-- in the transaction that accepts the authorization for an order; a second order (in any workspace, as
-- one wallet may own several) finds it taken. A transaction that executes the authorization (relayed
-- by the service or copied from the mempool and mined by anyone) then pays only this order, wherever
-- its hash is submitted. Authorizer and nonce are lowercase hex.
CREATE TABLE payment_authorizations (
  network            text NOT NULL,
  authorizer         text NOT NULL,
  nonce              text NOT NULL,
  workspace_id       text NOT NULL,
  invoice_id         text,
  credit_purchase_id text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (network, authorizer, nonce),
  CHECK ((invoice_id IS NULL) <> (credit_purchase_id IS NULL))
);

-- The relayer's transaction nonces, one row per (chain, relayer address), shared by every process that
-- settles payments. A settlement takes its nonce under this row's lock, in the same transaction that
-- stores its signed bytes, and is sent after that commits. A row lock, not a session-level advisory
-- lock, so it holds through a transaction pooler too.
CREATE TABLE relayer_nonces (
  chain_id      integer NOT NULL,
  relayer       text NOT NULL,
  -- The next nonce to hand out unless the node is already past it.
  next_nonce    bigint NOT NULL CHECK (next_nonce >= 0),
  -- The node's pending transaction count when it was last seen behind next_nonce, and since when: a
  -- nonce handed out and never sent (its process died between commit and send, and no retry sent it)
  -- holds back every later transaction, so after a while it is handed out again.
  behind_at     bigint,
  behind_since  timestamptz,
  PRIMARY KEY (chain_id, relayer)
);

-- -- Credit purchases ------------------------------------------------------------------------

-- A credit purchase is an order of its own, never an invoice: no number, no change-feed event, no
-- webhook, no timeline. It pays the operator wallet (`pay_to`, lowercase), for one package whose credits
-- and price are copied in, so a later change of CREDIT_PACKAGES does not change it. Its Idempotency-Key
-- lives in idempotency_keys (scope 'credit_purchases.create').
CREATE TABLE credit_purchases (
  workspace_id text NOT NULL REFERENCES workspaces (id),
  id           text NOT NULL,
  package_id   text NOT NULL,
  credits      bigint NOT NULL CHECK (credits > 0),
  price        bigint NOT NULL CHECK (price > 0),
  status       text NOT NULL CHECK (status IN ('open', 'processing', 'paid', 'expired')),
  pay_to       text NOT NULL CHECK (pay_to ~ '^0x[0-9a-f]{40}$'),
  -- The network it was paid on, once paid.
  network      text,
  expires_at   timestamptz NOT NULL,
  created_at   timestamptz NOT NULL,
  paid_at      timestamptz,
  source       text NOT NULL CHECK (source IN ('api', 'portal')),
  PRIMARY KEY (workspace_id, id)
);
-- The list, newest first.
CREATE INDEX credit_purchases_created_idx ON credit_purchases (workspace_id, created_at DESC, id DESC);

-- -- Webhooks --------------------------------------------------------------------------------

-- One endpoint per workspace, a delivery row per webhook event (written in the event's own
-- transaction), and the history of attempts. A delivery's attempts are driven by a durable job (kind
-- 'webhooks.deliver'); these tables hold state and diagnostics, never a receiver's response body.
CREATE TABLE webhook_endpoints (
  workspace_id      text PRIMARY KEY REFERENCES workspaces (id),
  url               text NOT NULL,
  enabled           boolean NOT NULL,
  -- HMAC key: it must be readable to sign, so it is stored as is (like an API key's hash is not).
  secret            text NOT NULL,
  secret_created_at timestamptz NOT NULL,
  -- Last successful webhook.test: the one-per-minute limit is checked under this row's lock.
  last_test_at      timestamptz,
  -- When the endpoint was last paused (rotation or PUT enabled=false); null while enabled.
  paused_at         timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
  workspace_id      text NOT NULL REFERENCES workspaces (id),
  -- The body's `id`: a change-feed event id in decimal, or `test_…` for a test delivery.
  event_id          text NOT NULL,
  type              text NOT NULL,
  invoice_id        text,
  -- The body as first built; every attempt sends these exact bytes with a fresh timestamp and signature.
  body              text NOT NULL,
  status            text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts          integer NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz,
  last_attempt_at   timestamptz,
  last_status_code  integer,
  last_error        text,
  last_duration_ms  integer,
  -- Retries end (status 'failed') once an attempt fails WEBHOOK_RETRY_WINDOW_SECONDS after this
  -- moment: the delivery's creation, or its latest manual retry or resume.
  window_started_at timestamptz NOT NULL,
  delivered_at      timestamptz,
  created_at        timestamptz NOT NULL,
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

-- -- Automations -----------------------------------------------------------------------------

-- An invoice template on a schedule. A durable job per automation (kind 'automations.run', unique key =
-- the automation id) creates the invoice of each due occurrence, in one transaction with the
-- automation's own row (locked: one runner per automation in every process), the invoice under the
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

-- -- Service processes and limits ------------------------------------------------------------

-- The running service processes, so that per-process budgets (the in-memory API key and checkout rate
-- limits) can be divided among those that serve HTTP. Each process upserts its row every few seconds
-- (seen_at), deletes it on a graceful stop, and deletes rows no process has refreshed for a minute
-- (those of processes that ended without a word). Times are the database's, so hosts' clocks need not
-- agree.
CREATE TABLE service_processes (
  -- host:pid:random, unique per start.
  id          text        PRIMARY KEY,
  role        text        NOT NULL CHECK (role IN ('all', 'api', 'worker')),
  started_at  timestamptz NOT NULL DEFAULT now(),
  seen_at     timestamptz NOT NULL DEFAULT now()
);
-- Counting the live ones and deleting the long unseen ones both go by seen_at.
CREATE INDEX service_processes_seen_at ON service_processes (seen_at);

-- Abuse limits that hold across every server process on this database (nonce issuance and failed API
-- key attempts per client IP). One row per (limit, subject): a fixed window that opens at the
-- subject's first hit and lasts the limit's window; the first hit after it ends opens a new one. Each
-- hit is one INSERT … ON CONFLICT DO UPDATE … RETURNING, so concurrent hits are counted exactly.
CREATE TABLE rate_limit_counters (
  -- The limit's name, e.g. 'auth.nonce' or 'api-keys.failed'.
  bucket       text        NOT NULL,
  -- Who is counted, e.g. a client IP address.
  subject      text        NOT NULL,
  hits         integer     NOT NULL CHECK (hits > 0),
  window_ends  timestamptz NOT NULL,
  PRIMARY KEY (bucket, subject)
);
-- The cleanup job deletes rows whose window has ended.
CREATE INDEX rate_limit_counters_window_ends ON rate_limit_counters (window_ends);


-- ============================================================================================
-- Functions
-- ============================================================================================
--
-- PL/pgSQL keeps its statements' plans for the session: the functions the job runners and the webhook
-- worker call after every batch cost less to plan once than statements planned at every call, and
-- they are plain statements through a transaction pooler, unlike prepared ones. Those whose parameters
-- are arrays of ids use their generic plans from the first call (plan_cache_mode): custom plans only
-- repeated the same index scans, and planning took as long as running (docs/performance.md).


-- == function notify_jobs =================================================================
-- Wakes idle job runners (LISTEN jobs: JOBS_CHANNEL in src/jobs/job.repo.ts) when jobs are enqueued;
-- delivered at commit. Called by the trigger jobs_notify, once per INSERT statement.
CREATE FUNCTION notify_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('jobs', '');
  RETURN NULL;
END $$;
CREATE TRIGGER jobs_notify AFTER INSERT ON jobs FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();


-- == function claim_jobs ==================================================================
-- The job runners' claim. Called by claimJobs in src/jobs/claim.ts after every job a runner finishes,
-- and by claim_webhook_deliveries.
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
--
-- Without incremental sort: the generic plan could otherwise serve each workspace's (run_at, id) order
-- from jobs_due_idx, filtering on the workspace, and read six times the buffers that
-- jobs_workspace_due_idx does.
CREATE FUNCTION claim_jobs(
  p_kinds text[], p_worker text, p_lease_seconds float8, p_limit integer,
  p_cap integer, p_running text[], p_room integer[], p_others boolean
) RETURNS TABLE (
  id bigint, kind text, workspace_id text, payload jsonb, unique_key text, run_at timestamptz,
  attempts integer, max_attempts integer, locked_by text, locked_until timestamptz, last_error text,
  failed_at timestamptz, created_at timestamptz, wake_on text,
  next_due_seconds float8, passed_over integer, others_found integer
)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_incremental_sort = off AS $$
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


-- == function complete_jobs ===============================================================
-- Done: deletes the jobs of the claims still held (id, lease holder and attempt all match); returns
-- their ids. Called by completeJobs in src/jobs/job.repo.ts.
CREATE FUNCTION complete_jobs(p_ids bigint[], p_workers text[], p_attempts integer[])
RETURNS SETOF bigint
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
    DELETE FROM jobs j
     USING unnest(p_ids, p_workers, p_attempts) AS c(id, locked_by, attempts)
     WHERE j.id = c.id AND j.locked_by = c.locked_by AND j.attempts = c.attempts
    RETURNING j.id;
END $$;


-- == function credit_ledger_position ======================================================
-- Fills a new ledger entry's position in its workspace's ledger (`seq`) and the balance it left
-- (`balance_after`), for writers that do not give them (src/modules/billing/credits.repo.ts). Relies on
-- the writer holding the credit account's row lock (it updated the account first). create_invoice_group
-- computes both under that lock itself, so the trigger's WHEN leaves its entries alone.
-- Called by the trigger credit_ledger_position, before each insert into credit_ledger.
CREATE FUNCTION credit_ledger_position() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.seq IS NOT NULL AND NEW.balance_after IS NOT NULL THEN
    RETURN NEW;
  END IF;
  SELECT balance INTO NEW.balance_after FROM credit_accounts WHERE workspace_id = NEW.workspace_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'credit_ledger: workspace % has no credit account', NEW.workspace_id;
  END IF;
  SELECT coalesce(max(seq), 0) + 1 INTO NEW.seq FROM credit_ledger WHERE workspace_id = NEW.workspace_id;
  RETURN NEW;
END $$;
CREATE TRIGGER credit_ledger_position BEFORE INSERT ON credit_ledger
  FOR EACH ROW WHEN (NEW.seq IS NULL OR NEW.balance_after IS NULL) EXECUTE FUNCTION credit_ledger_position();


-- == function append_event ================================================================
-- Appends one event: the next id of the workspace's counter (`event_seq`, whose row lock, held to
-- commit, makes commit order equal event id order within a workspace), then the row. With p_id, the
-- caller took the id itself under that lock. Called by append_events.
CREATE FUNCTION append_event(p_workspace_id text, p_type text, p_invoice_id text, p_payment_intent_id text,
                             p_data jsonb, p_created_at timestamptz, p_id bigint DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint := p_id;
BEGIN
  IF v_id IS NULL THEN
    UPDATE workspaces SET event_seq = event_seq + 1 WHERE id = p_workspace_id RETURNING event_seq INTO v_id;
    IF NOT FOUND THEN
      RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'not_found';
    END IF;
  END IF;
  INSERT INTO events (workspace_id, id, type, invoice_id, payment_intent_id, data, created_at)
  VALUES (p_workspace_id, v_id, p_type, p_invoice_id, p_payment_intent_id, p_data::json, p_created_at);
  RETURN v_id;
END $$;


-- == function append_events ===============================================================
-- Appends events (of one workspace or several) in the order of their `ord`; answers each one's id.
-- Each element: {ord, workspace_id, type, invoice_id, payment_intent_id, data, created_at}.
-- Called by append/appendAll in src/modules/events/event.repo.ts, the application's one way to
-- write an event (appendAll also queues the webhook deliveries of webhook kinds).
CREATE FUNCTION append_events(p_events jsonb) RETURNS TABLE (ord integer, id bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_event jsonb;
BEGIN
  FOR v_event IN SELECT value FROM jsonb_array_elements(p_events) ORDER BY (value->>'ord')::integer LOOP
    ord := (v_event->>'ord')::integer;
    id := append_event(v_event->>'workspace_id', v_event->>'type', v_event->>'invoice_id', v_event->>'payment_intent_id',
                       v_event->'data', (v_event->>'created_at')::timestamptz);
    RETURN NEXT;
  END LOOP;
END $$;


-- == function invoice_number_text =========================================================
-- `INV-000042`; past 999999 the number simply grows (formatInvoiceNumber in the application).
-- Called by create_invoice_group, for the `invoice.created` event it writes.
CREATE FUNCTION invoice_number_text(p_number bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'INV-' || lpad(p_number::text, greatest(6, length(p_number::text)), '0') $$;


-- == function create_invoice_group ========================================================
-- Creates a group of invoices in one call and one commit (docs/performance.md, "Invoice creation").
-- Called by createInvoices in src/modules/invoices/invoice.repo.ts, for the groups that
-- src/modules/invoices/invoice.batcher.ts forms of concurrent creates.
--
-- The items come as json text, split once by json_to_recordset into one array per field. The group's
-- workspaces are locked in id order first, then the keys already taken are read (every claimer of an
-- invoice key takes the workspace lock first, so what is read is final) and replayed or refused.
-- Each other item is checked in order against its workspace (wallet, return origins, available
-- credits, which each accepted item uses up); the accepted ones take the next numbers and event ids,
-- and nothing is written for a refused one, so numbers stay gapless. A group holding one key twice is
-- refused as a whole: the service sends the second item after the group, when it replays.
--
-- The group's writes (counters, account, ledger, invoices, `invoice.created` events, keys) are one
-- statement of data-modifying CTEs. The event's data is the invoice the service rendered (`eventTail`)
-- with the number and wallet the database decides put in front. A created item is answered with its
-- number and receiving wallet only (the service has every other field); a replay answers the stored
-- invoice, the row as created in to_jsonb's shape.
CREATE FUNCTION create_invoice_group(p_items json)
RETURNS TABLE (idx integer, outcome text, error_code text, error_detail text, number bigint, pay_to text,
               invoice jsonb)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  -- One array per field, in the items' order.
  v_ws_ids   text[];
  v_keys     text[];
  v_hashes   bytea[];
  v_ttls     integer[];
  v_ids      text[];
  v_amounts  bigint[];
  v_networks text[];
  v_expires  integer[];
  v_nows     timestamptz[];
  v_external text[];
  v_success  text[];
  v_cancel   text[];
  v_origins  json[];
  v_asked_to text[];
  v_costs    bigint[];
  v_fees     bigint[];
  v_sources  text[];
  -- The invoice's JSON as the service rendered it, without its number and wallet and without its opening brace.
  v_tails    text[];
  v_count    integer;
  v_outcome  text[];
  v_code     text[];
  v_detail   text[];
  v_response jsonb[];
  -- Items by workspace, in their given order within one: each workspace is locked once, in id order.
  v_order    integer[];
  -- What each accepted item takes: its number, event id, ledger position and balance, receiving wallet.
  v_number   bigint[];
  v_event    bigint[];
  v_seq      bigint[];
  v_after    bigint[];
  v_pay_to   text[];
  v_ws_id    text;
  v_ws       record;
  v_account  record;
  v_found    boolean;
  v_ledger   bigint;
  v_origin   text;
  v_stored   record;
  i          integer;
BEGIN
  SELECT array_agg(t."workspaceId" ORDER BY t.ord), array_agg(t."idempotencyKey" ORDER BY t.ord),
         array_agg(decode(t."requestHash", 'hex') ORDER BY t.ord), array_agg(t."ttlSeconds" ORDER BY t.ord),
         array_agg(t.id ORDER BY t.ord), array_agg(t.amount ORDER BY t.ord), array_agg(t.network ORDER BY t.ord),
         array_agg(t."expiresIn" ORDER BY t.ord), array_agg(t.now ORDER BY t.ord),
         array_agg(t."externalId" ORDER BY t.ord), array_agg(t."successUrl" ORDER BY t.ord),
         array_agg(t."cancelUrl" ORDER BY t.ord), array_agg(t."urlOrigins" ORDER BY t.ord),
         array_agg(t."payTo" ORDER BY t.ord), array_agg(t.cost ORDER BY t.ord), array_agg(t.fee ORDER BY t.ord),
         array_agg(t.source ORDER BY t.ord), array_agg(t."eventTail" ORDER BY t.ord)
    INTO v_ws_ids, v_keys, v_hashes, v_ttls, v_ids, v_amounts, v_networks, v_expires, v_nows, v_external,
         v_success, v_cancel, v_origins, v_asked_to, v_costs, v_fees, v_sources, v_tails
    FROM ROWS FROM (json_to_recordset(p_items) AS ("workspaceId" text, "idempotencyKey" text, "requestHash" text,
           "ttlSeconds" integer, id text, amount bigint, network text, "expiresIn" integer, now timestamptz,
           "externalId" text, "successUrl" text, "cancelUrl" text, "urlOrigins" json, "payTo" text, cost bigint,
           fee bigint, source text, "eventTail" text))
         WITH ORDINALITY AS t("workspaceId", "idempotencyKey", "requestHash", "ttlSeconds", id, amount, network,
           "expiresIn", now, "externalId", "successUrl", "cancelUrl", "urlOrigins", "payTo", cost, fee, source,
           "eventTail", ord);
  v_count := coalesce(cardinality(v_ids), 0);
  IF v_count = 0 THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM unnest(v_ws_ids, v_keys) AS t(ws, key) WHERE t.key IS NOT NULL
              GROUP BY t.ws, t.key HAVING count(*) > 1) THEN
    RAISE EXCEPTION 'create_invoice_group: a group holds one idempotency key twice';
  END IF;
  v_outcome := array_fill(NULL::text, ARRAY[v_count]);
  v_code := array_fill(NULL::text, ARRAY[v_count]);
  v_detail := array_fill(NULL::text, ARRAY[v_count]);
  v_response := array_fill(NULL::jsonb, ARRAY[v_count]);
  v_number := array_fill(NULL::bigint, ARRAY[v_count]);
  v_event := array_fill(NULL::bigint, ARRAY[v_count]);
  v_seq := array_fill(NULL::bigint, ARRAY[v_count]);
  v_after := array_fill(NULL::bigint, ARRAY[v_count]);
  v_pay_to := array_fill(NULL::text, ARRAY[v_count]);
  v_order := ARRAY(SELECT t.ord FROM unnest(v_ws_ids) WITH ORDINALITY AS t(ws, ord) ORDER BY t.ws, t.ord);

  -- The group's workspaces, locked in id order before their keys are read. Every claimer of an invoice
  -- key takes this lock first, so a request still running with one of the keys holds it until it
  -- commits, and what is read below is final.
  PERFORM 1 FROM workspaces WHERE id = ANY (v_ws_ids) ORDER BY id FOR NO KEY UPDATE;
  FOR v_stored IN
    SELECT t.ord, k.request_hash = t.hash AS same_request, k.response
      FROM unnest(v_ws_ids, v_keys, v_hashes) WITH ORDINALITY AS t(ws, key, hash, ord)
           -- One primary-key probe an item, whatever the table's statistics said when the plan was made.
           CROSS JOIN LATERAL (SELECT request_hash, response FROM idempotency_keys
                                WHERE workspace_id = t.ws AND scope = 'invoices.create' AND key = t.key
                                LIMIT 1) k
  LOOP
    v_outcome[v_stored.ord] := CASE WHEN v_stored.same_request THEN 'replayed' ELSE 'idempotency_key_reused' END;
    v_response[v_stored.ord] := CASE WHEN v_stored.same_request THEN v_stored.response END;
  END LOOP;

  FOREACH i IN ARRAY v_order LOOP
    IF v_ws_id IS DISTINCT FROM v_ws_ids[i] THEN
      v_ws_id := v_ws_ids[i];
      -- Locked above. No row: every field reads null, and the items are refused as not found.
      SELECT invoice_seq, event_seq, wallet_address, return_origins INTO v_ws FROM workspaces WHERE id = v_ws_id;
      SELECT balance, reserved INTO v_account FROM credit_accounts WHERE workspace_id = v_ws_id FOR NO KEY UPDATE;
      v_found := FOUND;
      SELECT coalesce(max(seq), 0) INTO v_ledger FROM credit_ledger WHERE workspace_id = v_ws_id;
    END IF;
    CONTINUE WHEN v_outcome[i] IS NOT NULL;

    v_origin := NULL;
    IF json_array_length(coalesce(v_origins[i], '[]')) > 0 THEN
      SELECT origin INTO v_origin FROM json_array_elements_text(v_origins[i]) AS o(origin)
       WHERE NOT origin = ANY (v_ws.return_origins)
       LIMIT 1;
    END IF;
    IF v_ws.wallet_address IS NULL THEN
      v_code[i] := 'not_found';
    ELSIF v_asked_to[i] IS NOT NULL AND v_asked_to[i] <> v_ws.wallet_address THEN
      v_code[i] := 'pay_to_mismatch';
    ELSIF v_origin IS NOT NULL THEN
      v_code[i] := 'return_origin_not_allowed';
      v_detail[i] := v_origin;
    ELSIF NOT v_found OR v_account.balance - v_account.reserved < v_costs[i] + v_fees[i] THEN
      v_code[i] := 'insufficient_credits';
    END IF;
    IF v_code[i] IS NOT NULL THEN
      v_outcome[i] := 'refused';
      CONTINUE;
    END IF;

    v_ws.invoice_seq := v_ws.invoice_seq + 1;
    v_ws.event_seq := v_ws.event_seq + 1;
    v_account.balance := v_account.balance - v_costs[i];
    v_account.reserved := v_account.reserved + v_fees[i];
    v_ledger := v_ledger + 1;
    v_outcome[i] := 'created';
    v_number[i] := v_ws.invoice_seq;
    v_event[i] := v_ws.event_seq;
    v_seq[i] := v_ledger;
    v_after[i] := v_account.balance;
    v_pay_to[i] := v_ws.wallet_address;
  END LOOP;

  -- The group's writes, one statement: each workspace as its accepted items leave it (its row and account
  -- are locked since they were read), the ledger, the invoices, their events, and the keys with the
  -- answer a retry replays (the invoice row as inserted, in to_jsonb's shape).
  IF 'created' = ANY (v_outcome) THEN
    WITH counters AS (
      UPDATE workspaces w SET invoice_seq = t.invoice_seq, event_seq = t.event_seq
        FROM (SELECT u.ws, max(u.number) AS invoice_seq, max(u.event) AS event_seq
                FROM unnest(v_ws_ids, v_number, v_event, v_outcome) AS u(ws, number, event, outcome)
               WHERE u.outcome = 'created' GROUP BY u.ws) t
       WHERE w.id = t.ws
    ), accounts AS (
      UPDATE credit_accounts a SET balance = a.balance - t.cost, reserved = a.reserved + t.fee
        FROM (SELECT u.ws, sum(u.cost) AS cost, sum(u.fee) AS fee
                FROM unnest(v_ws_ids, v_costs, v_fees, v_outcome) AS u(ws, cost, fee, outcome)
               WHERE u.outcome = 'created' GROUP BY u.ws) t
       WHERE a.workspace_id = t.ws
    ), ledger AS (
      INSERT INTO credit_ledger (workspace_id, kind, balance_change, reserve_change, reference, seq, balance_after)
      SELECT t.ws, 'invoice.created', -t.cost, t.fee, t.id, t.seq, t.after
        FROM unnest(v_ws_ids, v_ids, v_costs, v_fees, v_outcome, v_seq, v_after) WITH ORDINALITY
             AS t(ws, id, cost, fee, outcome, seq, after, ord)
       WHERE t.outcome = 'created'
       ORDER BY t.ord
    ), created AS (
      INSERT INTO invoices (workspace_id, id, number, status, amount, currency, network, expires_in, expires_at,
                            external_id, success_url, cancel_url, pay_to, source, fee_reserved, created_at, updated_at)
      SELECT t.ws, t.id, t.number, 'open', t.amount, 'USDC', t.network, t.expires_in,
             t.now + make_interval(secs => t.expires_in), t.external, t.success, t.cancel, t.pay_to, t.source,
             t.fee, t.now, t.now
        FROM unnest(v_ws_ids, v_ids, v_number, v_amounts, v_networks, v_expires, v_nows, v_external, v_success,
                    v_cancel, v_pay_to, v_sources, v_fees, v_outcome) WITH ORDINALITY
             AS t(ws, id, number, amount, network, expires_in, now, external, success, cancel, pay_to, source, fee,
                  outcome, ord)
       WHERE t.outcome = 'created'
       ORDER BY t.ord
    ), events AS (
      INSERT INTO events (workspace_id, id, type, invoice_id, payment_intent_id, data, created_at)
      SELECT t.ws, t.event, 'invoice.created', t.id, NULL,
             ('{"invoice":{"number":' || to_json(invoice_number_text(t.number))::text
              || ',"payTo":' || to_json(t.pay_to)::text || ',' || t.tail || '}')::json,
             t.now
        FROM unnest(v_ws_ids, v_ids, v_outcome, v_number, v_event, v_pay_to, v_tails, v_nows) WITH ORDINALITY
             AS t(ws, id, outcome, number, event, pay_to, tail, now, ord)
       WHERE t.outcome = 'created'
       ORDER BY t.ord
    )
    INSERT INTO idempotency_keys (workspace_id, scope, key, request_hash, expires_at, response)
    SELECT t.ws, 'invoices.create', t.key, t.hash, t.now + make_interval(secs => t.ttl),
           jsonb_build_object(
             'workspace_id', t.ws, 'id', t.id, 'number', t.number, 'status', 'open', 'amount', t.amount,
             'currency', 'USDC', 'network', t.network, 'expires_in', t.expires_in,
             'expires_at', t.now + make_interval(secs => t.expires_in), 'link_version', 1,
             'external_id', t.external, 'success_url', t.success, 'cancel_url', t.cancel, 'pay_to', t.pay_to,
             'source', t.source, 'fee_reserved', t.fee, 'created_at', t.now, 'updated_at', t.now,
             'paid_at', NULL, 'expired_at', NULL, 'cancelled_at', NULL, 'automation_id', NULL, 'occurrence', NULL)
      FROM unnest(v_ws_ids, v_keys, v_hashes, v_ttls, v_ids, v_number, v_amounts, v_networks, v_expires, v_nows,
                  v_external, v_success, v_cancel, v_pay_to, v_sources, v_fees, v_outcome)
           AS t(ws, key, hash, ttl, id, number, amount, network, expires_in, now, external, success, cancel, pay_to,
                source, fee, outcome)
     WHERE t.outcome = 'created' AND t.key IS NOT NULL
     ORDER BY t.ws, t.key;
  END IF;

  RETURN QUERY SELECT (t.ord - 1)::integer, t.outcome, t.code, t.detail, t.number, t.pay_to, t.response
    FROM unnest(v_outcome, v_code, v_detail, v_number, v_pay_to, v_response) WITH ORDINALITY
         AS t(outcome, code, detail, number, pay_to, response, ord);
END $$;


-- == function notify_order_change =========================================================
-- Announces every change that can make an order payable or not, so that API processes may keep copies
-- of order states for x402 challenges (src/modules/payments/order-state-cache.ts, channel
-- order_changes) and drop one the moment it changes. The payload is "<workspace id> <order id>".
-- NOTIFY is sent at COMMIT, and identical payloads within one transaction are sent once.
-- Called by the triggers invoices_order_changes and credit_purchases_order_changes.
CREATE FUNCTION notify_order_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('order_changes', OLD.workspace_id || ' ' || OLD.id);
  RETURN NULL;
END $$;
CREATE TRIGGER invoices_order_changes AFTER UPDATE OR DELETE ON invoices
  FOR EACH ROW EXECUTE FUNCTION notify_order_change();
CREATE TRIGGER credit_purchases_order_changes AFTER UPDATE OR DELETE ON credit_purchases
  FOR EACH ROW EXECUTE FUNCTION notify_order_change();


-- == function notify_workspace_wallet_change ==============================================
-- As notify_order_change, for every order of a workspace at once: its receiving wallet changed. The
-- payload is "<workspace id>". Called by the trigger workspaces_order_changes.
CREATE FUNCTION notify_workspace_wallet_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('order_changes', OLD.id);
  RETURN NULL;
END $$;
CREATE TRIGGER workspaces_order_changes AFTER UPDATE OF wallet_address OR DELETE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION notify_workspace_wallet_change();


-- == function webhook_deliveries_to_send ==================================================
-- Each (workspace, event)'s delivery with its workspace's endpoint; none where either is gone.
-- Called by findDeliveriesToSend in src/modules/webhooks/webhook.repo.ts (deliveries whose job was claimed
-- without claim_webhook_deliveries).
CREATE FUNCTION webhook_deliveries_to_send(p_workspace_ids text[], p_event_ids text[])
RETURNS TABLE (
  workspace_id text, event_id text, invoice_id text, body text, attempts integer, status text,
  window_started_at timestamptz, url text, enabled boolean, secret text
)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
    SELECT d.workspace_id, d.event_id, d.invoice_id, d.body, d.attempts, d.status, d.window_started_at,
           e.url, e.enabled, e.secret
      FROM unnest(p_workspace_ids, p_event_ids) AS k(workspace_id, event_id)
      JOIN webhook_deliveries d ON d.workspace_id = k.workspace_id AND d.event_id = k.event_id
      JOIN webhook_endpoints e ON e.workspace_id = k.workspace_id;
END $$;


-- == function record_webhook_attempts =====================================================
-- Appends each attempt and records its result on its delivery, unless the delivery already succeeded
-- or (p_window_started_at given) is in another retry window now. Takes each attempt's job claim too,
-- and deletes the job in the same statement when the result ends the delivery (succeeded or failed):
-- one commit per batch, and no moment when a finished delivery still has a job. The deletion is fenced
-- like complete_jobs (id, lease holder and attempt all match); a job whose claim was lost, or whose
-- delivery goes on being retried, is left to the runner. Returns each recorded attempt's 1-based
-- position and whether its job was deleted. Called by recordAttemptResults in
-- src/modules/webhooks/webhook.repo.ts.
CREATE FUNCTION record_webhook_attempts(
  p_workspace_ids text[], p_event_ids text[], p_invoice_ids text[], p_attempts integer[],
  p_started_at timestamptz[], p_duration_ms integer[], p_status_codes integer[], p_errors text[],
  p_statuses text[], p_next_attempt_at timestamptz[], p_window_started_at timestamptz[],
  p_job_ids bigint[], p_job_workers text[], p_job_attempts integer[]
) RETURNS TABLE (n integer, job_deleted boolean)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    WITH r AS (
      SELECT * FROM unnest(p_workspace_ids, p_event_ids, p_invoice_ids, p_attempts, p_started_at, p_duration_ms,
                           p_status_codes, p_errors, p_statuses, p_next_attempt_at, p_window_started_at,
                           p_job_ids, p_job_workers, p_job_attempts)
             WITH ORDINALITY AS r(workspace_id, event_id, invoice_id, attempt, started_at, duration_ms,
                                  status_code, error, status, next_attempt_at, window_started_at,
                                  job_id, job_worker, job_attempts, n)
    ), appended AS (
      INSERT INTO webhook_attempts (workspace_id, event_id, invoice_id, attempt, started_at, duration_ms, status_code, error)
      SELECT r.workspace_id, r.event_id, r.invoice_id, r.attempt, r.started_at, r.duration_ms, r.status_code, r.error FROM r
    ), recorded AS (
      UPDATE webhook_deliveries d
         SET status = r.status,
             attempts = r.attempt,
             next_attempt_at = r.next_attempt_at,
             last_attempt_at = r.started_at,
             last_status_code = r.status_code,
             last_error = r.error,
             last_duration_ms = r.duration_ms,
             delivered_at = CASE WHEN r.error IS NULL THEN r.started_at END
        FROM r
       WHERE d.workspace_id = r.workspace_id AND d.event_id = r.event_id
         AND d.status <> 'succeeded'
         AND (r.window_started_at IS NULL OR d.window_started_at = r.window_started_at)
      RETURNING r.n, r.status, r.job_id, r.job_worker, r.job_attempts
    ), deleted AS (
      DELETE FROM jobs j
       USING recorded c
       WHERE c.status <> 'pending' AND j.id = c.job_id AND j.locked_by = c.job_worker AND j.attempts = c.job_attempts
      RETURNING j.id
    )
    SELECT c.n::integer, c.job_id IS NOT NULL AND c.job_id IN (SELECT id FROM deleted)
      FROM recorded c;
END $$;


-- == function claim_webhook_deliveries ====================================================
-- The webhook delivery runner's claim: claim_jobs with, on each claimed job, what its handler reads
-- first: the delivery and its workspace's endpoint, as webhook_deliveries_to_send gives them, in a json
-- array (null when either is gone). Called by claimJobs in src/jobs/claim.ts for the runner whose
-- JobRunnerOptions.claimFunction is CLAIM_WITH_DELIVERY (src/modules/webhooks/webhook.repo.ts, which
-- reads the array in deliveryFromClaim).
--
-- The deliveries are read by a statement of their own, after the claim: its snapshot then holds every
-- delivery whose job the claim took (a job and its delivery commit together). A statement around the
-- claim would read with a snapshot taken before claim_jobs's own, and could miss the delivery of a job
-- committed in between: its handler would take the delivery for gone and end the job without sending.
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
#variable_conflict use_column
DECLARE
  v_ids bigint[];
  v_next float8;
  v_passed_over integer;
  v_others_found integer;
BEGIN
  SELECT coalesce(array_agg(c.id) FILTER (WHERE c.id IS NOT NULL), '{}'), max(c.next_due_seconds),
         max(c.passed_over), max(c.others_found)
    INTO v_ids, v_next, v_passed_over, v_others_found
    FROM claim_jobs(p_kinds, p_worker, p_lease_seconds, p_limit, p_cap, p_running, p_room, p_others) AS c;

  -- The claimed rows as the claim left them (this transaction's own update), each with its delivery.
  RETURN QUERY
    SELECT j.id, j.kind, j.workspace_id, j.payload, j.unique_key, j.run_at, j.attempts, j.max_attempts,
           j.locked_by, j.locked_until, j.last_error, j.failed_at, j.created_at, j.wake_on,
           v_next, NULL::integer, NULL::integer,
           (SELECT json_build_array(d.invoice_id, d.body, d.attempts, d.status, d.window_started_at,
                                    e.url, e.enabled, e.secret)
              FROM webhook_deliveries d
              JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id
             WHERE d.workspace_id = j.workspace_id AND d.event_id = j.payload->>'eventId')
      FROM jobs j
     WHERE j.id = ANY(v_ids);
  RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::text, NULL::jsonb, NULL::text, NULL::timestamptz,
    NULL::integer, NULL::integer, NULL::text, NULL::timestamptz, NULL::text, NULL::timestamptz,
    NULL::timestamptz, NULL::text, v_next, v_passed_over, v_others_found, NULL::json;
END $$;
