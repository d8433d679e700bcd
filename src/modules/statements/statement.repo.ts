import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { LedgerMovement, PaidVolume, StatementFacts } from './statement.js';

interface Row {
  name: string;
  created: bigint;
  cancelled: bigint;
  expired: bigint;
  paid: { currency: string; network: string | null; invoices: number; amount: string }[];
  opening_balance: bigint | null;
  closing_balance: bigint | null;
  movements: { kind: string; entries: number; credited: string; debited: string }[];
}

/**
 * Everything a statement of `[from, to)` needs, in one statement (one snapshot, one round trip), each
 * part an aggregate over an index range of the month: nothing grows with the workspace's history but
 * the ledger cut below. Resolves undefined when the workspace does not exist.
 *
 * Invoices count by their own times: created (`invoices_created_idx`), paid (`paid_at`,
 * `invoices_paid_idx`), cancelled (`invoices_cancelled_idx`), expired (the deadline; those the expiry
 * job has not marked yet are open past it, `invoices_open_deadline_idx`). Paid volume is the invoices'
 * amounts per currency and the network of the payment that paid each (an overpayment beside it is not
 * an invoice's payment and is not counted).
 *
 * Credits: the month's ledger entries are a range of positions, cut at each end after the last entry
 * written before that instant. Entries are numbered in commit order, while `created_at` is their
 * transaction's start, so near a boundary the two can disagree by the length of a transaction; cutting
 * by position puts every entry in exactly one month, makes each month's closing balance the next one's
 * opening, and the balances the ledger's own `balance_after`. Finding a cut walks the ledger back from
 * its newest entry, so it reads the entries written since that month began; a month before the first
 * entry (the new-workspace grant, written with the workspace) reads none.
 */
export async function readStatementFacts(
  db: Executor,
  workspaceId: WorkspaceId,
  period: { readonly from: Date; readonly to: Date; readonly now: Date },
): Promise<StatementFacts | undefined> {
  const { from, to, now } = period;
  const { rows } = await sql<Row>`
    WITH first AS MATERIALIZED (SELECT created_at FROM credit_ledger WHERE workspace_id = ${workspaceId} AND seq = 1),
    cut AS MATERIALIZED (
      -- Before the first entry there is none: no walk through the whole ledger to find none.
      SELECT CASE WHEN ${from} > (SELECT created_at FROM first) THEN
               (SELECT seq FROM credit_ledger WHERE workspace_id = ${workspaceId} AND created_at < ${from}
                 ORDER BY seq DESC LIMIT 1) END AS opening_seq,
             CASE WHEN ${to} > (SELECT created_at FROM first) THEN
               (SELECT seq FROM credit_ledger WHERE workspace_id = ${workspaceId} AND created_at < ${to}
                 ORDER BY seq DESC LIMIT 1) END AS closing_seq
    )
    SELECT w.name,
           (SELECT count(*) FROM invoices
             WHERE workspace_id = w.id AND created_at >= ${from} AND created_at < ${to}) AS created,
           (SELECT count(*) FROM invoices
             WHERE workspace_id = w.id AND status = 'cancelled' AND cancelled_at >= ${from} AND cancelled_at < ${to}) AS cancelled,
           (SELECT count(*) FROM invoices
             WHERE workspace_id = w.id AND status = 'expired' AND expired_at >= ${from} AND expired_at < ${to})
         + (SELECT count(*) FROM invoices
             WHERE workspace_id = w.id AND status = 'open' AND expires_at >= ${from} AND expires_at < ${to}
               AND expires_at <= ${now}) AS expired,
           (SELECT coalesce(json_agg(v ORDER BY v.currency, v.network NULLS LAST), '[]')
              FROM (SELECT i.currency, coalesce(p.network, i.network) AS network,
                           count(*)::int AS invoices, sum(i.amount)::text AS amount
                      FROM invoices i
                      -- Per paid invoice, its one payment (payment_intents_one_success_idx), never a join
                      -- over the workspace's payments.
                      LEFT JOIN LATERAL (
                        SELECT network FROM payment_intents
                         WHERE workspace_id = i.workspace_id AND invoice_id = i.id
                           AND status = 'succeeded' AND NOT overpayment
                         LIMIT 1) p ON true
                     WHERE i.workspace_id = w.id AND i.paid_at >= ${from} AND i.paid_at < ${to}
                     GROUP BY 1, 2) v) AS paid,
           (SELECT balance_after FROM credit_ledger
             WHERE workspace_id = w.id AND seq = cut.opening_seq) AS opening_balance,
           (SELECT balance_after FROM credit_ledger
             WHERE workspace_id = w.id AND seq = cut.closing_seq) AS closing_balance,
           (SELECT coalesce(json_agg(m ORDER BY m.kind), '[]')
              FROM (SELECT kind, count(*)::int AS entries,
                           sum(greatest(balance_change, 0))::text AS credited,
                           sum(greatest(-balance_change, 0))::text AS debited
                      FROM credit_ledger
                     WHERE workspace_id = w.id
                       AND seq > coalesce(cut.opening_seq, 0) AND seq <= coalesce(cut.closing_seq, 0)
                     GROUP BY kind) m) AS movements
      FROM workspaces w CROSS JOIN cut
     WHERE w.id = ${workspaceId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    workspaceName: row.name,
    invoicesCreated: Number(row.created),
    invoicesCancelled: Number(row.cancelled),
    invoicesExpired: Number(row.expired),
    paid: row.paid.map((volume): PaidVolume => ({
      currency: volume.currency,
      network: volume.network,
      invoices: volume.invoices,
      amount: BigInt(volume.amount),
    })),
    // Before the workspace's first entry (a month before it existed) there were no credits.
    openingBalance: row.opening_balance ?? 0n,
    closingBalance: row.closing_balance ?? 0n,
    movements: row.movements.map((movement): LedgerMovement => ({
      kind: movement.kind,
      entries: movement.entries,
      credited: BigInt(movement.credited),
      debited: BigInt(movement.debited),
    })),
  };
}
