-- Invoice creation writes each idempotency key once, with its answer (docs/performance.md, "Invoice creation").
--
-- create_invoices (0029) claimed a group's keys before it locked the workspace, then wrote each key a
-- second time with its answer: the invoice row read back as jsonb (RETURNING * and to_jsonb, joined to
-- the items). The second write of each key and that read-back were a third of a group's time, on the
-- workspace's serial path. create_invoice_group locks the workspace first, reads the keys already taken
-- under that lock, and inserts the new keys after the invoices with their answer built from the values
-- it inserted. It answers a created item with its number and receiving wallet only: the service has
-- every other field of the invoice it asked for. A replay answers the stored invoice, as before.
--
-- Every claimer of an invoice key now takes the workspace lock first, so no key appears between the
-- read and the insert. A key claimed by a process of the previous release (which claims before it
-- locks) makes the insert fail on the key's uniqueness; the service then sends each item alone, and
-- the one whose key was taken replays it.
--
-- The group's six writes (counters, account, ledger, invoices, events, keys) are one statement of
-- data-modifying CTEs: a group's fixed cost is mostly statements' own, and groups are small when two
-- are in flight (the service pipelines them).
--
-- The stored answer is what to_jsonb of the invoice row gave, so processes of the previous release
-- replay these keys as their own; create_invoices and create_invoice stay for them during a rolling
-- upgrade.

CREATE FUNCTION create_invoice_group(p_items json)
RETURNS TABLE (idx integer, outcome text, error_code text, error_detail text, number bigint, pay_to text,
               invoice jsonb)
LANGUAGE plpgsql AS $$
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

ALTER FUNCTION create_invoice_group(json) SET plan_cache_mode = force_generic_plan;
