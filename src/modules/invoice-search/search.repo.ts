import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { Invoice } from '../invoices/index.js';
import { toInvoice } from '../invoices/index.js';
import type { SearchLookups } from './search.js';

type InvoiceRow = Record<string, unknown>;

/** Above every invoice number: the first page's bound, so that each branch keeps one shape. */
const NO_BOUND = (2n ** 63n - 1n).toString();

/**
 * One statement: each lookup is its own index range scan within the workspace, already in number
 * order and cut at `limit` (indexes of invoices and payment_intents, migrations/0001_baseline.sql), so
 * the work is bounded by the page size whatever the workspace or table holds. The union is then
 * deduplicated by number (unique per workspace), ordered newest first and cut again. Every branch may
 * hold `limit` rows, so if more than `limit` matches exist below `before`, at least `limit` come back —
 * callers ask one extra to see whether another page exists. Undefined when there is nothing to look up.
 */
export function searchStatement(
  workspaceId: WorkspaceId,
  lookups: SearchLookups,
  before: bigint | null,
  limit: number,
): RawBuilder<InvoiceRow> | undefined {
  const below = sql`${before === null ? NO_BOUND : before.toString()}::bigint`;
  const branches: RawBuilder<unknown>[] = [];
  if (lookups.externalId !== null) {
    branches.push(sql`
      SELECT * FROM invoices
       WHERE workspace_id = ${workspaceId} AND external_id = ${lookups.externalId} AND number < ${below}
       ORDER BY number DESC LIMIT ${limit}`);
  }
  if (lookups.number !== null) {
    branches.push(
      sql`SELECT * FROM invoices WHERE workspace_id = ${workspaceId} AND number = ${lookups.number.toString()}::bigint AND number < ${below}`,
    );
  }
  if (lookups.invoiceId !== null) {
    branches.push(
      sql`SELECT * FROM invoices WHERE workspace_id = ${workspaceId} AND id = ${lookups.invoiceId} AND number < ${below}`,
    );
  }
  if (lookups.txHash !== null) {
    // Several attempts (or transfers of one transaction) may name one invoice: distinct here already,
    // so duplicates cannot use up the branch's limit and hide a further page.
    branches.push(sql`
      SELECT DISTINCT ON (i.number) i.* FROM payment_intents p
        JOIN invoices i ON i.workspace_id = ${workspaceId} AND i.id = p.invoice_id
       WHERE p.workspace_id = ${workspaceId} AND p.tx_hash = ${lookups.txHash} AND i.number < ${below}
       ORDER BY i.number DESC LIMIT ${limit}`);
  }
  if (branches.length === 0) return undefined;
  return sql<InvoiceRow>`
    SELECT DISTINCT ON (number) * FROM (${sql.join(
      branches.map((branch) => sql`(${branch})`),
      sql` UNION ALL `,
    )}) hits
     ORDER BY number DESC LIMIT ${limit}`;
}

/** Up to `limit` invoices of the workspace matching any lookup, numbers below `before`, newest first. */
export async function searchInvoices(
  db: Executor,
  workspaceId: WorkspaceId,
  lookups: SearchLookups,
  before: bigint | null,
  limit: number,
): Promise<Invoice[]> {
  const statement = searchStatement(workspaceId, lookups, before, limit);
  if (!statement) return [];
  const { rows } = await statement.execute(db);
  return rows.map(toInvoice);
}
