import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { Pipeline } from '../../db/pipeline.js';
import { AppError, type ErrorCode } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { InvoiceEventData } from '../events/index.js';
import {
  formatInvoiceNumber,
  openedInvoice,
  type Invoice,
  type InvoiceChanges,
  type InvoiceDraft,
  type InvoiceId,
  type ExpiresIn,
  type InvoiceStatus,
} from './invoice.js';

/** An invoice row as stored, from a query (Date, bigint) or from jsonb (strings, numbers). */
type StoredInvoice = Record<string, unknown>;

export function toInvoice(row: StoredInvoice): Invoice {
  const date = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string | Date));
  return {
    workspaceId: row.workspace_id as WorkspaceId,
    id: row.id as InvoiceId,
    number: BigInt(row.number as bigint | number),
    status: row.status as InvoiceStatus,
    amount: BigInt(row.amount as bigint | number),
    currency: 'USDC',
    network: (row.network as string | null) ?? null,
    expiresIn: Number(row.expires_in) as ExpiresIn,
    expiresAt: date(row.expires_at)!,
    linkVersion: Number(row.link_version),
    externalId: (row.external_id as string | null) ?? null,
    description: (row.description as string | null) ?? null,
    successUrl: (row.success_url as string | null) ?? null,
    cancelUrl: (row.cancel_url as string | null) ?? null,
    payTo: row.pay_to as string,
    feeReserved: BigInt(row.fee_reserved as bigint | number),
    createdAt: date(row.created_at)!,
    updatedAt: date(row.updated_at)!,
    paidAt: date(row.paid_at),
    expiredAt: date(row.expired_at),
    cancelledAt: date(row.cancelled_at),
    automation:
      row.automation_id === null || row.automation_id === undefined
        ? null
        : { id: row.automation_id as string, occurrence: Number(row.occurrence) },
  };
}

export interface CreateInvoiceParams extends InvoiceDraft {
  readonly idempotencyKey: string;
  readonly requestHash: Buffer;
  readonly idempotencyTtlSeconds: number;
  readonly urlOrigins: readonly string[];
  readonly payTo: string | null;
  readonly cost: bigint;
  readonly source: 'api' | 'portal' | 'batch' | 'automation';
  /** The data of its `invoice.created` event, but for the number and wallet the database decides. */
  readonly createdEvent: InvoiceEventData;
}

export type CreateOutcome =
  /** `eventId`: the id of its `invoice.created` event (null only from a function older than migration 0014). */
  | { kind: 'created'; invoice: Invoice; eventId: bigint | null }
  | { kind: 'replayed'; invoice: Invoice }
  | { kind: 'idempotency_key_reused' };

const REFUSALS: Record<string, [ErrorCode, string]> = {
  not_found: ['not_found', 'No such workspace.'],
  pay_to_mismatch: [
    'pay_to_mismatch',
    'payTo differs from the workspace wallet. Omit payTo: invoices always pay the workspace wallet.',
  ],
  return_origin_not_allowed: [
    'return_origin_not_allowed',
    'is not an allowed checkout return origin (PUT /checkout-settings)',
  ],
  insufficient_credits: [
    'insufficient_credits',
    'Not enough available credits for this invoice (creation cost plus the success-fee reserve). See GET /billing.',
  ],
};

/** One create alone (a group of one): its outcome, or its refusal thrown as an AppError. */
export async function createInvoice(
  db: Executor,
  workspaceId: WorkspaceId,
  params: CreateInvoiceParams,
): Promise<CreateOutcome> {
  const [result] = await createInvoices(db, [createItem(workspaceId, params)]);
  if (result instanceof AppError) throw result;
  return result!;
}

/** Records which automation and occurrence created the invoice (in the transaction that created it). */
export async function markScheduled(
  db: Executor,
  workspaceId: WorkspaceId,
  invoiceId: InvoiceId,
  automation: { id: string; occurrence: number },
): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ automation_id: automation.id, occurrence: automation.occurrence })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', invoiceId)
    .execute();
}

interface GroupRow {
  readonly idx: number;
  readonly outcome: string;
  readonly error_code: string | null;
  readonly error_detail: string | null;
  readonly number: bigint | null;
  readonly pay_to: string | null;
  readonly invoice: StoredInvoice | null;
  readonly event_id: bigint | null;
}

const CREATE_GROUP = 'SELECT * FROM create_invoice_group($1::json)';

/** One create of a group, with its part of the group's payload rendered as it is made. */
export interface CreateItem {
  readonly workspaceId: WorkspaceId;
  readonly params: CreateInvoiceParams;
  /** The item as create_invoice_group reads it: JSON of the SQL type invoice_group_item's sent fields. */
  readonly payload: string;
}

