-- The relayer's transaction nonces, one row per (chain, relayer address), shared by every process that
-- settles payments. A settlement takes its nonce under this row's lock, in the same transaction that
-- stores its signed bytes, and is sent after that commits. A row lock, not a session-level advisory lock,
-- so it holds through a transaction pooler too.

CREATE TABLE relayer_nonces (
  chain_id      integer NOT NULL,
  relayer       text NOT NULL,
  -- The next nonce to hand out unless the node is already past it.
  next_nonce    bigint NOT NULL CHECK (next_nonce >= 0),
  -- The node's pending transaction count when it was last seen behind next_nonce, and since when: a
  -- nonce handed out and never sent (its process died between commit and send, and no retry sent it)
  -- holds back every later transaction, so after a while it is handed out again.
  behind_at     bigint,
  behind_since  timestamptz,
  PRIMARY KEY (chain_id, relayer)
);
