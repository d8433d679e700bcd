-- Invoices, their numbering, change-feed events, idempotency keys and checkout return origins.

ALTER TABLE workspaces
  -- Per-workspace counters, bumped in the transaction that uses them: numbers are gapless (a rolled-back
  -- create consumes nothing) and the row lock makes commit order equal id order within a workspace.
  ADD COLUMN invoice_seq bigint NOT NULL DEFAULT 0,
  ADD COLUMN event_seq bigint NOT NULL DEFAULT 0,
  -- Allowed origins of successUrl/cancelUrl, checked when an invoice is created.
  ADD COLUMN return_origins text[] NOT NULL DEFAULT '{}';

CREATE TABLE invoices (
  workspace_id   text NOT NULL REFERENCES workspaces (id),
  id             text NOT NULL,
  number         bigint NOT NULL,
  status         text NOT NULL CHECK (status IN ('open', 'processing', 'paid', 'expired', 'cancelled')),
  -- USDC micro-units.
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
  source         text NOT NULL CHECK (source IN ('api', 'portal', 'batch')),
  -- The success fee still held in reserve for this invoice (0 once captured or released).
  fee_reserved   bigint NOT NULL DEFAULT 0 CHECK (fee_reserved >= 0),
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  paid_at        timestamptz,
  expired_at     timestamptz,
  cancelled_at   timestamptz,
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, number)
);
CREATE INDEX invoices_open_deadline_idx ON invoices (expires_at) WHERE status = 'open';
CREATE INDEX invoices_external_id_idx ON invoices (workspace_id, external_id) WHERE external_id IS NOT NULL;

