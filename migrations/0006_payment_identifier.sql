-- x402's payment-identifier: the payer's own id of a payment, the same on every retry. A payment sent
-- again under an id already kept for the order is answered as the first one was; the id is looked up
-- among the order's attempts (payment_intents_invoice_idx, payment_intents_purchase_idx).
ALTER TABLE payment_intents
  ADD COLUMN payment_identifier text CHECK (payment_identifier ~ '^[a-zA-Z0-9_-]{16,128}$');
