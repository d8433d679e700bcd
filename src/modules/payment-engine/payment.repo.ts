import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { OrderRef } from './order.js';
import { ORDER_CHANGES_CHANNEL } from '../order-changes/index.js';
import type { FailureReason, PaymentIntent, PaymentIntentId } from './payment-intent.js';

type Row = Awaited<ReturnType<ReturnType<typeof selectIntent>['executeTakeFirst']>>;

function selectIntent(db: Executor, workspaceId: WorkspaceId, intentId: PaymentIntentId) {
  return db
    .selectFrom('payment_intents')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', intentId);
}

/** The column that names the order's payments. */
function orderColumn(order: OrderRef) {
  return order.kind === 'invoice' ? ('invoice_id' as const) : ('credit_purchase_id' as const);
}

function toIntent(row: NonNullable<Row>): PaymentIntent {
  return {
    workspaceId: row.workspace_id as WorkspaceId,
    id: row.id as PaymentIntentId,
    order:
      row.invoice_id !== null
        ? { kind: 'invoice', id: row.invoice_id }
        : { kind: 'credit_purchase', id: row.credit_purchase_id! },
    method: row.method as PaymentIntent['method'],
    status: row.status as PaymentIntent['status'],
    failureReason: row.failure_reason as FailureReason | null,
    network: row.network,
    amount: row.amount,
    amountReceived: row.amount_received,
    payTo: row.pay_to,
    payer: row.payer,
    linkVersion: row.link_version,
    authorization: row.authorization_data as PaymentIntent['authorization'],
    settlementRaw: row.settlement_raw as `0x${string}` | null,
    paymentIdentifier: row.payment_identifier,
    txHash: row.tx_hash as `0x${string}` | null,
    logIndex: row.log_index,
    blockNumber: row.block_number,
    blockHash: row.block_hash as `0x${string}` | null,
    blockTime: row.block_time,
    submittedAt: row.submitted_at,
    foundAt: row.found_at,
    holdsOrder: row.holds_invoice,
    overpayment: row.overpayment,
    finishedAt: row.finished_at,
    createdAt: row.created_at,
  };
}

export async function findIntent(
  db: Executor,
  workspaceId: WorkspaceId,
  intentId: PaymentIntentId,
): Promise<PaymentIntent | undefined> {
  const row = await selectIntent(db, workspaceId, intentId).executeTakeFirst();
  return row && toIntent(row);
}

export async function lockIntent(
  db: Executor,
  workspaceId: WorkspaceId,
  intentId: PaymentIntentId,
): Promise<PaymentIntent | undefined> {
  return (await lockIntents(db, workspaceId, [intentId]))[0];
}

/** Locks these payment intents of the workspace, in id order (one statement); those that exist. */
export async function lockIntents(
  db: Executor,
  workspaceId: WorkspaceId,
  intentIds: readonly PaymentIntentId[],
): Promise<PaymentIntent[]> {
  const rows = await db
    .selectFrom('payment_intents')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', intentIds)
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map(toIntent);
}

export async function succeededIntentOf(
  db: Executor,
  workspaceId: WorkspaceId,
  order: OrderRef,
): Promise<PaymentIntent | undefined> {
  const row = await db
    .selectFrom('payment_intents')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where(orderColumn(order), '=', order.id)
    .where('status', '=', 'succeeded')
    .where('overpayment', '=', false)
    .executeTakeFirst();
  return row && toIntent(row);
}

/**
 * The order's most recent payment attempt, whatever its outcome. With `match`: the most recent one named
 * with that payment identifier (whatever became of it), or made with that very signature and still in
 * flight or paid: the same signed payment sent again (after a lost answer, or two copies at once) is that
 * attempt, never a second one.
 */
export async function latestIntentOf(
  db: Executor,
  workspaceId: WorkspaceId,
  order: OrderRef,
  match?: { readonly paymentIdentifier: string } | { readonly signature: string },
): Promise<PaymentIntent | undefined> {
  let query = db
    .selectFrom('payment_intents')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where(orderColumn(order), '=', order.id);
  if (match && 'paymentIdentifier' in match) query = query.where('payment_identifier', '=', match.paymentIdentifier);
  else if (match)
    query = query
      .where(sql<string>`lower(authorization_data->>'signature')`, '=', match.signature.toLowerCase())
      .where('status', 'in', ['processing', 'succeeded']);
  const row = await query.orderBy('created_at', 'desc').limit(1).executeTakeFirst();
  return row && toIntent(row);
}

/** The latest payment attempt of each of these credit purchases that has one. */
export async function latestPurchaseAttempts(
  db: Executor,
  workspaceId: WorkspaceId,
  purchaseIds: readonly string[],
): Promise<PaymentIntent[]> {
  if (purchaseIds.length === 0) return [];
  const rows = await db
    .selectFrom('payment_intents')
    .selectAll()
    .distinctOn('credit_purchase_id')
    .where('workspace_id', '=', workspaceId)
    .where('credit_purchase_id', 'in', [...purchaseIds])
    .orderBy('credit_purchase_id')
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map(toIntent);
}

