-- Indexes for GET /invoice-search: every kind of match is an index range scan within one workspace
-- that already yields invoices in number order, so a page is `number < cursor ORDER BY number DESC
-- LIMIT n` read from the index without sorting or scanning the workspace's other invoices.
-- (Migrations run in a transaction, so these are plain CREATE INDEX: writes to the tables wait while
-- they build.)

-- Order reference: many invoices may share one; number last so they come out in page order. It covers
-- every query the old (workspace_id, external_id) index served, so that one would only cost writes.
CREATE INDEX invoices_external_id_number_idx ON invoices (workspace_id, external_id, number) WHERE external_id IS NOT NULL;
DROP INDEX IF EXISTS invoices_external_id_idx;

-- Transaction hash within a workspace. The existing tx_hash index spans all workspaces (it guards
-- claims across them); a search must never touch another workspace's rows, even to filter them out.
CREATE INDEX payment_intents_workspace_tx_hash_idx ON payment_intents (workspace_id, tx_hash, invoice_id) WHERE tx_hash IS NOT NULL;
