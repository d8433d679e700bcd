-- The four tables every invoice creation writes a row into no longer check their workspace with a
-- foreign key (docs/performance.md, "Invoice creation").
--
-- Each foreign key is a row trigger: per row, an after-trigger event queued and a lookup of the
-- workspace row under KEY SHARE, run when the statement ends. A group commit writes four rows an
-- invoice (invoice, event, ledger entry, key), all for workspaces it has just locked; on a group of ten
-- these checks were a sixth of the group's time, on the workspace's serial path.
--
-- What the keys guarded still holds: a workspace is never deleted (no path of the service deletes
-- one, and credit_accounts, every other table and the workspaces' own rows keep theirs), and each
-- writer of these tables writes for a workspace it has read in the same transaction: creation locks
-- the workspace and refuses items of a missing one (not_found), append_event takes the event id from
-- the workspace row, ledger entries follow their credit account's update, and keys are claimed for
-- the workspace of the API key or session that asks.

ALTER TABLE invoices DROP CONSTRAINT invoices_workspace_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_workspace_id_fkey;
ALTER TABLE credit_ledger DROP CONSTRAINT credit_ledger_workspace_id_fkey;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_workspace_id_fkey;