export function insertIntent(
  db: Executor,
  intent: Omit<
    PaymentIntent,
    | 'createdAt'
    | 'finishedAt'
    | 'failureReason'
    | 'settlementRaw'
    | 'blockNumber'
    | 'blockHash'
    | 'blockTime'
    | 'logIndex'
    | 'overpayment'
    | 'amountReceived'
    | 'paymentIdentifier'
  > & { amountReceived?: bigint; settlementRaw?: `0x${string}` | null; paymentIdentifier?: string | null },
) {
  return db
    .insertInto('payment_intents')
    .values({
      workspace_id: intent.workspaceId,
      id: intent.id,
      invoice_id: intent.order.kind === 'invoice' ? intent.order.id : null,
      credit_purchase_id: intent.order.kind === 'credit_purchase' ? intent.order.id : null,
      method: intent.method,
      status: intent.status,
      network: intent.network,
      amount: intent.amount,
      amount_received: intent.amountReceived ?? null,
      pay_to: intent.payTo,
      payer: intent.payer,
      link_version: intent.linkVersion,
      authorization_data: intent.authorization ? JSON.stringify(intent.authorization) : null,
      settlement_raw: intent.settlementRaw ?? null,
      payment_identifier: intent.paymentIdentifier ?? null,
      tx_hash: intent.txHash,
      submitted_at: intent.submittedAt,
      found_at: intent.foundAt,
      holds_invoice: intent.holdsOrder,
    })
    .execute();
}

export interface IntentChanges {
  readonly status?: PaymentIntent['status'];
  readonly failureReason?: FailureReason;
  readonly settlementRaw?: `0x${string}`;
  readonly payer?: string;
  readonly txHash?: `0x${string}`;
  readonly logIndex?: number;
  readonly blockNumber?: bigint;
  readonly blockHash?: `0x${string}`;
  readonly blockTime?: Date;
  readonly foundAt?: Date;
  readonly holdsOrder?: boolean;
  readonly overpayment?: boolean;
  readonly finishedAt?: Date;
}

