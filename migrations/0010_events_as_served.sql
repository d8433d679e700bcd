-- Events are stored in the shape the API serves them, and only the application writes them.
--
-- 1. create_invoice no longer writes `invoice.created`: the application's one event writer does, in the
--    same transaction, right after create_invoice/create_invoices (one statement for a whole group),
--    and bumps `event_seq` there. The rules of creation are unchanged. The workspace row lock this
--    function takes (invoice_seq) is still held to commit, and the writer takes the same row, so
--    commit order still equals event id order within a workspace.
--
-- 2. `invoice.*` events written before this migration hold the raw invoice row (snake_case, to_jsonb).
--    They are rewritten to `{"invoice": <the invoice as GET /invoices/{id} shows it>}`, what the feed
--    served for them: camelCase, amount as a six-decimal string, "INV-000042" numbers, UTC timestamps
--    with milliseconds, and the links `url` (/w/<ws>/x402/<id>) and `checkoutUrl` (/w/<ws>/i/<id>) on
--    PUBLIC_BASE_URL. SQL cannot read the configuration, so the migration runner puts the configured
--    origin in the transaction-local setting `invoice_service.public_base_url`; without it, the
--    migration refuses to run when there is a row to rewrite rather than guess a host. Links are part
--    of the stored snapshot from now on, as GET /invoices/{id} showed them when the event was written.

-- The same rules as 0002: idempotency claim, number, credits, invoice; no event.
CREATE OR REPLACE FUNCTION create_invoice(
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

  UPDATE workspaces SET invoice_seq = invoice_seq + 1
   WHERE id = p_workspace_id
  RETURNING invoice_seq, wallet_address, return_origins INTO v_ws;
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

  IF p_idempotency_key IS NOT NULL THEN
    UPDATE idempotency_keys SET response = to_jsonb(v_invoice)
     WHERE workspace_id = p_workspace_id AND scope = 'invoices.create' AND key = p_idempotency_key;
  END IF;
  RETURN QUERY SELECT 'created'::text, to_jsonb(v_invoice);
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