/**
 * Renders the item when the request is made, so that a group's serial path only joins its items' JSON
 * into an array. The event's invoice goes without its number and wallet, which the database adds once
 * it has decided them.
 */
export function createItem(workspaceId: WorkspaceId, params: CreateInvoiceParams): CreateItem {
  const { number: _number, payTo: _payTo, ...eventInvoice } = params.createdEvent.invoice;
  const payload = JSON.stringify({
    workspace_id: workspaceId,
    idempotency_key: params.idempotencyKey,
    // bytea's hex input form.
    request_hash: `\\x${params.requestHash.toString('hex')}`,
    key_expires_at: new Date(params.now.getTime() + params.idempotencyTtlSeconds * 1000).toISOString(),
    id: params.id,
    amount: params.amount.toString(),
    network: params.network,
    expires_in: params.expiresIn,
    created_at: params.now.toISOString(),
    external_id: params.externalId,
    description: params.description,
    success_url: params.successUrl,
    cancel_url: params.cancelUrl,
    url_origins: params.urlOrigins,
    asked_pay_to: params.payTo,
    cost: params.cost.toString(),
    fee: params.fee.toString(),
    source: params.source,
    event_invoice: eventInvoice,
  });
  return { workspaceId, params, payload };
}

/**
 * Many creates in one round trip (`create_invoice_group`), each with its event. Each item resolves to its
 * outcome or its refusal (an AppError), in the order given; only a database failure rejects the whole batch.
 */
export async function createInvoices(
  target: Executor | Pipeline,
  items: readonly CreateItem[],
): Promise<(CreateOutcome | AppError)[]> {
  // A JSON array of the items' JSON, each rendered whole by createItem.
  const payload = `[${items.map((item) => item.payload).join(',')}]`;
  const rows =
    target instanceof Pipeline
      ? await target.query<GroupRow>(CREATE_GROUP, [payload])
      : (await sql<GroupRow>`SELECT * FROM create_invoice_group(${payload}::json)`.execute(target)).rows;
  const results: (CreateOutcome | AppError)[] = new Array(items.length);
  for (const row of rows) results[row.idx] = groupOutcome(row, items[row.idx]!);
  return results;
}

function groupOutcome(row: GroupRow, { workspaceId, params }: CreateItem): CreateOutcome | AppError {
  switch (row.outcome) {
    case 'created':
      return {
        kind: 'created',
        invoice: openedInvoice(workspaceId, params, { number: row.number!, payTo: row.pay_to! }),
        eventId: row.event_id,
      };
    case 'replayed':
      return { kind: 'replayed', invoice: toInvoice(row.invoice!) };
    case 'idempotency_key_reused':
      return { kind: 'idempotency_key_reused' };
    default:
      return refusal(row.error_code ?? '', row.error_detail ?? undefined);
  }
}

function refusal(code: string, detail: string | undefined): AppError {
  const known = REFUSALS[code];
  if (!known) return new AppError('internal_error', 'The invoice could not be created.');
  return new AppError(known[0], detail ? `${detail} ${known[1]}.` : known[1]);
}

function selectInvoice(db: Executor, workspaceId: WorkspaceId, invoiceId: InvoiceId) {
  return db.selectFrom('invoices').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', invoiceId);
}

export async function findInvoice(
  db: Executor,
  workspaceId: WorkspaceId,
  invoiceId: InvoiceId,
): Promise<Invoice | undefined> {
  const row = await selectInvoice(db, workspaceId, invoiceId).executeTakeFirst();
  return row && toInvoice(row as unknown as StoredInvoice);
}