export async function updateIntent(
  db: Executor,
  workspaceId: WorkspaceId,
  intentId: PaymentIntentId,
  changes: IntentChanges,
): Promise<PaymentIntent> {
  const row = await db
    .updateTable('payment_intents')
    .set({
      ...(changes.status !== undefined && { status: changes.status }),
      ...(changes.failureReason !== undefined && { failure_reason: changes.failureReason }),
      ...(changes.settlementRaw !== undefined && { settlement_raw: changes.settlementRaw }),
      ...(changes.payer !== undefined && { payer: changes.payer }),
      ...(changes.txHash !== undefined && { tx_hash: changes.txHash }),
      ...(changes.logIndex !== undefined && { log_index: changes.logIndex }),
      ...(changes.blockNumber !== undefined && { block_number: changes.blockNumber }),
      ...(changes.blockHash !== undefined && { block_hash: changes.blockHash }),
      ...(changes.blockTime !== undefined && { block_time: changes.blockTime }),
      ...(changes.foundAt !== undefined && { found_at: changes.foundAt }),
      ...(changes.holdsOrder !== undefined && { holds_invoice: changes.holdsOrder }),
      ...(changes.overpayment !== undefined && { overpayment: changes.overpayment }),
      ...(changes.finishedAt !== undefined && { finished_at: changes.finishedAt }),
      updated_at: new Date(),
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', intentId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toIntent(row);
}

/** Frees the transfer a reverted payment claimed: if it is mined again, it may pay again. */
export async function releaseClaim(
  db: Executor,
  intent: Pick<PaymentIntent, 'id' | 'network' | 'txHash' | 'logIndex'>,
): Promise<void> {
  if (intent.txHash === null || intent.logIndex === null) return;
  await db
    .deleteFrom('payment_claims')
    .where('network', '=', intent.network)
    .where('tx_hash', '=', intent.txHash.toLowerCase())
    .where('log_index', '=', intent.logIndex)
    .where('payment_intent_id', '=', intent.id)
    .execute();
}

/** Claims a transfer for one payment; false when another payment (in any workspace) already has it. */
export async function claimTransfer(
  db: Executor,
  claim: { network: string; txHash: string; logIndex: number; workspaceId: WorkspaceId; intentId: PaymentIntentId },
): Promise<boolean> {
  const result = await db
    .insertInto('payment_claims')
    .values({
      network: claim.network,
      tx_hash: claim.txHash.toLowerCase(),
      log_index: claim.logIndex,
      workspace_id: claim.workspaceId,
      payment_intent_id: claim.intentId,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('payment_intent_id')
    .executeTakeFirst();
  return result !== undefined;
}

/** The log indexes of a transaction's transfers that some payment (in any workspace) already claimed. */
export async function claimedLogIndexes(db: Executor, network: string, txHash: string): Promise<number[]> {
  const rows = await db
    .selectFrom('payment_claims')
    .select('log_index')
    .where('network', '=', network)
    .where('tx_hash', '=', txHash.toLowerCase())
    .execute();
  return rows.map((row) => row.log_index);
}

/**
 * Whether a transfer in this transaction to `payTo` of `amount` already paid something (an invoice or a
 * credit purchase: claims are shared). A transaction
 * may carry transfers to several recipients (a batch payout), so a claim of another one does not count.
 */
export async function transactionPaidAlike(
  db: Executor,
  claim: { network: string; txHash: string; payTo: string; amount: bigint },
): Promise<boolean> {
  const row = await db
    .selectFrom('payment_claims as c')
    .innerJoin('payment_intents as p', (join) =>
      join.onRef('p.workspace_id', '=', 'c.workspace_id').onRef('p.id', '=', 'c.payment_intent_id'),
    )
    .select('c.log_index')
    .where('c.network', '=', claim.network)
    .where('c.tx_hash', '=', claim.txHash.toLowerCase())
    .where('p.pay_to', '=', claim.payTo)
    .where('p.amount', '=', claim.amount)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether the transaction is the relayer's settlement of an authorization (in any workspace). Its hash
 * is stored before it is sent, so it is known here before anyone could see it on-chain.
 */
export async function isSettlementTransaction(db: Executor, network: string, txHash: string): Promise<boolean> {
  const row = await db
    .selectFrom('payment_intents')
    .select('id')
    .where('tx_hash', '=', txHash.toLowerCase())
    .where('network', '=', network)
    .where('method', '=', 'authorization')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Of these transaction hashes (lowercase), those a payment already follows on the network: a submitted
 * hash, a settlement, or the transaction of a claimed transfer. Their transfers are the engine's to judge.
 */
export async function paymentTransactions(
  db: Executor,
  network: string,
  hashes: readonly string[],
): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await db
    .selectFrom('payment_intents')
    .select('tx_hash as hash')
    .where('network', '=', network)
    .where('tx_hash', 'in', [...hashes])
    .union(
      db
        .selectFrom('payment_claims')
        .select('tx_hash as hash')
        .where('network', '=', network)
        .where('tx_hash', 'in', [...hashes]),
    )
    .execute();
  return new Set(rows.map((row) => row.hash!));
}

/** Whether an attempt other than `exceptId` still keeps the order `processing`. */
export async function otherHolderOf(
  db: Executor,
  workspaceId: WorkspaceId,
  order: OrderRef,
  exceptId: PaymentIntentId,
): Promise<boolean> {
  const row = await db
    .selectFrom('payment_intents')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where(orderColumn(order), '=', order.id)
    .where('status', '=', 'processing')
    .where('holds_invoice', '=', true)
    .where('id', '<>', exceptId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The submitted hashes of the order still looked for on chain (claims not found in a block yet). */
export async function unfoundClaimsOf(
  db: Executor,
  workspaceId: WorkspaceId,
  order: OrderRef,
): Promise<{ id: PaymentIntentId; txHash: string; network: string }[]> {
  const rows = await db
    .selectFrom('payment_intents')
    .select(['id', 'tx_hash', 'network'])
    .where('workspace_id', '=', workspaceId)
    .where(orderColumn(order), '=', order.id)
    .where('status', '=', 'processing')
    .where('method', '=', 'transaction')
    .where('found_at', 'is', null)
    .execute();
  return rows.map((row) => ({ id: row.id as PaymentIntentId, txHash: row.tx_hash!, network: row.network }));
}

/**
 * Payment attempts still in flight across all workspaces, and how long the oldest has been (seconds by
 * the database clock; 0 when none), for the operator's /metrics. Reads `payment_intents_processing_idx`,
 * which holds only the attempts in flight.
 */
export async function paymentsInFlight(db: Executor): Promise<{ count: number; oldestSeconds: number }> {
  const row = await db
    .selectFrom('payment_intents')
    .select([
      sql<number>`count(*)::int`.as('count'),
      sql<number>`coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8`.as('oldest_seconds'),
    ])
    .where('status', '=', 'processing')
    .executeTakeFirstOrThrow();
  return { count: row.count, oldestSeconds: row.oldest_seconds };
}

/**
 * Tells the watchers of the order (checkout event streams) that its payment details changed although
 * the order's row did not, whose trigger announces every other change: a submitted hash recorded, or
 * failed before it was ever found. Sent when the transaction commits.
 */
export async function announcePaymentChange(db: Executor, workspaceId: WorkspaceId, order: OrderRef): Promise<void> {
  await sql`SELECT pg_notify(${ORDER_CHANGES_CHANNEL}, ${`${workspaceId} ${order.id}`})`.execute(db);
}
