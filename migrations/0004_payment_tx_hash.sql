-- Payments by transaction hash, across workspaces: a buyer must not submit the relayer's settlement of
-- another payment as their own transfer (it would claim that payment's money for their invoice).
CREATE INDEX payment_intents_tx_hash_idx ON payment_intents (tx_hash) WHERE tx_hash IS NOT NULL;
