-- Credit purchases, and a ledger that can be read page by page.
--
-- 1. A credit purchase is an order of its own, never an invoice: no number, no change-feed event, no
--    webhook, no timeline. It pays the operator wallet (`pay_to`, lowercase), for one package whose
--    credits and price are copied in, so a later change of CREDIT_PACKAGES does not change it.
--    Its Idempotency-Key lives in `idempotency_keys` (scope 'credit_purchases.create'), as invoices' do.
--
-- 2. Every ledger entry gets its position in the workspace's ledger (`seq`: 1, 2, … — what the API
--    shows as the entry id, so global counts never leak between workspaces) and the balance it left
--    (`balance_after`). A trigger fills both, so every writer records them — the application's and the
--    create_invoice function alike. Writers change the credit account row first and then append the
--    entry, in one transaction: the account row lock they hold makes `seq` follow commit order and
--    `balance_after` the balance as this entry left it.
--
-- 3. `reason`: why an entry was made, in words (a manual grant's reason, the new-workspace grant).
--    `reference` keeps the id of what it was for (an invoice or a credit purchase); the new-workspace
--    grants, which held their reason there, are moved.
--
-- 4. `credit_accounts.first_of_wallet`: whether the workspace was its wallet's first, the only one that
--    receives the new-workspace grant, so the portal can say why a later workspace started with none.

CREATE TABLE credit_purchases (
  workspace_id text NOT NULL REFERENCES workspaces (id),
  id           text NOT NULL,
  package_id   text NOT NULL,
  credits      bigint NOT NULL CHECK (credits > 0),
  -- USDC micro-units.
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

ALTER TABLE credit_ledger
  ADD COLUMN seq bigint,
  ADD COLUMN balance_after bigint,
  ADD COLUMN reason text;

UPDATE credit_ledger l
   SET seq = w.seq, balance_after = w.balance_after
  FROM (SELECT workspace_id, id,
               row_number() OVER entries AS seq,
               sum(balance_change) OVER entries AS balance_after
          FROM credit_ledger
        WINDOW entries AS (PARTITION BY workspace_id ORDER BY id)) w
 WHERE l.workspace_id = w.workspace_id AND l.id = w.id;

UPDATE credit_ledger SET reason = reference, reference = NULL WHERE kind = 'grant';

ALTER TABLE credit_ledger
  ALTER COLUMN seq SET NOT NULL,
  ALTER COLUMN balance_after SET NOT NULL,
  ADD CONSTRAINT credit_ledger_seq_key UNIQUE (workspace_id, seq);

CREATE FUNCTION credit_ledger_position() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  SELECT balance INTO NEW.balance_after FROM credit_accounts WHERE workspace_id = NEW.workspace_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'credit_ledger: workspace % has no credit account', NEW.workspace_id;
  END IF;
  SELECT coalesce(max(seq), 0) + 1 INTO NEW.seq FROM credit_ledger WHERE workspace_id = NEW.workspace_id;
  RETURN NEW;
END $$;

CREATE TRIGGER credit_ledger_position BEFORE INSERT ON credit_ledger
  FOR EACH ROW EXECUTE FUNCTION credit_ledger_position();

ALTER TABLE credit_accounts ADD COLUMN first_of_wallet boolean NOT NULL DEFAULT true;

-- A positive grant marks a first workspace; a workspace granted nothing was its wallet's first only if
-- no workspace of that wallet is older (NEW_WORKSPACE_CREDITS may have been 0).
UPDATE credit_accounts a SET first_of_wallet = false
  FROM workspaces w
 WHERE w.id = a.workspace_id
   AND NOT EXISTS (SELECT 1 FROM credit_ledger g
                    WHERE g.workspace_id = a.workspace_id AND g.kind = 'grant' AND g.balance_change > 0)
   AND EXISTS (SELECT 1 FROM workspaces o
                WHERE o.wallet_address = w.wallet_address AND (o.created_at, o.id) < (w.created_at, w.id));
