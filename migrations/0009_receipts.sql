-- A receipt is numbered when its invoice is paid, in the paying transaction: RCT-000001, … per
-- workspace, gapless (a rolled-back payment consumes nothing) and never reused. A payment that a
-- reorganisation of the chain takes back voids its receipt; paying the invoice again issues a new one.
CREATE TABLE receipt_counters (
  workspace_id text PRIMARY KEY REFERENCES workspaces (id),
  last_number  bigint NOT NULL CHECK (last_number > 0)
);

CREATE TABLE receipts (
  workspace_id text NOT NULL,
  number       bigint NOT NULL CHECK (number > 0),
  invoice_id   text NOT NULL,
  issued_at    timestamptz NOT NULL,
  voided_at    timestamptz,
  PRIMARY KEY (workspace_id, number),
  FOREIGN KEY (workspace_id, invoice_id) REFERENCES invoices (workspace_id, id)
);
-- At most one valid receipt per invoice: the one GET /invoices/{id}/receipt shows.
CREATE UNIQUE INDEX receipts_valid_idx ON receipts (workspace_id, invoice_id) WHERE voided_at IS NULL;

-- Invoices paid before receipts were numbered get theirs now, in the order they were paid.
INSERT INTO receipts (workspace_id, number, invoice_id, issued_at)
SELECT workspace_id, row_number() OVER (PARTITION BY workspace_id ORDER BY paid_at, number), id, paid_at
FROM invoices
WHERE status = 'paid' AND paid_at IS NOT NULL;

INSERT INTO receipt_counters (workspace_id, last_number)
SELECT workspace_id, max(number) FROM receipts GROUP BY workspace_id;
