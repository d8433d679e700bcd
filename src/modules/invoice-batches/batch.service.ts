import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { findUnstorable } from '../../shared/storable-json.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { findAccount } from '../billing/index.js';
import { checkIdempotencyKey, requestHash } from '../idempotency/index.js';
import { type ValidInvoiceInput } from '../invoices/index.js';
import type { Invoice } from '../invoices/index.js';
import { IDEMPOTENCY_TTL_SECONDS } from '../idempotency/index.js';
import { type InvoiceCost, type InvoiceService } from '../invoices/index.js';
import { RETAINED_BATCHES, itemError, itemKey, parseBatchItem, type ItemError } from './batch.js';
import { bindBatch } from './batch.repo.js';

export interface InvoiceBatchDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly invoices: InvoiceService;
}

type CheckedItem =
  | { readonly ok: true; readonly valid: ValidInvoiceInput; readonly cost: InvoiceCost }
  | { readonly ok: false; readonly error: ItemError };

/** An item sits two levels into the body (body, items, item): it is held to the body's depth limit. */
const ITEM_DEPTH = 2;

export type BatchResult = { readonly invoice: Invoice } | { readonly error: ItemError };

/** POST /invoice-batches and its quote: up to 25 invoices, each created (or refused) on its own. */
export class InvoiceBatchService {
  constructor(private readonly deps: InvoiceBatchDeps) {}

  /** What the batch would create and cost, item by item, against the credits available now. Creates nothing. */
  async quote(workspaceId: WorkspaceId, items: readonly unknown[]) {
    const [workspace, account] = await Promise.all([
      this.deps.db
        .selectFrom('workspaces')
        .select(['wallet_address', 'return_origins'])
        .where('id', '=', workspaceId)
        .executeTakeFirst(),
      findAccount(this.deps.db, workspaceId),
    ]);
    if (!workspace || !account) throw new AppError('not_found', 'No such workspace.');
    const checked = items.map((raw, index) => this.check(raw, index, workspace));
    const total = totalCost(checked);
    const available = Number(account.balance - account.reserved);
    return {
      items: checked.map((item) =>
        item.ok
          ? { valid: true, credits: { ...item.cost, total: item.cost.creation + item.cost.feeReserve } }
          : { valid: false, error: item.error },
      ),
      totalCredits: total,
      availableCredits: available,
      covered: total.total <= available,
    };
  }

  /**
   * Creates the batch's valid items one by one, each in its own transaction, and answers one result per
   * item in order. The same key and body again resumes: created items replay (same invoice, no second
   * charge), refused ones are tried again. Refused whole, before anything is created, when the valid
   * items cost more than `budgetCredits`, or the key was used for another batch.
   */
  async create(
    workspaceId: WorkspaceId,
    rawKey: string | string[] | undefined,
    body: { items: readonly unknown[]; budgetCredits: number },
  ) {
    const batchKey = checkIdempotencyKey(rawKey);
    const checked = body.items.map((raw, index) => this.check(raw, index));
    const total = totalCost(checked);
    if (total.total > body.budgetCredits) {
      throw new AppError(
        'budget_exceeded',
        `The valid items cost ${total.total} credits (creation plus success-fee reserve), above budgetCredits ${body.budgetCredits}. Nothing was created.`,
        {
          fields: { totalCredits: total },
        },
      );
    }
    const binding = await this.deps.db.transaction().execute((trx) =>
      bindBatch(trx, workspaceId, {
        key: batchKey,
        requestHash: requestHash(body),
        itemCount: body.items.length,
        at: this.deps.clock.now(),
        retained: RETAINED_BATCHES,
        evictedKeyLifetimeSeconds: IDEMPOTENCY_TTL_SECONDS,
      }),
    );
    if (binding === 'reused')
      throw new AppError(
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different batch. Use a new key for a new batch.',
      );
    if (binding === 'evicted') {
      throw new AppError(
        'batch_binding_evicted',
        `This batch key is older than the ${RETAINED_BATCHES} most recent batches, so its results are no longer kept and it cannot be resumed. ` +
          'Find its invoices with GET /invoice-search?q=<externalId> before creating them again.',
      );
    }
    const results: BatchResult[] = [];
    for (const [index, item] of checked.entries()) {
      if (!item.ok) {
        results.push({ error: item.error });
        continue;
      }
      try {
        results.push({
          invoice: await this.deps.invoices.createBatchItem(
            workspaceId,
            item.valid,
            itemKey(batchKey, index),
            requestHash(body.items[index]),
          ),
        });
      } catch (error) {
        results.push({ error: itemError(error) });
      }
    }
    return { results };
  }

  /**
   * The rules of POST /invoices for one item; with the workspace, also its wallet and return origins.
   * First what the input guard refuses on every other route (it leaves batch items to this check): so an
   * item with NUL never reaches a query, and a deeply nested one never reaches recursive validation.
   */
  private check(
    raw: unknown,
    index: number,
    workspace?: { wallet_address: string; return_origins: string[] },
  ): CheckedItem {
    try {
      const unstorable = findUnstorable(raw, { path: `items[${index}]`, depth: ITEM_DEPTH });
      if (unstorable) throw unstorable;
      const valid = this.deps.invoices.validate(parseBatchItem(raw));
      if (workspace && valid.payTo !== null && valid.payTo !== workspace.wallet_address) {
        throw new AppError(
          'pay_to_mismatch',
          'payTo differs from the workspace wallet. Omit payTo: invoices always pay the workspace wallet.',
        );
      }
      const origin = workspace && valid.urlOrigins.find((candidate) => !workspace.return_origins.includes(candidate));
      if (origin)
        throw new AppError(
          'return_origin_not_allowed',
          `${origin} is not an allowed checkout return origin (PUT /checkout-settings).`,
        );
      return { ok: true, valid, cost: this.deps.invoices.costOf(valid) };
    } catch (error) {
      return { ok: false, error: itemError(error) };
    }
  }
}

function totalCost(items: readonly CheckedItem[]) {
  let creation = 0;
  let feeReserve = 0;
  for (const item of items) {
    if (!item.ok) continue;
    creation += item.cost.creation;
    feeReserve += item.cost.feeReserve;
  }
  return { creation, feeReserve, total: creation + feeReserve };
}
