-- The portal's dashboard sums paid invoices per day over the last 30 days. Without this index that
-- reads every invoice of the workspace; with it, only the paid ones in the window. Partial, so open,
-- expired and cancelled invoices never enter it, and only the payment itself writes to it.
CREATE INDEX invoices_paid_idx ON invoices (workspace_id, paid_at) WHERE paid_at IS NOT NULL;
