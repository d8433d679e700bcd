import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { CreditPurchase, CreditPurchaseId, PurchaseStatus } from './credit-purchase.js';

/** A purchase row as stored, from a query (Date, bigint) or from jsonb (strings, numbers). */
type StoredPurchase = Record<string, unknown>;

export function toPurchase(row: StoredPurchase): CreditPurchase {
  const date = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string | Date));
  return {
    workspaceId: row.workspace_id as WorkspaceId,
    id: row.id as CreditPurchaseId,
    packageId: row.package_id as string,
    credits: Number(row.credits),
    price: BigInt(row.price as bigint | string),
    status: row.status as PurchaseStatus,
    payTo: row.pay_to as string,
    network: (row.network as string | null) ?? null,
    expiresAt: date(row.expires_at)!,
    createdAt: date(row.created_at)!,
    paidAt: date(row.paid_at),
    source: row.source as 'api' | 'portal',
  };
}

/** The row as jsonb keeps it (the stored response of an Idempotency-Key): bigints as strings, times as ISO. */
export function toStored(purchase: CreditPurchase): StoredPurchase {
  return {
    workspace_id: purchase.workspaceId,
    id: purchase.id,
    package_id: purchase.packageId,
    credits: String(purchase.credits),
    price: purchase.price.toString(),
    status: purchase.status,
    pay_to: purchase.payTo,
    network: purchase.network,
    expires_at: purchase.expiresAt.toISOString(),
    created_at: purchase.createdAt.toISOString(),
    paid_at: purchase.paidAt?.toISOString() ?? null,
    source: purchase.source,
  };
}

export async function insertPurchase(db: Executor, purchase: CreditPurchase): Promise<CreditPurchase> {
  const row = await db
    .insertInto('credit_purchases')
    .values({
      workspace_id: purchase.workspaceId,
      id: purchase.id,
      package_id: purchase.packageId,
      credits: BigInt(purchase.credits),
      price: purchase.price,
      status: purchase.status,
      pay_to: purchase.payTo,
      network: purchase.network,
      expires_at: purchase.expiresAt,
      created_at: purchase.createdAt,
      paid_at: purchase.paidAt,
      source: purchase.source,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toPurchase(row as unknown as StoredPurchase);
}

export async function findPurchase(
  db: Executor,
  workspaceId: WorkspaceId,
  purchaseId: CreditPurchaseId,
  lock = false,
): Promise<CreditPurchase | undefined> {
  const row = await db
    .selectFrom('credit_purchases')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', purchaseId)
    .$if(lock, (q) => q.forUpdate())
    .executeTakeFirst();
  return row && toPurchase(row as unknown as StoredPurchase);
}

/** Newest first; only those older than `before` (the previous page's last) when given. */
export async function listPurchases(
  db: Executor,
  workspaceId: WorkspaceId,
  page: { limit: number; before: { createdAt: Date; id: CreditPurchaseId } | null },
): Promise<CreditPurchase[]> {
  const { before } = page;
  const rows = await db
    .selectFrom('credit_purchases')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .$if(before !== null, (q) =>
      q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(before!.createdAt, before!.id))),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map((row) => toPurchase(row as unknown as StoredPurchase));
}

export async function updatePurchase(
  db: Executor,
  purchase: CreditPurchase,
  changes: Partial<Pick<CreditPurchase, 'status' | 'network' | 'paidAt'>>,
): Promise<CreditPurchase> {
  const row = await db
    .updateTable('credit_purchases')
    .set({
      ...(changes.status !== undefined && { status: changes.status }),
      ...(changes.network !== undefined && { network: changes.network }),
      ...(changes.paidAt !== undefined && { paid_at: changes.paidAt }),
    })
    .where('workspace_id', '=', purchase.workspaceId)
    .where('id', '=', purchase.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toPurchase(row as unknown as StoredPurchase);
}
