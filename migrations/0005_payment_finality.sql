-- Payment finality: a payment recorded from a mined transaction keeps the hash of the block that held
-- it, and is re-checked against the chain until the block is the network's finalityBlocks deep
-- (finalized_at set). A payment whose transaction left the canonical chain before that becomes
-- `reverted`. Payments recorded before this migration have no block hash and are not re-checked.
ALTER TABLE payment_intents
  ADD COLUMN block_hash   text CHECK (block_hash ~ '^0x[0-9a-f]{64}$'),
  ADD COLUMN finalized_at timestamptz;

ALTER TABLE payment_intents DROP CONSTRAINT payment_intents_status_check;
ALTER TABLE payment_intents
  ADD CONSTRAINT payment_intents_status_check CHECK (status IN ('processing', 'succeeded', 'failed', 'reverted'));

-- The watcher's work list, per network: recorded payments whose block is not final yet.
CREATE INDEX payment_intents_unfinal_idx ON payment_intents (network, block_number)
  WHERE status = 'succeeded' AND block_hash IS NOT NULL AND finalized_at IS NULL;
