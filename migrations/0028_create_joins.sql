-- Invoice creation, set-based, with less work per item (docs/performance.md, "Invoice creation").
--
-- A statement profile of create_invoices (0027) over groups of 32 found two of its joins comparing
-- every item with every other through jsonb lookups: the claimed keys back to their items, and the
-- inserted invoices back to theirs. They now join on the workspace ids, keys and invoice ids read out
-- of the items once, as text. An item without return URLs no longer runs the origin check's query.
-- What the function decides and writes is unchanged.

CREATE OR REPLACE FUNCTION create_invoices(p_items jsonb)
RETURNS TABLE (idx integer, outcome text, error_code text, error_detail text, invoice jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  v_items    jsonb[] := ARRAY(SELECT value FROM jsonb_array_elements(p_items));
  v_count    integer := cardinality(v_items);
  v_outcome  text[]  := array_fill(NULL::text, ARRAY[v_count]);
  v_code     text[]  := array_fill(NULL::text, ARRAY[v_count]);
  v_detail   text[]  := array_fill(NULL::text, ARRAY[v_count]);
  v_response jsonb[] := array_fill(NULL::jsonb, ARRAY[v_count]);
  v_claimed  boolean[];
  -- The fields the group's statements join on, read out of the items once: joining on them instead of
  -- on jsonb lookups makes the pairwise comparisons of a group's joins plain text comparisons.
  v_ws_ids   text[]  := ARRAY(SELECT item->>'workspaceId' FROM unnest(v_items) AS t(item));
  v_keys     text[]  := ARRAY(SELECT item->>'idempotencyKey' FROM unnest(v_items) AS t(item));
  v_ids      text[]  := ARRAY(SELECT item->>'id' FROM unnest(v_items) AS t(item));
  -- Items by workspace, in their given order within one: each workspace is locked once, in id order.
  v_order    integer[] := ARRAY(SELECT t.ord FROM unnest(v_items) WITH ORDINALITY AS t(item, ord)
                                 ORDER BY t.item->>'workspaceId', t.ord);
  -- What each accepted item takes: its number, event id, ledger position and balance, receiving wallet.
  v_number   bigint[] := array_fill(NULL::bigint, ARRAY[v_count]);
  v_event    bigint[] := array_fill(NULL::bigint, ARRAY[v_count]);
  v_seq      bigint[] := array_fill(NULL::bigint, ARRAY[v_count]);
  v_after    bigint[] := array_fill(NULL::bigint, ARRAY[v_count]);
  v_pay_to   text[]   := array_fill(NULL::text, ARRAY[v_count]);
  -- Per workspace with accepted items: its counters and account as the group leaves them.
  w_ids      text[]   := '{}';
  w_invoice  bigint[] := '{}';
  w_event    bigint[] := '{}';
  w_balance  bigint[] := '{}';
  w_reserved bigint[] := '{}';
  v_item     jsonb;
  v_ws_id    text;
  v_ws       record;
  v_account  record;
  v_found    boolean;
  v_accepted integer;
  v_ledger   bigint;
  v_cost     bigint;
  v_fee      bigint;
  v_origin   text;
  v_stored   record;
  i          integer;
BEGIN
  IF EXISTS (SELECT 1 FROM unnest(v_items) AS t(item) WHERE item->>'idempotencyKey' IS NOT NULL
              GROUP BY item->>'workspaceId', item->>'idempotencyKey' HAVING count(*) > 1) THEN
    RETURN QUERY SELECT * FROM create_invoices_each(p_items);
    RETURN;
  END IF;

  -- A key found taken and then gone before it could be read (the expiry cleanup deleted it in between)
  -- is claimed again, as if it had never been there.
  v_claimed := array_fill(false, ARRAY[v_count]);
  LOOP
    WITH claimed AS (
      INSERT INTO idempotency_keys (workspace_id, scope, key, request_hash, expires_at)
      SELECT t.item->>'workspaceId', 'invoices.create', t.item->>'idempotencyKey', decode(t.item->>'requestHash', 'hex'),
             (t.item->>'now')::timestamptz + make_interval(secs => (t.item->>'ttlSeconds')::integer)
        FROM unnest(v_items, v_claimed, v_outcome) AS t(item, claimed, outcome)
       WHERE t.item->>'idempotencyKey' IS NOT NULL AND NOT t.claimed AND t.outcome IS NULL
       ORDER BY t.item->>'workspaceId', t.item->>'idempotencyKey'
      ON CONFLICT DO NOTHING
      RETURNING workspace_id, key)
    SELECT array_agg(t.claimed OR c.key IS NOT NULL ORDER BY t.ord) INTO v_claimed
      FROM unnest(v_ws_ids, v_keys, v_claimed) WITH ORDINALITY AS t(ws, key, claimed, ord)
      LEFT JOIN claimed c ON c.workspace_id = t.ws AND c.key = t.key;

    FOR v_stored IN
      SELECT t.ord, k.request_hash = decode(t.item->>'requestHash', 'hex') AS same_request, k.response
        FROM unnest(v_items, v_claimed, v_outcome) WITH ORDINALITY AS t(item, claimed, outcome, ord)
        JOIN idempotency_keys k ON k.workspace_id = t.item->>'workspaceId' AND k.scope = 'invoices.create'
                               AND k.key = t.item->>'idempotencyKey'
       WHERE t.item->>'idempotencyKey' IS NOT NULL AND NOT t.claimed AND t.outcome IS NULL
    LOOP
      v_outcome[v_stored.ord] := CASE WHEN v_stored.same_request THEN 'replayed' ELSE 'idempotency_key_reused' END;
      v_response[v_stored.ord] := CASE WHEN v_stored.same_request THEN v_stored.response END;
    END LOOP;

    EXIT WHEN NOT EXISTS (
      SELECT 1 FROM unnest(v_items, v_claimed, v_outcome) AS t(item, claimed, outcome)
       WHERE t.item->>'idempotencyKey' IS NOT NULL AND NOT t.claimed AND t.outcome IS NULL);
  END LOOP;

  FOREACH i IN ARRAY v_order LOOP
    CONTINUE WHEN v_outcome[i] IS NOT NULL;
    v_item := v_items[i];
    IF v_ws_id IS DISTINCT FROM v_item->>'workspaceId' THEN
      IF v_accepted > 0 THEN
        w_ids := w_ids || v_ws_id;
        w_invoice := w_invoice || v_ws.invoice_seq;
        w_event := w_event || v_ws.event_seq;
        w_balance := w_balance || v_account.balance;
        w_reserved := w_reserved || v_account.reserved;
      END IF;
      v_ws_id := v_item->>'workspaceId';
      v_accepted := 0;
      -- No row: every field reads null, and the items are refused as not found.
      SELECT invoice_seq, event_seq, wallet_address, return_origins INTO v_ws
        FROM workspaces WHERE id = v_ws_id FOR NO KEY UPDATE;
      SELECT balance, reserved INTO v_account FROM credit_accounts WHERE workspace_id = v_ws_id FOR NO KEY UPDATE;
      v_found := FOUND;
      SELECT coalesce(max(seq), 0) INTO v_ledger FROM credit_ledger WHERE workspace_id = v_ws_id;
    END IF;

    v_cost := (v_item->>'cost')::bigint;
    v_fee := (v_item->>'fee')::bigint;
    v_origin := NULL;
    IF jsonb_array_length(coalesce(v_item->'urlOrigins', '[]')) > 0 THEN
      SELECT origin INTO v_origin FROM jsonb_array_elements_text(v_item->'urlOrigins') AS o(origin)
       WHERE NOT origin = ANY (v_ws.return_origins)
       LIMIT 1;
    END IF;
    IF v_ws.wallet_address IS NULL THEN
      v_code[i] := 'not_found';
    ELSIF v_item->>'payTo' IS NOT NULL AND v_item->>'payTo' <> v_ws.wallet_address THEN
      v_code[i] := 'pay_to_mismatch';
    ELSIF v_origin IS NOT NULL THEN
      v_code[i] := 'return_origin_not_allowed';
      v_detail[i] := v_origin;
    ELSIF NOT v_found OR v_account.balance - v_account.reserved < v_cost + v_fee THEN
      v_code[i] := 'insufficient_credits';
    END IF;
    IF v_code[i] IS NOT NULL THEN
      v_outcome[i] := 'refused';
      CONTINUE;
    END IF;

    v_ws.invoice_seq := v_ws.invoice_seq + 1;
    v_ws.event_seq := v_ws.event_seq + 1;
    v_account.balance := v_account.balance - v_cost;
    v_account.reserved := v_account.reserved + v_fee;
    v_ledger := v_ledger + 1;
    v_accepted := v_accepted + 1;
    v_outcome[i] := 'created';
    v_number[i] := v_ws.invoice_seq;
    v_event[i] := v_ws.event_seq;
    v_seq[i] := v_ledger;
    v_after[i] := v_account.balance;
    v_pay_to[i] := v_ws.wallet_address;
  END LOOP;
  IF v_accepted > 0 THEN
    w_ids := w_ids || v_ws_id;
    w_invoice := w_invoice || v_ws.invoice_seq;
    w_event := w_event || v_ws.event_seq;
    w_balance := w_balance || v_account.balance;
    w_reserved := w_reserved || v_account.reserved;
  END IF;

  DELETE FROM idempotency_keys k
   USING unnest(v_items, v_claimed, v_outcome) AS t(item, claimed, outcome)
   WHERE t.claimed AND t.outcome = 'refused'
     AND k.workspace_id = t.item->>'workspaceId' AND k.scope = 'invoices.create' AND k.key = t.item->>'idempotencyKey';

  IF cardinality(w_ids) = 0 THEN
    RETURN QUERY SELECT (t.ord - 1)::integer, t.outcome, t.code, t.detail, t.response
      FROM unnest(v_outcome, v_code, v_detail, v_response) WITH ORDINALITY AS t(outcome, code, detail, response, ord);
    RETURN;
  END IF;

  UPDATE workspaces w SET invoice_seq = t.invoice_seq, event_seq = t.event_seq
    FROM unnest(w_ids, w_invoice, w_event) AS t(id, invoice_seq, event_seq)
   WHERE w.id = t.id;
  UPDATE credit_accounts a SET balance = t.balance, reserved = t.reserved
    FROM unnest(w_ids, w_balance, w_reserved) AS t(id, balance, reserved)
   WHERE a.workspace_id = t.id;

  INSERT INTO credit_ledger (workspace_id, kind, balance_change, reserve_change, reference, seq, balance_after)
  SELECT t.item->>'workspaceId', 'invoice.created', -(t.item->>'cost')::bigint, (t.item->>'fee')::bigint,
         t.item->>'id', t.seq, t.after
    FROM unnest(v_items, v_outcome, v_seq, v_after) WITH ORDINALITY AS t(item, outcome, seq, after, ord)
   WHERE t.outcome = 'created'
   ORDER BY t.ord;

  WITH inserted AS (
    INSERT INTO invoices (workspace_id, id, number, status, amount, currency, network, expires_in, expires_at,
                          external_id, success_url, cancel_url, pay_to, source, fee_reserved, created_at, updated_at)
    SELECT t.item->>'workspaceId', t.item->>'id', t.number, 'open', (t.item->>'amount')::bigint, 'USDC',
           t.item->>'network', (t.item->>'expiresIn')::integer,
           (t.item->>'now')::timestamptz + make_interval(secs => (t.item->>'expiresIn')::integer),
           t.item->>'externalId', t.item->>'successUrl', t.item->>'cancelUrl', t.pay_to, t.item->>'source',
           (t.item->>'fee')::bigint, (t.item->>'now')::timestamptz, (t.item->>'now')::timestamptz
      FROM unnest(v_items, v_outcome, v_number, v_pay_to) WITH ORDINALITY AS t(item, outcome, number, pay_to, ord)
     WHERE t.outcome = 'created'
     ORDER BY t.ord
    RETURNING *)
  SELECT array_agg(coalesce(to_jsonb(created_row), t.response) ORDER BY t.ord) INTO v_response
    FROM unnest(v_ws_ids, v_ids, v_response) WITH ORDINALITY AS t(ws, id, response, ord)
    LEFT JOIN inserted created_row ON created_row.workspace_id = t.ws AND created_row.id = t.id;

  INSERT INTO events (workspace_id, id, type, invoice_id, payment_intent_id, data, created_at)
  SELECT t.item->>'workspaceId', t.event, 'invoice.created', t.item->>'id', NULL,
         jsonb_set(jsonb_set(t.item->'createdEvent', '{invoice,number}', to_jsonb(invoice_number_text(t.number))),
                   '{invoice,payTo}', to_jsonb(t.pay_to))::json,
         (t.item->>'now')::timestamptz
    FROM unnest(v_items, v_outcome, v_number, v_event, v_pay_to) WITH ORDINALITY
         AS t(item, outcome, number, event, pay_to, ord)
   WHERE t.outcome = 'created'
   ORDER BY t.ord;

  UPDATE idempotency_keys k SET response = t.response
    FROM unnest(v_items, v_outcome, v_response) AS t(item, outcome, response)
   WHERE t.outcome = 'created' AND t.item->>'idempotencyKey' IS NOT NULL
     AND k.workspace_id = t.item->>'workspaceId' AND k.scope = 'invoices.create' AND k.key = t.item->>'idempotencyKey';

  RETURN QUERY SELECT (t.ord - 1)::integer, t.outcome, t.code, t.detail,
                      CASE WHEN t.outcome IN ('created', 'replayed') THEN t.response END
    FROM unnest(v_outcome, v_code, v_detail, v_response) WITH ORDINALITY AS t(outcome, code, detail, response, ord);
END $$;

ALTER FUNCTION create_invoices(jsonb) SET plan_cache_mode = force_generic_plan;