/** The numbers of those of `invoiceIds` the workspace has, formatted (`INV-000012`), by id. */
export async function invoiceNumbers(
  db: Executor,
  workspaceId: WorkspaceId,
  invoiceIds: readonly string[],
): Promise<Map<string, string>> {
  if (invoiceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('invoices')
    .select(['id', 'number'])
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', invoiceIds as InvoiceId[])
    .execute();
  return new Map(rows.map((row) => [row.id, formatInvoiceNumber(row.number)]));
}

export async function lockInvoice(
  db: Executor,
  workspaceId: WorkspaceId,
  invoiceId: InvoiceId,
): Promise<Invoice | undefined> {
  return (await lockInvoices(db, workspaceId, [invoiceId]))[0];
}

/** Locks these invoices of the workspace, in id order (one statement); those that exist, as locked. */
export async function lockInvoices(
  db: Executor,
  workspaceId: WorkspaceId,
  invoiceIds: readonly InvoiceId[],
): Promise<Invoice[]> {
  const rows = await db
    .selectFrom('invoices')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', invoiceIds)
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((row) => toInvoice(row as unknown as StoredInvoice));
}

export type { InvoiceChanges };

export async function updateInvoice(
  db: Executor,
  workspaceId: WorkspaceId,
  invoiceId: InvoiceId,
  changes: InvoiceChanges,
  now: Date,
): Promise<Invoice> {
  const row = await db
    .updateTable('invoices')
    .set({
      ...(changes.status !== undefined && { status: changes.status }),
      ...(changes.expiresIn !== undefined && { expires_in: changes.expiresIn }),
      ...(changes.expiresAt !== undefined && { expires_at: changes.expiresAt }),
      ...(changes.linkVersion !== undefined && { link_version: changes.linkVersion }),
      ...(changes.feeReserved !== undefined && { fee_reserved: changes.feeReserved }),
      ...(changes.expiredAt !== undefined && { expired_at: changes.expiredAt }),
      ...(changes.cancelledAt !== undefined && { cancelled_at: changes.cancelledAt }),
      ...(changes.paidAt !== undefined && { paid_at: changes.paidAt }),
      ...(changes.network !== undefined && { network: changes.network }),
      updated_at: now,
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', invoiceId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toInvoice(row as unknown as StoredInvoice);
}

/** Open invoices whose deadline has passed, oldest deadline first. */
export function dueOpenInvoices(db: Executor, now: Date, limit: number) {
  return db
    .selectFrom('invoices')
    .select(['workspace_id', 'id'])
    .where('status', '=', 'open')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

export async function nextOpenDeadline(db: Executor): Promise<Date | null> {
  const row = await db
    .selectFrom('invoices')
    .select(sql<Date | null>`min(expires_at)`.as('next'))
    .where('status', '=', 'open')
    .executeTakeFirst();
  return row?.next ?? null;
}

export interface InvoiceListFilter {
  readonly limit: number;
  /** As readers see it: an open invoice past its deadline counts as expired, not open. */
  readonly status?: InvoiceStatus;
  /** Only the invoices this automation created. */
  readonly automationId?: string;
  /** Only numbers below this one (the previous page's last), for paging newest first. */
  readonly before?: bigint;
  /** Created at or after this instant. */
  readonly createdFrom?: Date;
  /** Created before this instant. */
  readonly createdUntil?: Date;
  readonly now: Date;
}

export function listInvoices(db: Executor, workspaceId: WorkspaceId, filter: InvoiceListFilter) {
  const { status, now } = filter;
  return (
    db
      .selectFrom('invoices')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .$if(filter.before !== undefined, (q) => q.where('number', '<', filter.before!))
      .$if(filter.automationId !== undefined, (q) => q.where('automation_id', '=', filter.automationId!))
      .$if(filter.createdFrom !== undefined, (q) => q.where('created_at', '>=', filter.createdFrom!))
      .$if(filter.createdUntil !== undefined, (q) => q.where('created_at', '<', filter.createdUntil!))
      .$if(status !== undefined, (q) => q.where(hasStatus('invoices', status!, now)))
      // Numbers follow creation order, and (workspace_id, number) is already a unique index: a filtered
      // page walks it backwards and stops at `limit` matches.
      .orderBy('number', 'desc')
      .limit(filter.limit)
      .execute()
      .then((rows) => rows.map((row) => toInvoice(row as unknown as StoredInvoice)))
  );
}

/** An invoice of `table` has this status as readers see it: an open one past its deadline is expired. */
export function hasStatus(table: 'invoices' | 'i', status: InvoiceStatus, now: Date) {
  const current = sql.ref(`${table}.status`);
  const expiresAt = sql.ref(`${table}.expires_at`);
  if (status === 'open') return sql<boolean>`${current} = 'open' AND ${expiresAt} > ${now}`;
  if (status === 'expired')
    return sql<boolean>`(${current} = 'expired' OR (${current} = 'open' AND ${expiresAt} <= ${now}))`;
  return sql<boolean>`${current} = ${status}`;
}

/** Paid invoices per UTC day since `from`: the day (YYYY-MM-DD), the sum of amounts, the count. */
export function paidTotalsByDay(db: Executor, workspaceId: WorkspaceId, from: Date) {
  return db
    .selectFrom('invoices')
    .select([
      sql<string>`to_char(paid_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('day'),
      sql<string>`sum(amount)::text`.as('amount'),
      sql<number>`count(*)::int`.as('count'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('paid_at', '>=', from)
    .groupBy(sql`1`)
    .execute();
}