-- The change feed (outbox): one row per state change, written in the same transaction.
CREATE TABLE events (
  workspace_id      text NOT NULL REFERENCES workspaces (id),
  id                bigint NOT NULL,
  type              text NOT NULL,
  invoice_id        text,
  payment_intent_id text,
  data              jsonb NOT NULL DEFAULT '{}',
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX events_invoice_idx ON events (workspace_id, invoice_id, id) WHERE invoice_id IS NOT NULL;

CREATE TABLE idempotency_keys (
  workspace_id text NOT NULL REFERENCES workspaces (id),
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

-- Creates one invoice in one round trip: idempotency claim, number, credits, invoice, event.
-- Refusals raise (SQLSTATE P0001, message = error code) so that nothing of the attempt remains.
-- A concurrent request with the same idempotency key blocks on the first one's key row and then
-- replays its stored result (or proceeds, if the first rolled back).
CREATE FUNCTION create_invoice(
  p_workspace_id    text,
  p_idempotency_key text,
  p_request_hash    bytea,
  p_idempotency_ttl interval,
  p_invoice_id      text,
  p_amount          bigint,
  p_network         text,
  p_expires_in      integer,
  p_now             timestamptz,
  p_external_id     text,
  p_success_url     text,
  p_cancel_url      text,
  p_url_origins     text[],
  p_pay_to          text,
  p_cost            bigint,
  p_fee             bigint,
  p_source          text
) RETURNS TABLE (outcome text, invoice jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  v_stored   idempotency_keys%ROWTYPE;
  v_ws       record;
  v_invoice  invoices%ROWTYPE;
  v_origin   text;
BEGIN
  IF p_idempotency_key IS NOT NULL THEN
    INSERT INTO idempotency_keys (workspace_id, scope, key, request_hash, expires_at)
    VALUES (p_workspace_id, 'invoices.create', p_idempotency_key, p_request_hash, p_now + p_idempotency_ttl)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
      SELECT * INTO v_stored FROM idempotency_keys
       WHERE workspace_id = p_workspace_id AND scope = 'invoices.create' AND key = p_idempotency_key;
      IF v_stored.request_hash <> p_request_hash THEN
        RETURN QUERY SELECT 'idempotency_key_reused'::text, NULL::jsonb;
      ELSE
        RETURN QUERY SELECT 'replayed'::text, v_stored.response;
      END IF;
      RETURN;
    END IF;
  END IF;

  UPDATE workspaces SET invoice_seq = invoice_seq + 1, event_seq = event_seq + 1
   WHERE id = p_workspace_id
  RETURNING invoice_seq, event_seq, wallet_address, return_origins INTO v_ws;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'not_found';
  END IF;
  IF p_pay_to IS NOT NULL AND p_pay_to <> v_ws.wallet_address THEN
    RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'pay_to_mismatch';
  END IF;
  FOREACH v_origin IN ARRAY coalesce(p_url_origins, '{}') LOOP
    IF NOT v_origin = ANY (v_ws.return_origins) THEN
      RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'return_origin_not_allowed', DETAIL = v_origin;
    END IF;
  END LOOP;

  UPDATE credit_accounts SET balance = balance - p_cost, reserved = reserved + p_fee
   WHERE workspace_id = p_workspace_id AND balance - reserved >= p_cost + p_fee;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'insufficient_credits';
  END IF;
  INSERT INTO credit_ledger (workspace_id, kind, balance_change, reserve_change, reference)
  VALUES (p_workspace_id, 'invoice.created', -p_cost, p_fee, p_invoice_id);

  INSERT INTO invoices (workspace_id, id, number, status, amount, currency, network, expires_in, expires_at,
                        external_id, success_url, cancel_url, pay_to, source, fee_reserved, created_at, updated_at)
  VALUES (p_workspace_id, p_invoice_id, v_ws.invoice_seq, 'open', p_amount, 'USDC', p_network, p_expires_in,
          p_now + make_interval(secs => p_expires_in), p_external_id, p_success_url, p_cancel_url,
          v_ws.wallet_address, p_source, p_fee, p_now, p_now)
  RETURNING * INTO v_invoice;

  INSERT INTO events (workspace_id, id, type, invoice_id, data, created_at)
  VALUES (p_workspace_id, v_ws.event_seq, 'invoice.created', p_invoice_id, jsonb_build_object('invoice', to_jsonb(v_invoice)), p_now);

  IF p_idempotency_key IS NOT NULL THEN
    UPDATE idempotency_keys SET response = to_jsonb(v_invoice)
     WHERE workspace_id = p_workspace_id AND scope = 'invoices.create' AND key = p_idempotency_key;
  END IF;
  RETURN QUERY SELECT 'created'::text, to_jsonb(v_invoice);
END $$;

-- Creates many invoices in one transaction and one commit: concurrent requests of one server process are
-- grouped so that they share a round trip and a WAL flush. Each item runs in its own subtransaction, so a
-- refused item (its RAISE) leaves the others. Items arrive sorted by workspace, so concurrent batches
-- take workspace locks in one order.
CREATE FUNCTION create_invoices(p_items jsonb)
RETURNS TABLE (idx integer, outcome text, error_code text, error_detail text, invoice jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  v_item    jsonb;
  v_idx     integer := 0;
  v_outcome text;
  v_invoice jsonb;
BEGIN
  FOR v_item IN SELECT value FROM jsonb_array_elements(p_items) LOOP
    BEGIN
      SELECT c.outcome, c.invoice INTO v_outcome, v_invoice FROM create_invoice(
        v_item->>'workspaceId', v_item->>'idempotencyKey', decode(v_item->>'requestHash', 'hex'),
        make_interval(secs => (v_item->>'ttlSeconds')::integer), v_item->>'id', (v_item->>'amount')::bigint,
        v_item->>'network', (v_item->>'expiresIn')::integer, (v_item->>'now')::timestamptz,
        v_item->>'externalId', v_item->>'successUrl', v_item->>'cancelUrl',
        ARRAY(SELECT jsonb_array_elements_text(v_item->'urlOrigins')), v_item->>'payTo',
        (v_item->>'cost')::bigint, (v_item->>'fee')::bigint, v_item->>'source') c;
      RETURN QUERY SELECT v_idx, v_outcome, NULL::text, NULL::text, v_invoice;
    EXCEPTION WHEN raise_exception THEN
      GET STACKED DIAGNOSTICS error_detail = PG_EXCEPTION_DETAIL;
      RETURN QUERY SELECT v_idx, 'refused'::text, SQLERRM, nullif(error_detail, ''), NULL::jsonb;
    END;
    v_idx := v_idx + 1;
  END LOOP;
END $$;
