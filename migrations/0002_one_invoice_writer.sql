-- One way to write an invoice: the group commit of invoice creation follows the rules every other
-- write follows. Its keys are claimed (with their answers) by claim_idempotency_keys and, when a
-- group is decided twice, answered anew by store_idempotent_responses, the functions the application's
-- claimIdempotencyKey and storeIdempotentResponse (src/modules/idempotency/idempotency.repo.ts) call
-- too, and its `invoice.created` events are written by append_event, the writer of every event, with
-- their data built as jsonb. create_invoice_group keeps its name, its signature and its answers.
--
-- Contents, each in a section of its own headed `-- == function <name>` or `-- == type <name>`:
--     claim_idempotency_keys, store_idempotent_responses          idempotency keys
--     append_event (an array form, which the one-event form calls)  events
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
-- in a cycle. A refusal that rolls back its transaction leaves its key unused. A caller that knows a
-- key's response already gives it (p_responses, by position), and a key claimed now keeps it; otherwise
-- the response is stored by store_idempotent_responses in the transaction that claimed the key.
--
-- Keys already taken are read by a second statement, which sees what the claimers waited for
-- committed (the insert's own snapshot predates it). Called by claimIdempotencyKey in
-- src/modules/idempotency/idempotency.repo.ts (one key) and by create_invoice_group (a group's keys,
-- when it decides the group again after a key answered a replay or a reuse).
CREATE FUNCTION claim_idempotency_keys(p_workspace_ids text[], p_scope text, p_keys text[],
                                       p_request_hashes bytea[], p_expires_at timestamptz[],
                                       p_responses jsonb[] DEFAULT NULL)
RETURNS TABLE (ord integer, outcome text, response jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  v_claimed_ws   text[];
  v_claimed_keys text[];
BEGIN
  WITH claimed AS (
    INSERT INTO idempotency_keys (workspace_id, scope, key, request_hash, expires_at, response)
    SELECT t.ws, p_scope, t.key, t.hash, t.expires_at, p_responses[t.ord]
      FROM unnest(p_workspace_ids, p_keys, p_request_hashes, p_expires_at) WITH ORDINALITY
           AS t(ws, key, hash, expires_at, ord)
     ORDER BY t.ws, t.key
        ON CONFLICT DO NOTHING
    RETURNING workspace_id, key
  )
  SELECT array_agg(c.workspace_id), array_agg(c.key) INTO v_claimed_ws, v_claimed_keys FROM claimed c;
  -- Every key new (keys are unique within a call): nothing to read.
  IF cardinality(v_claimed_keys) = cardinality(p_keys) THEN
    RETURN QUERY SELECT t.ord, 'claimed', NULL::jsonb FROM generate_subscripts(p_keys, 1) AS t(ord) ORDER BY t.ord;
    RETURN;
  END IF;

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
-- src/modules/idempotency/idempotency.repo.ts (one key) and by create_invoice_group (a group's keys,
-- when it decides the group again after a key answered a replay or a reuse).
CREATE FUNCTION store_idempotent_responses(p_workspace_ids text[], p_scope text, p_keys text[], p_responses jsonb[])
RETURNS void
-- Planned at each call, for the keys given and the table's size now: a plan kept from when the table
-- was small scans all of it once it has grown, where one primary-key probe a key is what it takes.
LANGUAGE plpgsql SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  UPDATE idempotency_keys k SET response = t.response
    FROM unnest(p_workspace_ids, p_keys, p_responses) AS t(workspace_id, key, response)
   WHERE k.workspace_id = t.workspace_id AND k.scope = p_scope AND k.key = t.key;
END $$;


-- == function append_event ================================================================
-- The writer of every event, in two forms. Given arrays (one element an event), it appends the events
-- in their order under ids the caller took itself under the workspace row lock (`event_seq`, held to
-- commit, which makes commit order equal event id order within a workspace): create_invoice_group
-- appends a group's `invoice.created` events so, in one statement. Given one event, it takes the next id
-- of the workspace's counter unless p_id is given, and appends it through the array form: append_events
-- (src/modules/events/event.repo.ts) writes every other event so.
CREATE FUNCTION append_event(p_workspace_ids text[], p_types text[], p_invoice_ids text[],
                             p_payment_intent_ids text[], p_data jsonb[], p_created_at timestamptz[], p_ids bigint[])
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events (workspace_id, id, type, invoice_id, payment_intent_id, data, created_at)
  SELECT t.workspace_id, t.id, t.type, t.invoice_id, t.payment_intent_id, t.data::json, t.created_at
    FROM unnest(p_workspace_ids, p_ids, p_types, p_invoice_ids, p_payment_intent_ids, p_data, p_created_at)
         WITH ORDINALITY AS t(workspace_id, id, type, invoice_id, payment_intent_id, data, created_at, ord)
   ORDER BY t.ord;
END $$;

CREATE OR REPLACE FUNCTION append_event(p_workspace_id text, p_type text, p_invoice_id text, p_payment_intent_id text,
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
  PERFORM append_event(ARRAY[p_workspace_id], ARRAY[p_type], ARRAY[p_invoice_id], ARRAY[p_payment_intent_id],
                       ARRAY[p_data], ARRAY[p_created_at], ARRAY[v_id]);
  RETURN v_id;
END $$;


-- == function invoice_number_text =========================================================
-- `INV-000042`; past 999999 the number simply grows (formatInvoiceNumber in the application).
-- Called by create_invoice_group, for the `invoice.created` events it appends.
CREATE OR REPLACE FUNCTION invoice_number_text(p_number bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'INV-' || lpad(p_number::text, greatest(6, length(p_number::text)), '0') $$;



-- == type invoice_group_item ==============================================================
-- One create of a group as the application sends it (createItem in src/modules/invoices/invoice.repo.ts,
-- one JSON object an item, keys as the fields are named). What create_invoice_group decides for it is
-- kept beside it, one array a field.
CREATE TYPE invoice_group_item AS (
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
  event_invoice   jsonb
);


-- == function create_invoice_group ========================================================
-- Creates a group of invoices in one call and one commit (docs/performance.md, "Invoice creation").
-- Called by createInvoices in src/modules/invoices/invoice.repo.ts, for the groups that
-- src/modules/invoices/invoice.batcher.ts forms of concurrent creates (a lone create is a group of one).
--
-- In steps: lock the group's workspaces in id order; check each item against its workspace (wallet,
-- return origins); decide the items in order within each workspace (available credits, which each
-- created item uses up), so that created ones take the next numbers and event ids and a refused one
-- takes nothing, keeping numbers gapless; claim the keys (claim_idempotency_keys) with the rows the
-- created items will insert, which retries replay; release the keys of refused items; then write the
-- group set-based: counters, credit accounts, ledger, invoices and their `invoice.created` events
-- (append_event). A group holding one key twice is refused as a whole: the service sends the second
-- item after the group, when it replays.
--
-- The items are decided before their keys are claimed, so that a key is written once, with its
-- response. When a key answers a replay or a reuse (a retry, rare in a group), the other items are
-- decided again without that one and the keys' responses stored anew (store_idempotent_responses).
-- Every claimer of an invoice key holds its workspace's lock first, so taking the credit account's lock
-- before the keys' cannot wait in a cycle.
--
-- What is decided is kept in one array a field, indexed by the item's position: PL/pgSQL reads and
-- writes an element of a scalar array in place, where an element of a composite array is copied whole.
-- A created item is answered with its number and receiving wallet only (the service has every other
-- field); a replay answers the stored invoice, the row as created in to_jsonb's shape.
CREATE OR REPLACE FUNCTION create_invoice_group(p_items json)
RETURNS TABLE (idx integer, outcome text, error_code text, error_detail text, number bigint, pay_to text,
               invoice jsonb)
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
                   NULL, NULL, NULL, NULL, NULL)::invoices END
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
         CASE WHEN t.outcome = 'created' THEN v_wallet[t.ord] END, t.replayed
    FROM unnest(v_outcome, v_code, v_detail, v_replayed) WITH ORDINALITY AS t(outcome, code, detail, replayed, ord);
END $$;
