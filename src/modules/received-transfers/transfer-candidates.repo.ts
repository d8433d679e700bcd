import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { InvoiceId } from '../invoices/index.js';

// The scan's reads of the invoices table (as search, export and statements read it): which wallets to
// watch, and which invoices a transfer of an amount may pay. Invoices are written by their own module only.

/** A receiving wallet (lowercase) of a workspace's open or recently closed invoices, and the oldest one's creation. */
export interface WatchedWallet {
  readonly workspaceId: WorkspaceId;
  readonly wallet: `0x${string}`;
  readonly since: Date;
}

/** An invoice a transfer of its amount to its wallet may be meant for: open, or closed since `closedSince`. */
export interface TransferCandidate {
  readonly workspaceId: WorkspaceId;
  readonly id: InvoiceId;
  readonly status: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** Open, or closed since the time given: a late or second payment of a closed invoice is still recorded. */
const WATCHED = (closedSince: Date) =>
  sql`(status = 'open' OR (status IN ('paid', 'expired', 'cancelled') AND updated_at >= ${closedSince}))`;

/**
 * The wallets whose incoming transfers the scan of every network watches: those of open and recently
 * closed invoices, whatever network each is payable on, so that money sent on the wrong network is
 * recorded too.
 */
export async function watchedWallets(db: Executor, closedSince: Date): Promise<WatchedWallet[]> {
  const { rows } = await sql<WatchedWallet>`
    SELECT workspace_id AS "workspaceId", pay_to AS wallet, min(created_at) AS since FROM invoices
     WHERE ${WATCHED(closedSince)}
     GROUP BY workspace_id, pay_to`.execute(db);
  return rows;
}

/** The invoices issued for `payTo` of exactly `amount` payable on `network`, open or closed lately, oldest first. */
export async function transferCandidates(
  db: Executor,
  transfer: { readonly payTo: string; readonly amount: bigint; readonly network: string; readonly closedSince: Date },
): Promise<TransferCandidate[]> {
  const { rows } = await sql<TransferCandidate>`
    SELECT workspace_id AS "workspaceId", id, status, created_at AS "createdAt", expires_at AS "expiresAt"
      FROM invoices
     WHERE pay_to = ${transfer.payTo} AND amount = ${transfer.amount} AND ${WATCHED(transfer.closedSince)}
       AND (network IS NULL OR network = ${transfer.network})
     ORDER BY created_at, id`.execute(db);
  return rows;
}
