-- A submitted transaction hash no longer holds its invoice: the invoice turns `processing` only once a
-- transfer that pays it is found in a block (or an authorization was verified and is being settled).
-- So several attempts of one invoice may be in flight at once, and two valid payments may both land:
-- the second is recorded as an overpayment instead of being lost.

-- When the payment was found (a mined transfer that pays the invoice) or accepted (a verified
-- authorization): from then on it is announced in the feed; before it, a submitted hash is only a claim.
ALTER TABLE payment_intents ADD COLUMN found_at timestamptz;
-- Whether this attempt keeps the invoice `processing`; while any attempt does, the invoice is not reopened.
ALTER TABLE payment_intents ADD COLUMN holds_invoice boolean NOT NULL DEFAULT false;
-- A payment that landed for an invoice another payment had already paid (or that was cancelled).
ALTER TABLE payment_intents ADD COLUMN overpayment boolean NOT NULL DEFAULT false;

-- Every attempt recorded so far was announced, and those in flight hold their invoice.
UPDATE payment_intents SET found_at = submitted_at;
UPDATE payment_intents SET holds_invoice = true WHERE status = 'processing';

DROP INDEX payment_intents_one_processing_idx;
DROP INDEX payment_intents_one_success_idx;
-- Exactly one payment pays an invoice; overpayments are beside it.
CREATE UNIQUE INDEX payment_intents_one_success_idx ON payment_intents (workspace_id, invoice_id)
  WHERE status = 'succeeded' AND NOT overpayment;
-- GET /issues lists the workspace's recent overpayments.
CREATE INDEX payment_intents_overpayment_idx ON payment_intents (workspace_id, finished_at) WHERE overpayment;
