-- Transfers found on the chain by themselves (docs/invoices.md, "Payments found on the chain"): each
-- network's scan position, the open invoices a transfer may pay found by wallet and amount, and every
-- transfer that paid nothing by itself, kept for the merchant to resolve.
--
-- Contents, each in a section of its own headed `-- == table <name>` or `-- == index <name>`:
--     transfer_scans, received_transfers, invoices_open_pay_to_idx, invoices_closed_idx,
--     payment_intents.amount_received (`-- == column`)


-- == table transfer_scans =================================================================
-- One row a network: the first block whose USDC Transfer logs are not read yet. The scan reads only
-- blocks with the network's confirmations, so a reorganisation of newer blocks changes nothing read.
-- `next_block` is null while no wallet is watched: the next scan starts near the head, at the block of
-- the oldest invoice it watches.
CREATE TABLE transfer_scans (
  network    text PRIMARY KEY,
  next_block bigint CHECK (next_block >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);


-- == table received_transfers =============================================================
-- A confirmed USDC transfer to a workspace's receiving wallet that paid nothing by itself: the scan
-- found no single open invoice it pays, or it was submitted for an invoice it cannot pay. Recorded once
-- a workspace and transfer; the merchant applies it to an invoice or dismisses it.
CREATE TABLE received_transfers (
  workspace_id      text NOT NULL REFERENCES workspaces (id),
  id                text NOT NULL,
  network           text NOT NULL,
  tx_hash           text NOT NULL,
  log_index         integer NOT NULL,
  from_address      text NOT NULL,
  to_address        text NOT NULL,
  amount            bigint NOT NULL CHECK (amount > 0),
  block_number      bigint NOT NULL,
  block_time        timestamptz NOT NULL,
  status            text NOT NULL CHECK (status IN ('unmatched', 'applied', 'dismissed')),
  reason            text NOT NULL CHECK (reason IN ('ambiguous', 'no_matching_invoice', 'amount_mismatch', 'late')),
  -- The invoice it was meant for, when known (submitted for it, or the one it came too late for).
  invoice_id        text,
  -- Once applied: the invoice it paid and the payment that records it.
  applied_invoice_id text,
  payment_intent_id text,
  note              text,
  created_at        timestamptz NOT NULL,
  resolved_at       timestamptz,
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, network, tx_hash, log_index),
  CHECK ((status = 'unmatched') = (resolved_at IS NULL)),
  CHECK ((status = 'applied') = (payment_intent_id IS NOT NULL))
);
-- Pages newest first, of every status or of one.
CREATE INDEX received_transfers_page_idx ON received_transfers (workspace_id, created_at DESC, id DESC);
CREATE INDEX received_transfers_unmatched_idx ON received_transfers (workspace_id, created_at DESC, id DESC)
  WHERE status = 'unmatched';


-- == index invoices_open_pay_to_idx =======================================================
-- The wallets the scan watches (those of open invoices) and the open invoices a transfer of an amount
-- to a wallet may pay: one index range each, whatever the number of open invoices.
CREATE INDEX invoices_open_pay_to_idx ON invoices (pay_to, amount) WHERE status = 'open';


-- == index invoices_closed_idx ============================================================
-- Invoices closed in the last hour keep their wallet watched: a late payment or a second one is still
-- recorded. Only a close (paid, expired, cancelled) and later changes of a closed invoice write to it.
CREATE INDEX invoices_closed_idx ON invoices (updated_at) WHERE status IN ('paid', 'expired', 'cancelled');


-- == column payment_intents.amount_received ================================================
-- What the transfer brought when a merchant applied one of another amount (a received transfer, short
-- with acceptShortfall, or over): the payment shows its shortfall or what was overpaid. Null: the amount.
ALTER TABLE payment_intents ADD COLUMN amount_received bigint CHECK (amount_received > 0);
