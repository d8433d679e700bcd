-- A created invoice's answer names the id of its `invoice.created` event, so that the process that
-- created it can serve that event from memory to the change feed's readers (src/modules/events/
-- recent-events.ts) without reading it back.
--
-- create_invoice_group is the definition of 0007_invoice_description.sql with one more column,
-- `event_id` (null unless created), and nothing else changed. Its result type changes, so it is dropped
-- and made again in this migration's transaction. The release before this one sends it unnamed
-- statements (`SELECT * FROM create_invoice_group(...)`) and reads its columns by name, so it goes on
-- creating invoices while this runs and after.


-- == function create_invoice_group ========================================================
DROP FUNCTION create_invoice_group(json);
CREATE FUNCTION create_invoice_group(p_items json)
RETURNS TABLE (idx integer, outcome text, error_code text, error_detail text, number bigint, pay_to text,
               invoice jsonb, event_id bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  v_items      invoice_group_item[] :=
                 ARRAY(SELECT t FROM json_populate_recordset(NULL::invoice_group_item, p_items) t);
  -- The fields the steps below read, one array each.
  v_ws_ids     text[];
  v_ids        text[];
  v_keys       text[];
  v_costs      bigint[];
  v_fees       bigint[];
  -- The items' positions by workspace, in their order within one.
  v_order      integer[];
  v_duplicated boolean;
  -- What refuses an item whatever the other items do, and the wallet of its workspace.
  v_refusal    text[];
  v_refusal_detail text[];
  v_wallet     text[];
  -- The keys' claims by position ('claimed', 'replay', 'reused'), once claimed.
  v_claim      text[];
  -- Decided, by position: 'created', 'replayed', 'idempotency_key_reused' or 'refused' (with a code and
  -- its detail); a replay's stored response; a created item's number, event id, ledger position, the
  -- balance it leaves, and its invoice row, which is inserted and which its key keeps in to_jsonb's shape.
  v_outcome    text[];
  v_code       text[];
  v_detail     text[];
  v_replayed   jsonb[];
  v_number     bigint[];
  v_event      bigint[];
  v_ledger_seq bigint[];
  v_after      bigint[];
  v_rows       invoices[];
  v_responses  jsonb[];
  -- The workspace whose items are being decided, as the items decided before leave it.
  v_ws_id      text;
  v_ws         record;
  i            integer;
BEGIN
  IF cardinality(v_items) = 0 THEN
    RETURN;
  END IF;
  SELECT array_agg(t.workspace_id ORDER BY t.ordinality), array_agg(t.id ORDER BY t.ordinality),
         array_agg(t.idempotency_key ORDER BY t.ordinality),
         array_agg(t.cost ORDER BY t.ordinality), array_agg(t.fee ORDER BY t.ordinality),
         array_agg(t.ordinality::integer ORDER BY t.workspace_id, t.ordinality),
         count(DISTINCT (t.workspace_id, t.idempotency_key)) < count(*)
    INTO v_ws_ids, v_ids, v_keys, v_costs, v_fees, v_order, v_duplicated
    FROM unnest(v_items) WITH ORDINALITY t;
  IF v_duplicated THEN
    RAISE EXCEPTION 'create_invoice_group: a group holds one idempotency key twice';
  END IF;

  -- The group's workspaces, locked in id order before their keys are claimed. Every claimer of an
  -- invoice key takes this lock first, so the claims below never wait, and what they read is final.
  PERFORM 1 FROM workspaces WHERE id = ANY (v_ws_ids) ORDER BY id FOR NO KEY UPDATE;

  -- No workspace, another wallet asked for, a return origin the workspace does not allow (the first
  -- such is the detail). A workspace's row is locked above.
  SELECT array_agg(CASE WHEN w.id IS NULL THEN 'not_found'
                        WHEN t.asked_pay_to IS NOT NULL AND t.asked_pay_to <> w.wallet_address THEN 'pay_to_mismatch'
                        WHEN o.origin IS NOT NULL THEN 'return_origin_not_allowed' END ORDER BY t.ordinality),
         array_agg(o.origin ORDER BY t.ordinality), array_agg(w.wallet_address ORDER BY t.ordinality)
    INTO v_refusal, v_refusal_detail, v_wallet
    FROM unnest(v_items) WITH ORDINALITY t
         LEFT JOIN workspaces w ON w.id = t.workspace_id
         LEFT JOIN LATERAL (SELECT u.origin FROM unnest(t.url_origins) AS u(origin)
                             WHERE NOT u.origin = ANY (w.return_origins) LIMIT 1) o ON true;

  -- Once, or twice when a key answers a replay or a reuse: the items left to decide (null outcome), in
  -- order within each workspace, each created one using up credits.
  v_outcome := array_fill(NULL::text, ARRAY[cardinality(v_items)]);
  LOOP
    v_code := v_refusal;
    v_detail := v_refusal_detail;
    -- Sized, so that an element's subscript is its position.
    v_number := array_fill(NULL::bigint, ARRAY[cardinality(v_items)]);
    v_event := v_number;
    v_ledger_seq := v_number;
    v_after := v_number;
    v_ws_id := NULL;
    FOREACH i IN ARRAY v_order LOOP
      IF v_ws_id IS DISTINCT FROM v_ws_ids[i] THEN
        v_ws_id := v_ws_ids[i];
        SELECT w.invoice_seq, w.event_seq, a.balance, a.balance - a.reserved AS available,
               (SELECT coalesce(max(l.seq), 0) FROM credit_ledger l WHERE l.workspace_id = w.id) AS ledger_seq
          INTO v_ws
          FROM workspaces w
               LEFT JOIN LATERAL (SELECT a.balance, a.reserved FROM credit_accounts a WHERE a.workspace_id = w.id
                                     FOR NO KEY UPDATE) a ON true
         WHERE w.id = v_ws_id;
      END IF;
      CONTINUE WHEN v_outcome[i] IS NOT NULL;
      IF v_code[i] IS NULL AND (v_ws.available IS NULL OR v_ws.available < v_costs[i] + v_fees[i]) THEN
        v_code[i] := 'insufficient_credits';
      END IF;
      CONTINUE WHEN v_code[i] IS NOT NULL;
      v_ws.invoice_seq := v_ws.invoice_seq + 1;
      v_ws.event_seq := v_ws.event_seq + 1;
      v_ws.ledger_seq := v_ws.ledger_seq + 1;
      v_ws.balance := v_ws.balance - v_costs[i];
      v_ws.available := v_ws.available - v_costs[i] - v_fees[i];
      v_number[i] := v_ws.invoice_seq;
      v_event[i] := v_ws.event_seq;
      v_ledger_seq[i] := v_ws.ledger_seq;
      v_after[i] := v_ws.balance;
    END LOOP;

    -- The rows the created items insert, every column in the table's order (a column added to the
    -- table and not here fails the cast), and what their keys keep for retries to replay.
    v_rows := ARRAY(
      SELECT CASE WHEN v_number[t.ordinality] IS NOT NULL THEN
               ROW(t.workspace_id, t.id, v_number[t.ordinality], 'open', t.amount, 'USDC', t.network, t.expires_in,
                   t.created_at + make_interval(secs => t.expires_in), 1, t.external_id, t.success_url,
                   t.cancel_url, v_wallet[t.ordinality], t.source, t.fee, t.created_at, t.created_at,
                   NULL, NULL, NULL, NULL, NULL, t.description)::invoices END
        FROM unnest(v_items) WITH ORDINALITY t ORDER BY t.ordinality);
    v_responses := ARRAY(SELECT CASE WHEN r.id IS NOT NULL THEN to_jsonb(r) END FROM unnest(v_rows) r);
    IF v_claim IS NOT NULL THEN
      PERFORM store_idempotent_responses(array_agg(t.ws), 'invoices.create', array_agg(t.key), array_agg(t.row))
         FROM unnest(v_ws_ids, v_keys, v_responses) AS t(ws, key, row)
        WHERE t.row IS NOT NULL;
      EXIT;
    END IF;
    SELECT array_agg(c.outcome ORDER BY c.ord), array_agg(c.response ORDER BY c.ord) INTO v_claim, v_replayed
      FROM claim_idempotency_keys(v_ws_ids, 'invoices.create', v_keys,
                                  ARRAY(SELECT t.request_hash FROM unnest(v_items) t),
                                  ARRAY(SELECT t.key_expires_at FROM unnest(v_items) t),
                                  v_responses) c;
    EXIT WHEN 'claimed' = ALL (v_claim);
    v_outcome := ARRAY(SELECT CASE c.claim WHEN 'replay' THEN 'replayed' WHEN 'reused' THEN 'idempotency_key_reused' END
                         FROM unnest(v_claim) WITH ORDINALITY AS c(claim, ord) ORDER BY c.ord);
  END LOOP;
  v_outcome := ARRAY(
    SELECT coalesce(v_outcome[t.ord], CASE WHEN v_number[t.ord] IS NOT NULL THEN 'created' ELSE 'refused' END)
      FROM generate_subscripts(v_items, 1) AS t(ord) ORDER BY t.ord);

  -- A refused item leaves its key unused, as the rollback of a refused create alone would.
  IF 'refused' = ANY (v_outcome) THEN
    FOR i IN 1 .. cardinality(v_outcome) LOOP
      CONTINUE WHEN v_outcome[i] <> 'refused';
      DELETE FROM idempotency_keys
       WHERE workspace_id = v_ws_ids[i] AND scope = 'invoices.create' AND key = v_keys[i];
    END LOOP;
  END IF;

  -- The group's writes, one statement: each workspace as its created items leave it (its row and
  -- account are locked since they were read above), the ledger and the invoices.
  IF 'created' = ANY (v_outcome) THEN
    WITH counters AS (
      UPDATE workspaces w SET invoice_seq = c.invoice_seq, event_seq = c.event_seq
        FROM (SELECT t.ws, max(t.number) AS invoice_seq, max(t.event) AS event_seq
                FROM unnest(v_ws_ids, v_number, v_event) AS t(ws, number, event)
               WHERE t.number IS NOT NULL GROUP BY t.ws) c
       WHERE w.id = c.ws
    ), accounts AS (
      UPDATE credit_accounts a SET balance = a.balance - c.cost, reserved = a.reserved + c.fee
        FROM (SELECT t.ws, sum(t.cost) AS cost, sum(t.fee) AS fee
                FROM unnest(v_ws_ids, v_costs, v_fees, v_number) AS t(ws, cost, fee, number)
               WHERE t.number IS NOT NULL GROUP BY t.ws) c
       WHERE a.workspace_id = c.ws
    ), ledger AS (
      INSERT INTO credit_ledger (workspace_id, kind, balance_change, reserve_change, reference, seq, balance_after)
      SELECT t.ws, 'invoice.created', -t.cost, t.fee, t.id, t.seq, t.after
        FROM unnest(v_ws_ids, v_ids, v_costs, v_fees, v_ledger_seq, v_after) WITH ORDINALITY
             AS t(ws, id, cost, fee, seq, after, ord)
       WHERE t.seq IS NOT NULL
       ORDER BY t.ord
    )
    INSERT INTO invoices
    SELECT r.* FROM unnest(v_rows) r WHERE r.id IS NOT NULL;
    PERFORM append_event(array_agg(t.workspace_id ORDER BY t.ordinality),
                         array_agg('invoice.created'::text ORDER BY t.ordinality), array_agg(t.id ORDER BY t.ordinality),
                         array_agg(NULL::text ORDER BY t.ordinality),
                         array_agg(jsonb_build_object('invoice', t.event_invoice || jsonb_build_object(
                                     'number', invoice_number_text(v_number[t.ordinality]),
                                     'payTo', v_wallet[t.ordinality])) ORDER BY t.ordinality),
                         array_agg(t.created_at ORDER BY t.ordinality),
                         array_agg(v_event[t.ordinality] ORDER BY t.ordinality))
       FROM unnest(v_items) WITH ORDINALITY t
      WHERE v_number[t.ordinality] IS NOT NULL;
  END IF;

  RETURN QUERY
  SELECT (t.ord - 1)::integer, t.outcome, CASE WHEN t.outcome = 'refused' THEN t.code END,
         CASE WHEN t.outcome = 'refused' THEN t.detail END, v_number[t.ord],
         CASE WHEN t.outcome = 'created' THEN v_wallet[t.ord] END, t.replayed,
         CASE WHEN t.outcome = 'created' THEN v_event[t.ord] END
    FROM unnest(v_outcome, v_code, v_detail, v_replayed) WITH ORDINALITY AS t(outcome, code, detail, replayed, ord);
END $$;
