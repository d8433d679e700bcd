-- Payment intents: one per payment attempt (an EIP-3009 authorization or a submitted transaction).

CREATE TABLE payment_intents (
  workspace_id      text NOT NULL REFERENCES workspaces (id),
  id                text NOT NULL,
  invoice_id        text NOT NULL,
  method            text NOT NULL CHECK (method IN ('authorization', 'transaction')),
  status            text NOT NULL CHECK (status IN ('processing', 'succeeded', 'failed')),
  failure_reason    text,
  network           text NOT NULL,
  amount            bigint NOT NULL CHECK (amount > 0),
  pay_to            text NOT NULL,
  payer             text,
  link_version      integer NOT NULL,
  -- The signed EIP-3009 authorization and its signature (method = 'authorization').
  authorization_data jsonb,
  -- The relayer's settlement transaction, stored before it is sent so a retry resends the same bytes.
  settlement_raw    text,
  tx_hash           text,
  log_index         integer,
  block_number      bigint,
  block_time        timestamptz,
  submitted_at      timestamptz NOT NULL,
  finished_at       timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
-- At most one succeeded payment per invoice, and one attempt in flight.
CREATE UNIQUE INDEX payment_intents_one_success_idx ON payment_intents (workspace_id, invoice_id) WHERE status = 'succeeded';
CREATE UNIQUE INDEX payment_intents_one_processing_idx ON payment_intents (workspace_id, invoice_id) WHERE status = 'processing';
CREATE INDEX payment_intents_invoice_idx ON payment_intents (workspace_id, invoice_id, created_at);

-- A transfer pays at most one invoice, in any workspace: keyed by the chain's own identity of it.
CREATE TABLE payment_claims (
  network           text NOT NULL,
  tx_hash           text NOT NULL,
  log_index         integer NOT NULL,
  workspace_id      text NOT NULL,
  payment_intent_id text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (network, tx_hash, log_index)
);
