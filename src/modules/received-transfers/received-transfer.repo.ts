import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import {
  newReceivedTransferId,
  type IncomingTransfer,
  type ReceivedTransfer,
  type ReceivedTransferId,
  type ReceivedTransferReason,
  type ReceivedTransferStatus,
} from './received-transfer.js';
import type { ReceivedTransferTable } from './received-transfer.table.js';

/**
 * Records the transfer for the workspace unless it is recorded already (a scan read again after a
 * restart, or a submitted hash the scan saw too): answers the record and whether it is new. A buyer who
 * submitted it for an invoice says more than the scan could: an unresolved record that named no invoice
 * takes that invoice and reason.
 */
export async function insertReceivedTransfer(
  db: Executor,
  workspaceId: WorkspaceId,
  record: { transfer: IncomingTransfer; reason: ReceivedTransferReason; invoiceId: string | null; at: Date },
): Promise<{ record: ReceivedTransfer; created: boolean } | undefined> {
  const { transfer } = record;
  const row = await db
    .insertInto('received_transfers')
    .values({
      workspace_id: workspaceId,
      id: newReceivedTransferId(),
      network: transfer.network,
      tx_hash: transfer.txHash,
      log_index: transfer.logIndex,
      from_address: transfer.from,
      to_address: transfer.to,
      amount: transfer.value,
      block_number: transfer.blockNumber,
      block_time: transfer.blockTime,
      status: 'unmatched',
      reason: record.reason,
      invoice_id: record.invoiceId,
      created_at: record.at,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['workspace_id', 'network', 'tx_hash', 'log_index'])
        .doUpdateSet({ reason: sql`excluded.reason`, invoice_id: sql`excluded.invoice_id` })
        .where(sql<boolean>`received_transfers.status = 'unmatched' AND received_transfers.invoice_id IS NULL
                            AND excluded.invoice_id IS NOT NULL`),
    )
    .returningAll()
    // A row inserted now has no deleting transaction yet; an updated one has this one's.
    .returning(sql<boolean>`xmax = 0`.as('created'))
    .executeTakeFirst();
  return row && { record: toReceivedTransfer(row), created: row.created };
}

export async function findReceivedTransfer(
  db: Executor,
  workspaceId: WorkspaceId,
  id: ReceivedTransferId,
  options: { lock?: boolean } = {},
): Promise<ReceivedTransfer | undefined> {
  let query = db
    .selectFrom('received_transfers')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toReceivedTransfer(row);
}

/** A page, newest first; `before` is the (createdAt, id) of the last record of the previous page. */
export async function listReceivedTransfers(
  db: Executor,
  workspaceId: WorkspaceId,
  page: { status?: ReceivedTransferStatus; limit: number; before?: { createdAt: Date; id: string } },
): Promise<ReceivedTransfer[]> {
  let query = db.selectFrom('received_transfers').selectAll().where('workspace_id', '=', workspaceId);
  if (page.status) query = query.where('status', '=', page.status);
  if (page.before) query = query.where(sql<boolean>`(created_at, id) < (${page.before.createdAt}, ${page.before.id})`);
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
  return rows.map(toReceivedTransfer);
}

export async function countUnmatched(db: Executor, workspaceId: WorkspaceId): Promise<number> {
  const row = await db
    .selectFrom('received_transfers')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'unmatched')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function resolveReceivedTransfer(
  db: Executor,
  workspaceId: WorkspaceId,
  id: ReceivedTransferId,
  resolution:
    | { status: 'applied'; invoiceId: string; paymentIntentId: string; at: Date }
    | { status: 'dismissed'; note: string | null; at: Date },
): Promise<ReceivedTransfer> {
  const row = await db
    .updateTable('received_transfers')
    .set(
      resolution.status === 'applied'
        ? {
            status: 'applied',
            applied_invoice_id: resolution.invoiceId,
            payment_intent_id: resolution.paymentIntentId,
            resolved_at: resolution.at,
          }
        : { status: 'dismissed', note: resolution.note, resolved_at: resolution.at },
    )
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toReceivedTransfer(row);
}

/** The first block of the network's next scan; null while it watches no wallet; undefined: never scanned. */
export async function scanPosition(db: Executor, network: string): Promise<bigint | null | undefined> {
  const row = await db
    .selectFrom('transfer_scans')
    .select('next_block')
    .where('network', '=', network)
    .executeTakeFirst();
  return row?.next_block;
}

export async function saveScanPosition(db: Executor, network: string, nextBlock: bigint | null): Promise<void> {
  await db
    .insertInto('transfer_scans')
    .values({ network, next_block: nextBlock })
    .onConflict((conflict) => conflict.column('network').doUpdateSet({ next_block: nextBlock, updated_at: sql`now()` }))
    .execute();
}

function toReceivedTransfer(row: ReceivedTransferTable): ReceivedTransfer {
  return {
    workspaceId: row.workspace_id as WorkspaceId,
    id: row.id as ReceivedTransferId,
    transfer: {
      network: row.network,
      txHash: row.tx_hash as `0x${string}`,
      logIndex: row.log_index,
      from: row.from_address as `0x${string}`,
      to: row.to_address as `0x${string}`,
      value: BigInt(row.amount),
      blockNumber: BigInt(row.block_number),
      blockTime: row.block_time,
    },
    status: row.status as ReceivedTransferStatus,
    reason: row.reason as ReceivedTransferReason,
    invoiceId: row.invoice_id,
    appliedInvoiceId: row.applied_invoice_id,
    paymentIntentId: row.payment_intent_id,
    note: row.note,
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
  };
}
