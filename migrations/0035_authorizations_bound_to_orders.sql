-- Each EIP-3009 authorization the service accepts pays one order and nothing else. The row is written
-- in the transaction that accepts the authorization for an order; a second order (in any workspace, as
-- one wallet may own several) finds it taken. A transaction that executes the authorization — relayed
-- by the service or copied from the mempool and mined by anyone — then pays only this order, wherever
-- its hash is submitted. Authorizer and nonce are lowercase hex.
CREATE TABLE payment_authorizations (
  network            text NOT NULL,
  authorizer         text NOT NULL,
  nonce              text NOT NULL,
  workspace_id       text NOT NULL,
  invoice_id         text,
  credit_purchase_id text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (network, authorizer, nonce),
  CHECK ((invoice_id IS NULL) <> (credit_purchase_id IS NULL))
);

-- The authorizations accepted before this table existed, bound to the order of their first payment.
INSERT INTO payment_authorizations (network, authorizer, nonce, workspace_id, invoice_id, credit_purchase_id, created_at)
SELECT DISTINCT ON (network, authorizer, nonce)
       network, authorizer, nonce, workspace_id, invoice_id, credit_purchase_id, created_at
  FROM (SELECT network,
               lower(authorization_data -> 'authorization' ->> 'from') AS authorizer,
               lower(authorization_data -> 'authorization' ->> 'nonce') AS nonce,
               workspace_id, invoice_id, credit_purchase_id, created_at
          FROM payment_intents
         WHERE authorization_data IS NOT NULL) accepted
 ORDER BY network, authorizer, nonce, created_at;
