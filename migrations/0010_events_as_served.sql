-- Events are stored in the shape the API serves them, and one function writes them all.
--
-- 1. append_event is the only code that inserts into `events`: the application calls it through
--    append_events (appendAll, which also queues webhook deliveries for webhook kinds), and
--    create_invoice calls it for `invoice.created`. It bumps the workspace's `event_seq`; that row's
--    lock, held to commit, makes commit order equal event id order within a workspace.
--
-- 2. create_invoice records `invoice.created` through it, still in one round trip per group of creates:
--    the application renders the invoice as GET /invoices/{id} will show it before the call, and the
--    database fills in the two values only it knows then, the number and the receiving wallet.
--    (Both functions are PL/pgSQL so that their statements' plans are kept per session.)
--    Everything else about creation is unchanged.
--
-- 3. `invoice.*` events written before this migration hold the raw invoice row (snake_case, to_jsonb).
--    They are rewritten to `{"invoice": <the invoice as GET /invoices/{id} shows it>}`, what the feed
--    served for them: camelCase, amount as a six-decimal string, "INV-000042" numbers, UTC timestamps
--    with milliseconds, and the links `url` (/w/<ws>/x402/<id>) and `checkoutUrl` (/w/<ws>/i/<id>) on
--    PUBLIC_BASE_URL. SQL cannot read the configuration, so the migration runner puts the configured
--    origin in the transaction-local setting `invoice_service.public_base_url`; without it, the
--    migration refuses to run when there is a row to rewrite rather than guess a host. Links are part
--    of the stored snapshot from now on, as GET /invoices/{id} showed them when the event was written.

-- Appends one event: the next id of the workspace's counter, then the row. The only INSERT INTO events.
-- create_invoice passes the id it took in the same UPDATE that takes the invoice number: a second
-- UPDATE of the workspace row per invoice would double the row versions a group commit leaves behind.
CREATE FUNCTION append_event(p_workspace_id text, p_type text, p_invoice_id text, p_payment_intent_id text, p_data jsonb,
                             p_created_at timestamptz, p_id bigint DEFAULT NULL)
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
  VALUES (p_workspace_id, v_id, p_type, p_invoice_id, p_payment_intent_id, p_data, p_created_at);
  RETURN v_id;
END $$;

-- Appends events (of one workspace or several) in the order of their `ord`; answers each one's id.
-- Each element: {ord, workspace_id, type, invoice_id, payment_intent_id, data, created_at}.
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

-- `INV-000042`; past 999999 the number simply grows (formatInvoiceNumber in the application).
CREATE FUNCTION invoice_number_text(p_number bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'INV-' || lpad(p_number::text, greatest(6, length(p_number::text)), '0') $$;

DROP FUNCTION create_invoice(text, text, bytea, interval, text, bigint, text, integer, timestamptz, text, text, text, text[], text, bigint, bigint, text);

-- The same rules as 0002: idempotency claim, number, credits, invoice; its event through append_event.
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
  p_source          text,
  p_created_event   jsonb
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

  PERFORM append_event(p_workspace_id, 'invoice.created', p_invoice_id, NULL,
    jsonb_set(jsonb_set(p_created_event, '{invoice,number}', to_jsonb(invoice_number_text(v_ws.invoice_seq))),
              '{invoice,payTo}', to_jsonb(v_ws.wallet_address)),
    p_now, v_ws.event_seq);

  IF p_idempotency_key IS NOT NULL THEN
    UPDATE idempotency_keys SET response = to_jsonb(v_invoice)
     WHERE workspace_id = p_workspace_id AND scope = 'invoices.create' AND key = p_idempotency_key;
  END IF;
  RETURN QUERY SELECT 'created'::text, to_jsonb(v_invoice);
END $$;

-- As in 0002, with the rendered `invoice.created` of each item (`createdEvent`).
CREATE OR REPLACE FUNCTION create_invoices(p_items jsonb)
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
        (v_item->>'cost')::bigint, (v_item->>'fee')::bigint, v_item->>'source', v_item->'createdEvent') c;
      RETURN QUERY SELECT v_idx, v_outcome, NULL::text, NULL::text, v_invoice;
    EXCEPTION WHEN raise_exception THEN
      GET STACKED DIAGNOSTICS error_detail = PG_EXCEPTION_DETAIL;
      RETURN QUERY SELECT v_idx, 'refused'::text, SQLERRM, nullif(error_detail, ''), NULL::jsonb;
    END;
    v_idx := v_idx + 1;
  END LOOP;
END $$;

-- An instant as the API writes it (JavaScript's toISOString): UTC, milliseconds, "Z".
CREATE FUNCTION pg_temp.api_time(p_value text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(p_value::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

DO $$
DECLARE
  v_base text := rtrim(nullif(current_setting('invoice_service.public_base_url', true), ''), '/');
BEGIN
  IF NOT EXISTS (SELECT 1 FROM events WHERE type LIKE 'invoice.%' AND data->'invoice' ? 'workspace_id') THEN
    RETURN;
  END IF;
  IF v_base IS NULL THEN
    RAISE EXCEPTION 'invoice events need PUBLIC_BASE_URL to be rewritten: run the migration through the service (npm run migrate) with its configuration';
  END IF;
  UPDATE events e
     SET data = jsonb_set(e.data, '{invoice}', jsonb_build_object(
       'id', r->>'id',
       'number', 'INV-' || CASE WHEN length(r->>'number') < 6 THEN lpad(r->>'number', 6, '0') ELSE r->>'number' END,
       'status', r->>'status',
       'amount', ((r->>'amount')::bigint / 1000000)::text || '.' || lpad(((r->>'amount')::bigint % 1000000)::text, 6, '0'),
       'currency', r->>'currency',
       'network', r->'network',
       'expiresIn', (r->>'expires_in')::integer,
       'expiresAt', pg_temp.api_time(r->>'expires_at'),
       'linkVersion', (r->>'link_version')::integer,
       'externalId', r->'external_id',
       'successUrl', r->'success_url',
       'cancelUrl', r->'cancel_url',
       'payTo', r->>'pay_to',
       'url', v_base || '/w/' || e.workspace_id || '/x402/' || (r->>'id'),
       'checkoutUrl', v_base || '/w/' || e.workspace_id || '/i/' || (r->>'id'),
       'createdAt', pg_temp.api_time(r->>'created_at'),
       'updatedAt', pg_temp.api_time(r->>'updated_at'),
       'paidAt', pg_temp.api_time(r->>'paid_at'),
       'expiredAt', pg_temp.api_time(r->>'expired_at'),
       'cancelledAt', pg_temp.api_time(r->>'cancelled_at')))
    FROM (SELECT workspace_id, id, data->'invoice' AS r FROM events WHERE type LIKE 'invoice.%' AND data->'invoice' ? 'workspace_id') raw
   WHERE e.workspace_id = raw.workspace_id AND e.id = raw.id;
END $$;
