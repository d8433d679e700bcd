-- Invoice batches: the binding of a batch's Idempotency-Key to its request. Each item is created under
-- a key derived from the batch key and its position (in idempotency_keys, like any invoice), so a
-- retried batch replays the items that were created and tries the others again.
-- A workspace retains 1,000 bindings, with no time-based expiry: the 1,001st evicts the oldest. An
-- evicted binding keeps its key and request hash (a tombstone, no items), so a late retry of it is
-- refused (409 batch_binding_evicted) instead of creating its invoices a second time.

CREATE TABLE invoice_batches (
  workspace_id    text NOT NULL REFERENCES workspaces (id),
  idempotency_key text NOT NULL,
  request_hash    bytea NOT NULL,
  item_count      integer NOT NULL CHECK (item_count BETWEEN 1 AND 25),
  created_at      timestamptz NOT NULL,
  evicted_at      timestamptz,
  PRIMARY KEY (workspace_id, idempotency_key)
);
CREATE INDEX invoice_batches_retained_idx ON invoice_batches (workspace_id, created_at, idempotency_key) WHERE evicted_at IS NULL;
