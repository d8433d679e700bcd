-- One way to write an invoice: the group commit of invoice creation follows the rules every other
-- write follows. Its keys are claimed by claim_idempotency_keys and answered by
-- store_idempotent_responses, the functions the application's claimIdempotencyKey and
-- storeIdempotentResponse (src/modules/idempotency/idempotency.repo.ts) call too, and its
-- `invoice.created` events are written by append_event, the writer of every event, with their data
-- built as jsonb. create_invoice_group keeps its name, its signature and its answers.
--
-- Contents, each in a section of its own headed `-- == function <name>` or `-- == type <name>`:
--     claim_idempotency_keys, store_idempotent_responses          idempotency keys
--     invoice_number_text (its callers changed),
--       invoice_group_item, create_invoice_group                  invoice creation


-- == function claim_idempotency_keys ======================================================
-- Claims Idempotency-Keys of one scope inside the caller's transaction and answers each key's
-- outcome by its position (`ord`, from 1): 'claimed' when the key is new, 'replay' with the stored
-- response when it was used with the same request hash, 'reused' when with another.
--
-- A new key's row is inserted at once, so a concurrent request with the same key waits on it (a row
-- lock, not a sleep) until the first commits, then replays its response, or rolls back, when it claims
-- the key itself. Keys are inserted in (workspace, key) order, so two claimers never wait on each other
-- in a cycle. A refusal that rolls back its transaction leaves its key unused; the response is stored
-- by store_idempotent_responses in the transaction that claimed the key.
--
-- Keys already taken are read by a second statement, which sees what the claimers waited for
-- committed (the insert's own snapshot predates it). Called by claimIdempotencyKey in
-- src/modules/idempotency/idempotency.repo.ts (one key) and by create_invoice_group (a group's keys).
CREATE FUNCTION claim_idempotency_keys(p_workspace_ids text[], p_scope text, p_keys text[],
                                       p_request_hashes bytea[], p_expires_at timestamptz[])
RETURNS TABLE (ord integer, outcome text, response jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  v_claimed_ws   text[];
  v_claimed_keys text[];
BEGIN
  WITH claimed AS (
    INSERT INTO idempotency_keys (workspace_id, scope, key, request_hash, expires_at)
    SELECT t.ws, p_scope, t.key, t.hash, t.expires_at
      FROM unnest(p_workspace_ids, p_keys, p_request_hashes, p_expires_at) AS t(ws, key, hash, expires_at)
     ORDER BY t.ws, t.key
        ON CONFLICT DO NOTHING
    RETURNING workspace_id, key
  )
  SELECT array_agg(c.workspace_id), array_agg(c.key) INTO v_claimed_ws, v_claimed_keys FROM claimed c;

  -- A key neither claimed now nor found was deleted past its retention between the two statements.
  FOR ord, outcome, response IN
    SELECT t.ord::integer,
           CASE WHEN c.key IS NOT NULL THEN 'claimed' WHEN k.request_hash = t.hash THEN 'replay'
                WHEN k.request_hash IS NOT NULL THEN 'reused' END,
           CASE WHEN c.key IS NULL AND k.request_hash = t.hash THEN k.response END
      FROM unnest(p_workspace_ids, p_keys, p_request_hashes) WITH ORDINALITY AS t(ws, key, hash, ord)
           LEFT JOIN unnest(v_claimed_ws, v_claimed_keys) AS c(ws, key) ON c.ws = t.ws AND c.key = t.key
           -- One primary-key probe a key taken before, whatever the table's statistics said when the plan was made.
           LEFT JOIN LATERAL (SELECT i.request_hash, i.response FROM idempotency_keys i
                               WHERE c.key IS NULL AND i.workspace_id = t.ws AND i.scope = p_scope AND i.key = t.key
                               LIMIT 1) k ON true
     ORDER BY t.ord
  LOOP
    IF outcome IS NULL THEN
      RAISE EXCEPTION 'claim_idempotency_keys: a key expired while it was claimed; retry';
    END IF;
    RETURN NEXT;
  END LOOP;
END $$;


-- == function store_idempotent_responses ==================================================
-- Stores the responses that retries with these keys replay, in the transaction that claimed the keys
-- (claim_idempotency_keys). Called by storeIdempotentResponse in
-- src/modules/idempotency/idempotency.repo.ts (one key) and by create_invoice_group (a group's keys).
CREATE FUNCTION store_idempotent_responses(p_workspace_ids text[], p_scope text, p_keys text[], p_responses jsonb[])
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- Key by key: one primary-key probe each, whatever the table's statistics said when the plan was
  -- made (a join planned while the table was small scanned all of it once it had grown).
  FOR i IN 1 .. coalesce(cardinality(p_keys), 0) LOOP
    UPDATE idempotency_keys SET response = p_responses[i]
     WHERE workspace_id = p_workspace_ids[i] AND scope = p_scope AND key = p_keys[i];
  END LOOP;
END $$;


-- == function invoice_number_text =========================================================
-- `INV-000042`; past 999999 the number simply grows (formatInvoiceNumber in the application).
-- Called by create_invoice_group, for the `invoice.created` events it appends.
CREATE OR REPLACE FUNCTION invoice_number_text(p_number bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'INV-' || lpad(p_number::text, greatest(6, length(p_number::text)), '0') $$;


-- == type invoice_group_item ==============================================================
-- One create of a group: what the application sends (createItem in
-- src/modules/invoices/invoice.repo.ts, one JSON object an item, keys as the columns are named), then
-- what create_invoice_group decides for it.
CREATE TYPE invoice_group_item AS (
  -- Sent.
  workspace_id    text,
  idempotency_key text,
  request_hash    bytea,
  key_expires_at  timestamptz,
  id              text,
  amount          bigint,
  network         text,
  expires_in      integer,
  created_at      timestamptz,
  external_id     text,
  success_url     text,
  cancel_url      text,
  -- The origins of successUrl and cancelUrl, each of which the workspace must allow.
  url_origins     text[],
  -- The receiving address the request asked for, if any: it must be the workspace wallet.
  asked_pay_to    text,
  cost            bigint,
  fee             bigint,
  source          text,
  -- The `invoice.created` event's invoice as the application rendered it, without its number and
  -- receiving wallet, which are decided here.
  event_invoice   jsonb,
  -- Decided: 'created', 'replayed', 'idempotency_key_reused' or 'refused' (with a code and its detail).
  outcome         text,
  error_code      text,
  error_detail    text,
  -- A replay's stored response.
  replayed        jsonb,
  -- What a created item takes: its number, receiving wallet, event id, ledger position and balance.
  number          bigint,
  pay_to          text,
  event_id        bigint,
  ledger_seq      bigint,
  balance_after   bigint
);


-- == function create_invoice_group ========================================================
-- Creates a group of invoices in one call and one commit (docs/performance.md, "Invoice creation").
-- Called by createInvoices in src/modules/invoices/invoice.repo.ts, for the groups that
-- src/modules/invoices/invoice.batcher.ts forms of concurrent creates (a lone create is a group of one).
--
-- In steps: lock the group's workspaces in id order; claim the keys (claim_idempotency_keys), which
-- answers replays and reuses; decide every other item in order within its workspace (wallet, return
-- origins, available credits, which each created item uses up), so that created ones take the next
-- numbers and event ids and a refused one takes nothing, keeping numbers gapless; release the keys of
-- refused items; then write the group set-based: counters, credit accounts, ledger, invoices, their
-- `invoice.created` events (append_event) and the keys' responses (store_idempotent_responses). A group
-- holding one key twice is refused as a whole: the service sends the second item after the group, when
-- it replays.
--
-- A created item is answered with its number and receiving wallet only (the service has every other
-- field); a replay answers the stored invoice, the row as created in to_jsonb's shape.
CREATE OR REPLACE FUNCTION create_invoice_group(p_items json)
RETURNS TABLE (idx integer, outcome text, error_code text, error_detail text, number bigint, pay_to text,
               invoice jsonb)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  v_items   invoice_group_item[] := ARRAY(SELECT t FROM json_populate_recordset(NULL::invoice_group_item, p_items) t);
  v_item    invoice_group_item;
  v_claim   record;
  -- The workspace whose items are being decided, with its credit account and its ledger's last
  -- position as the items decided before leave them.
  v_ws_id   text;
  v_ws      record;
  v_account record;
  v_ledger  bigint;
  v_origin  text;
  v_created integer := 0;
  -- The created items' keys and the invoice rows they keep.
  v_key_ws    text[];
  v_keys      text[];
  v_responses jsonb[];
  i         integer;
BEGIN
  IF cardinality(v_items) = 0 THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM unnest(v_items) t GROUP BY t.workspace_id, t.idempotency_key HAVING count(*) > 1) THEN
    RAISE EXCEPTION 'create_invoice_group: a group holds one idempotency key twice';
  END IF;

  -- The group's workspaces, locked in id order before their keys are claimed. Every claimer of an
  -- invoice key takes this lock first, so the claims below never wait, and what they read is final.
  PERFORM 1 FROM workspaces WHERE id = ANY (ARRAY(SELECT t.workspace_id FROM unnest(v_items) t)) ORDER BY id
      FOR NO KEY UPDATE;

  FOR v_claim IN
    SELECT c.ord, c.outcome, c.response
      FROM claim_idempotency_keys(ARRAY(SELECT t.workspace_id FROM unnest(v_items) t), 'invoices.create',
                                  ARRAY(SELECT t.idempotency_key FROM unnest(v_items) t),
                                  ARRAY(SELECT t.request_hash FROM unnest(v_items) t),
                                  ARRAY(SELECT t.key_expires_at FROM unnest(v_items) t)) c
     WHERE c.outcome <> 'claimed'
  LOOP
    v_item := v_items[v_claim.ord];
    v_item.outcome := CASE v_claim.outcome WHEN 'replay' THEN 'replayed' ELSE 'idempotency_key_reused' END;
    v_item.replayed := v_claim.response;
    v_items[v_claim.ord] := v_item;
  END LOOP;

  FOR i IN SELECT t.ordinality FROM unnest(v_items) WITH ORDINALITY t ORDER BY t.workspace_id, t.ordinality LOOP
    v_item := v_items[i];
    IF v_ws_id IS DISTINCT FROM v_item.workspace_id THEN
      v_ws_id := v_item.workspace_id;
      -- Locked above. No row: every field reads null, and the items are refused as not found.
      SELECT w.invoice_seq, w.event_seq, w.wallet_address, w.return_origins INTO v_ws
        FROM workspaces w WHERE w.id = v_ws_id;
      SELECT a.balance, a.reserved INTO v_account FROM credit_accounts a WHERE a.workspace_id = v_ws_id
         FOR NO KEY UPDATE;
      SELECT coalesce(max(l.seq), 0) INTO v_ledger FROM credit_ledger l WHERE l.workspace_id = v_ws_id;
    END IF;
    CONTINUE WHEN v_item.outcome IS NOT NULL;

    v_origin := NULL;
    IF cardinality(v_item.url_origins) > 0 THEN
      SELECT o.origin INTO v_origin FROM unnest(v_item.url_origins) AS o(origin)
       WHERE NOT o.origin = ANY (v_ws.return_origins) LIMIT 1;
    END IF;
    IF v_ws.wallet_address IS NULL THEN
      v_item.error_code := 'not_found';
    ELSIF v_item.asked_pay_to IS NOT NULL AND v_item.asked_pay_to <> v_ws.wallet_address THEN
      v_item.error_code := 'pay_to_mismatch';
    ELSIF v_origin IS NOT NULL THEN
      v_item.error_code := 'return_origin_not_allowed';
      v_item.error_detail := v_origin;
    ELSIF v_account.balance IS NULL OR v_account.balance - v_account.reserved < v_item.cost + v_item.fee THEN
      v_item.error_code := 'insufficient_credits';
    END IF;

    IF v_item.error_code IS NOT NULL THEN
      v_item.outcome := 'refused';
    ELSE
      v_ws.invoice_seq := v_ws.invoice_seq + 1;
      v_ws.event_seq := v_ws.event_seq + 1;
      v_account.balance := v_account.balance - v_item.cost;
      v_account.reserved := v_account.reserved + v_item.fee;
      v_ledger := v_ledger + 1;
      v_item.outcome := 'created';
      v_item.number := v_ws.invoice_seq;
      v_item.pay_to := v_ws.wallet_address;
      v_item.event_id := v_ws.event_seq;
      v_item.ledger_seq := v_ledger;
      v_item.balance_after := v_account.balance;
      v_created := v_created + 1;
    END IF;
    v_items[i] := v_item;
  END LOOP;

  -- A refused item leaves its key unused, as the rollback of a refused create alone would.
  FOR v_item IN SELECT t.* FROM unnest(v_items) t WHERE t.outcome = 'refused' LOOP
    DELETE FROM idempotency_keys
     WHERE workspace_id = v_item.workspace_id AND scope = 'invoices.create' AND key = v_item.idempotency_key;
  END LOOP;

  -- The group's writes. Each workspace's row and credit account are locked since they were read above.
  IF v_created > 0 THEN
    UPDATE workspaces w SET invoice_seq = c.invoice_seq, event_seq = c.event_seq
      FROM (SELECT t.workspace_id, max(t.number) AS invoice_seq, max(t.event_id) AS event_seq
              FROM unnest(v_items) t WHERE t.outcome = 'created' GROUP BY t.workspace_id) c
     WHERE w.id = c.workspace_id;
    UPDATE credit_accounts a SET balance = a.balance - c.cost, reserved = a.reserved + c.fee
      FROM (SELECT t.workspace_id, sum(t.cost) AS cost, sum(t.fee) AS fee
              FROM unnest(v_items) t WHERE t.outcome = 'created' GROUP BY t.workspace_id) c
     WHERE a.workspace_id = c.workspace_id;
    INSERT INTO credit_ledger (workspace_id, kind, balance_change, reserve_change, reference, seq, balance_after)
    SELECT t.workspace_id, 'invoice.created', -t.cost, t.fee, t.id, t.ledger_seq, t.balance_after
      FROM unnest(v_items) WITH ORDINALITY t WHERE t.outcome = 'created' ORDER BY t.ordinality;
    -- Each key keeps the invoice row as inserted, which a retry replays.
    WITH created AS (
      INSERT INTO invoices (workspace_id, id, number, status, amount, currency, network, expires_in, expires_at,
                            external_id, success_url, cancel_url, pay_to, source, fee_reserved, created_at, updated_at)
      SELECT t.workspace_id, t.id, t.number, 'open', t.amount, 'USDC', t.network, t.expires_in,
             t.created_at + make_interval(secs => t.expires_in), t.external_id, t.success_url, t.cancel_url,
             t.pay_to, t.source, t.fee, t.created_at, t.created_at
        FROM unnest(v_items) WITH ORDINALITY t WHERE t.outcome = 'created' ORDER BY t.ordinality
      RETURNING invoices.workspace_id, invoices.id, to_jsonb(invoices) AS row
    )
    SELECT array_agg(t.workspace_id), array_agg(t.idempotency_key), array_agg(c.row)
      INTO v_key_ws, v_keys, v_responses
      FROM created c JOIN unnest(v_items) t ON t.workspace_id = c.workspace_id AND t.id = c.id;
    PERFORM store_idempotent_responses(v_key_ws, 'invoices.create', v_keys, v_responses);
    PERFORM append_event(t.workspace_id, 'invoice.created', t.id, NULL,
                         jsonb_build_object('invoice', t.event_invoice || jsonb_build_object(
                           'number', invoice_number_text(t.number), 'payTo', t.pay_to)),
                         t.created_at, t.event_id)
       FROM unnest(v_items) WITH ORDINALITY t WHERE t.outcome = 'created' ORDER BY t.ordinality;
  END IF;

  RETURN QUERY
  SELECT (t.ordinality - 1)::integer, t.outcome, t.error_code, t.error_detail, t.number, t.pay_to, t.replayed
    FROM unnest(v_items) WITH ORDINALITY t;
END $$;
