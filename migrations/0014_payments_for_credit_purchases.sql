-- Credit purchases are paid through the same payment engine as invoices: a payment intent pays either
-- an invoice or a credit purchase, never both. Purchase attempts share everything else — the claim of a
-- transfer in payment_claims (a transfer pays one order, invoice or purchase, in any workspace), the
-- settlement and verification jobs, the found/holds/overpayment rules — but announce nothing: they
-- write no change-feed event and no webhook, and the merchant's payment reads never show them.

ALTER TABLE payment_intents
  ALTER COLUMN invoice_id DROP NOT NULL,
  ADD COLUMN credit_purchase_id text,
  ADD CONSTRAINT payment_intents_one_order CHECK (num_nonnulls(invoice_id, credit_purchase_id) = 1);

-- Exactly one payment pays a purchase, as for an invoice; overpayments are beside it.
CREATE UNIQUE INDEX payment_intents_one_purchase_success_idx ON payment_intents (workspace_id, credit_purchase_id)
  WHERE status = 'succeeded' AND NOT overpayment AND credit_purchase_id IS NOT NULL;
-- A purchase's attempts, newest last (its latest attempt, the holders that keep it processing).
CREATE INDEX payment_intents_purchase_idx ON payment_intents (workspace_id, credit_purchase_id, created_at)
  WHERE credit_purchase_id IS NOT NULL;
