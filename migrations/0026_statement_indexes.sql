-- The monthly statement (GET /statement) counts a workspace's invoices created, cancelled and expired
-- in one calendar month. Without these indexes each count reads every invoice of the workspace; with
-- them, only the month's. Paid invoices already have invoices_paid_idx (0009), and the credit ledger is
-- read through its (workspace_id, seq) key.
--
-- The cancelled and expired ones are partial: only a cancellation or an expiry writes to them.
-- invoices_created_idx is written by every creation: one small entry beside the ones an invoice has.
-- (Migrations run in a transaction, so these are plain CREATE INDEX: writes to invoices wait while
-- they are built.)
CREATE INDEX invoices_created_idx ON invoices (workspace_id, created_at);
CREATE INDEX invoices_cancelled_idx ON invoices (workspace_id, cancelled_at) WHERE status = 'cancelled';
CREATE INDEX invoices_expired_idx ON invoices (workspace_id, expired_at) WHERE status = 'expired';
