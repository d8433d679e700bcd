import type { Db, Executor } from '../../db/database.js';
import type { Pipeline } from '../../db/pipeline.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { creditMovements } from '../billing/index.js';
import { WorkspaceWrites } from '../events/index.js';
import { IDEMPOTENCY_TTL_SECONDS, checkIdempotencyKey, requestHash } from '../idempotency/index.js';
import { findWorkspace } from '../workspaces/index.js';
import {
  EXPIRES_IN_CREDITS,
  invoiceAsRead,
  newInvoiceId,
  transition,
  type ExpiresIn,
  type Invoice,
  type InvoiceAutomation,
  type InvoiceCommand,
  type InvoiceId,
  type InvoiceStatus,
  type Transition,
} from './invoice.js';
import { CreateBatcher } from './invoice.batcher.js';
import {
  checkPayTo,
  validateInvoiceInput,
  type CreateInvoiceInput,
  type InvoiceRules,
  type ValidInvoiceInput,
} from '../invoice-input/index.js';
import { createdEventData, invoiceEvent, type InvoicePresentation } from './invoice.present.js';
import {
  createInvoice,
  dueOpenInvoices,
  findInvoice,
  invoiceNumbers,
  listInvoices,
  lockInvoice,
  markScheduled,
  paidTotalsByDay,
  updateInvoice,
  type CreateInvoiceParams,
} from './invoice.repo.js';

export interface InvoiceServiceDeps {
  readonly db: Db;
  /** Where lists and totals read: a replica within DATABASE_READ_MAX_LAG_MS (src/db/read-replicas.ts); default `db`. */
  readonly reads?: Db;
  /** A pipelined connection to the same database, for creation's group commits (CreateBatcher). */
  readonly pipeline?: Pipeline;
  readonly clock: Clock;
  readonly rules: InvoiceRules;
  readonly successFeeCredits: number;
  /** Invoice events show the invoice as GET /invoices/{id} does. */
  readonly presentation: InvoicePresentation;
}

/**
 * Batch items keep their idempotency keys until their batch binding is evicted (at most 1,000 batches
 * per workspace), not for a time: 50 years stands for "no time-based expiry" in the shared key table.
 */
const BATCH_ITEM_TTL_SECONDS = 50 * 365 * 24 * 3600;

/** What an invoice costs when it is created: its window's credits now, and the success fee held in reserve. */
export interface InvoiceCost {
  readonly creation: number;
  readonly feeReserve: number;
}

/** What a renewal may ask: another window, and `payTo` as POST /invoices takes it (the workspace wallet or nothing). */
export interface RenewRequest {
  readonly expiresIn?: ExpiresIn;
  readonly payTo?: string;
}

/** A command decided inside the transaction, from the locked invoice and what else that transaction reads. */
type CommandOf = (trx: Executor, invoice: Invoice) => Promise<InvoiceCommand>;

export interface CreateOptions {
  readonly idempotencyKey: string | string[] | undefined;
  readonly source: 'api' | 'portal';
}

export class InvoiceService {
  private readonly batcher: CreateBatcher;

  constructor(private readonly deps: InvoiceServiceDeps) {
    this.batcher = new CreateBatcher(deps.db, deps.pipeline);
  }

  /**
   * Creates an invoice, or replays the stored result of an earlier request with the same
   * Idempotency-Key and body. Concurrent duplicates wait for the first and replay its result, so a
   * key yields exactly one invoice, one number and one charge. Refusals create and charge nothing.
   */
  async create(
    workspaceId: WorkspaceId,
    input: CreateInvoiceInput,
    options: CreateOptions,
  ): Promise<{ invoice: Invoice; replayed: boolean }> {
    const idempotencyKey = checkIdempotencyKey(options.idempotencyKey);
    const valid = validateInvoiceInput(input, this.deps.rules);
    const outcome = await this.batcher.create(
      workspaceId,
      this.createParams(workspaceId, valid, {
        idempotencyKey,
        requestHash: requestHash(input),
        idempotencyTtlSeconds: IDEMPOTENCY_TTL_SECONDS,
        source: options.source,
      }),
    );
    if (outcome.kind === 'idempotency_key_reused') {
      throw new AppError(
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request body. Use a new key for a new invoice.',
      );
    }
    return { invoice: this.present(outcome.invoice), replayed: outcome.kind === 'replayed' };
  }

  /** The field rules of POST /invoices that need no database; throws AppError with the field's code. */
  validate(input: CreateInvoiceInput): ValidInvoiceInput {
    return validateInvoiceInput(input, this.deps.rules);
  }

  costOf(valid: ValidInvoiceInput): InvoiceCost {
    return { creation: EXPIRES_IN_CREDITS[valid.expiresIn], feeReserve: this.deps.successFeeCredits };
  }

  /**
   * Creates one item of a batch in its own transaction under the key the batch derives for it: a retry
   * of the batch replays it (same invoice, no second charge), and a refusal leaves the key unused so
   * the retry tries the item again.
   */
  async createBatchItem(
    workspaceId: WorkspaceId,
    valid: ValidInvoiceInput,
    itemKey: string,
    itemHash: Buffer,
  ): Promise<Invoice> {
    const outcome = await createInvoice(
      this.deps.db,
      workspaceId,
      this.createParams(workspaceId, valid, {
        idempotencyKey: itemKey,
        requestHash: itemHash,
        idempotencyTtlSeconds: BATCH_ITEM_TTL_SECONDS,
        source: 'batch',
      }),
    );
    if (outcome.kind === 'idempotency_key_reused') {
      throw new AppError(
        'idempotency_key_reused',
        'This item differs from the item first sent at this position of the batch.',
      );
    }
    return this.present(outcome.invoice);
  }

  /**
   * Creates the invoice of an automation's occurrence inside the caller's transaction (which also
   * records the occurrence and its `invoice.scheduled` event), under the key the automation derives
   * for the occurrence: a second run of the same occurrence replays it instead of creating another.
   */
  async createScheduled(
    trx: Executor,
    workspaceId: WorkspaceId,
    valid: ValidInvoiceInput,
    occurrence: { key: string; requestHash: Buffer; automation: InvoiceAutomation },
  ): Promise<Invoice> {
    const params = this.createParams(
      workspaceId,
      valid,
      {
        idempotencyKey: occurrence.key,
        requestHash: occurrence.requestHash,
        idempotencyTtlSeconds: IDEMPOTENCY_TTL_SECONDS,
        source: 'automation',
      },
      occurrence.automation,
    );
    const outcome = await createInvoice(trx, workspaceId, params);
    if (outcome.kind === 'idempotency_key_reused')
      throw new Error(`the key of occurrence ${occurrence.key} was used for another invoice`);
    await markScheduled(trx, workspaceId, outcome.invoice.id, occurrence.automation);
    return this.present({ ...outcome.invoice, automation: occurrence.automation });
  }

  /** The numbers (`INV-000012`) of those of `invoiceIds` the workspace has, by id: how people name invoices. */
  numbers(workspaceId: WorkspaceId, invoiceIds: readonly string[]): Promise<Map<string, string>> {
    return invoiceNumbers(this.deps.db, workspaceId, invoiceIds);
  }

  async get(workspaceId: WorkspaceId, invoiceId: InvoiceId): Promise<Invoice> {
    const invoice = await findInvoice(this.deps.db, workspaceId, invoiceId);
    if (!invoice) throw notFound();
    return this.present(invoice);
  }

  /**
   * A page of the workspace's invoices, newest first, optionally of one status as readers see it and
   * of one automation.
   * `nextBefore` is the number to pass as `before` for the next page; null when there is none.
   */
  async list(
    workspaceId: WorkspaceId,
    query: {
      limit: number;
      status?: InvoiceStatus;
      automationId?: string;
      before?: bigint;
      createdFrom?: Date;
      createdUntil?: Date;
    },
  ): Promise<{ invoices: Invoice[]; nextBefore: bigint | null }> {
    // One row beyond the page tells whether another page exists.
    const rows = await listInvoices(this.deps.reads ?? this.deps.db, workspaceId, {
      ...query,
      limit: query.limit + 1,
      now: this.deps.clock.now(),
    });
    const page = rows.slice(0, query.limit);
    return {
      invoices: page.map((invoice) => this.present(invoice)),
      nextBefore: rows.length > query.limit ? (page.at(-1)?.number ?? null) : null,
    };
  }

  /** Paid invoices per UTC day from `from` on: `{day: "YYYY-MM-DD", amount (micro-USDC), count}`, days without payments left out. */
  async paidPerDay(workspaceId: WorkspaceId, from: Date): Promise<{ day: string; amount: bigint; count: number }[]> {
    return (await paidTotalsByDay(this.deps.reads ?? this.deps.db, workspaceId, from)).map((row) => ({
      day: row.day,
      amount: BigInt(row.amount),
      count: row.count,
    }));
  }

  cancel(workspaceId: WorkspaceId, invoiceId: InvoiceId): Promise<Invoice> {
    return this.apply(workspaceId, invoiceId, { type: 'cancel' });
  }

  /**
   * A new deadline and link version, paying the workspace wallet as it is now: refused (nothing charged)
   * for an invoice issued for another receiving address, and for a `payTo` other than the wallet.
   */
  renew(workspaceId: WorkspaceId, invoiceId: InvoiceId, request: RenewRequest): Promise<Invoice> {
    return this.apply(workspaceId, invoiceId, async (trx, invoice) => {
      const workspace = await findWorkspace(trx, workspaceId);
      if (!workspace) throw notFound();
      checkPayTo(request.payTo, workspace.wallet_address);
      return {
        type: 'renew',
        // Renewal keeps the invoice's window unless another is asked for.
        expiresIn: request.expiresIn ?? invoice.expiresIn,
        successFee: BigInt(this.deps.successFeeCredits),
        wallet: workspace.wallet_address,
      };
    });
  }

  /**
   * Records expiry of open invoices past their deadline, releasing their success-fee reserve.
   * Idempotent; returns how many it expired.
   */
  async expireDue(limit = 500): Promise<number> {
    const now = this.deps.clock.now();
    const due = await dueOpenInvoices(this.deps.db, now, limit);
    let expired = 0;
    for (const row of due) {
      const result = await this.transact(row.workspace_id as WorkspaceId, row.id as InvoiceId, { type: 'expire' }, now);
      if (result?.status === 'expired') expired++;
    }
    return expired;
  }

  private async apply(
    workspaceId: WorkspaceId,
    invoiceId: InvoiceId,
    command: InvoiceCommand | CommandOf,
  ): Promise<Invoice> {
    const now = this.deps.clock.now();
    const invoice = await this.transact(workspaceId, invoiceId, command, now);
    if (!invoice) throw notFound();
    return this.present(invoice);
  }

  /**
   * One transaction: lock the invoice, ask the state machine, then persist the change, the credit
   * movement and the change-feed event together. Resolves undefined when there is no such invoice or
   * the command is a no-op (expiring what is not due). A command given as a function is decided once
   * the invoice is locked.
   */
  private transact(workspaceId: WorkspaceId, invoiceId: InvoiceId, commandOf: InvoiceCommand | CommandOf, now: Date) {
    return this.deps.db.transaction().execute(async (trx) => {
      const invoice = await lockInvoice(trx, workspaceId, invoiceId);
      if (!invoice) return undefined;
      const command = typeof commandOf === 'function' ? await commandOf(trx, invoice) : commandOf;
      const result = transition(invoice, command, now);
      if (!result.ok) {
        // A repeated cancel answers the cancelled invoice; expiring what is not due does nothing.
        if (result.code === 'noop') return command.type === 'cancel' ? invoice : undefined;
        throw new AppError(result.code, REFUSAL_MESSAGES[result.code]);
      }
      return persistTransition(trx, invoice, result, now, this.deps.presentation);
    });
  }

  /**
   * Everything create_invoice_group needs for one item, with the `invoice.created` event rendered here (the
   * invoices module owns the API shape): the database fills in the number and the receiving wallet when it
   * assigns them.
   */
  private createParams(
    workspaceId: WorkspaceId,
    valid: ValidInvoiceInput,
    key: Pick<CreateInvoiceParams, 'idempotencyKey' | 'requestHash' | 'idempotencyTtlSeconds' | 'source'>,
    automation: InvoiceAutomation | null = null,
  ): CreateInvoiceParams {
    const cost = this.costOf(valid);
    // Object.assign, not a literal that spreads: V8 (Node 20) builds `{ ...valid, id }` in a slow path,
    // about 10 µs of every create, where this takes under 2 (docs/performance.md, "Invoice creation").
    const params = Object.assign({ id: newInvoiceId(), now: this.deps.clock.now() }, valid, key, {
      cost: BigInt(cost.creation),
      fee: BigInt(cost.feeReserve),
    });
    const createdEvent = createdEventData(workspaceId, params, this.deps.presentation, automation);
    return Object.assign(params, { createdEvent });
  }

  /** Readers never see an open invoice past its deadline: it reads as expired at its deadline. */
  private present(invoice: Invoice): Invoice {
    return invoiceAsRead(invoice, this.deps.clock.now());
  }
}

const REFUSAL_MESSAGES = {
  invoice_expired: 'This invoice has expired; renew it for a new payment link.',
  invoice_already_paid: 'This invoice is paid; it can be neither cancelled nor renewed.',
  invoice_cancelled: 'This invoice is cancelled; create a new invoice instead.',
  invoice_processing: 'A payment for this invoice is being verified; wait for it to finish.',
  invoice_recipient_changed:
    'This invoice was issued for another receiving address; it can no longer be paid or renewed. Cancel it and create a new invoice.',
} as const;

function notFound(): AppError {
  return new AppError('not_found', 'No such invoice in this workspace.');
}

/**
 * Writes an allowed transition inside the caller's transaction (which holds the invoice row lock): the
 * invoice change, its change-feed event, then the credit movement. Lock order invoice → workspace
 * (event counter) → credit account, the same order as create_invoice_group, so concurrent writers
 * cannot deadlock. Throws insufficient_credits (rolling back the caller's transaction) when credits do not cover it.
 *
 * Given `writes`, the event and the credit movement join the caller's, written at the end of its
 * transaction (WorkspaceWrites); otherwise they are written here.
 */
export async function persistTransition(
  trx: Executor,
  invoice: Invoice,
  result: Extract<Transition, { ok: true }>,
  now: Date,
  presentation: InvoicePresentation,
  writes?: WorkspaceWrites,
): Promise<Invoice> {
  const late = writes ?? new WorkspaceWrites();
  const updated = await updateInvoice(trx, invoice.workspaceId, invoice.id, result.changes, now);
  late.append(invoice.workspaceId, invoiceEvent(result.event, updated, presentation, now));
  if (result.charge !== 0n || result.reserveChange !== 0n) {
    late.then(creditMovements, invoice.workspaceId, {
      kind: result.event,
      charge: result.charge,
      reserveChange: result.reserveChange,
      reference: invoice.id,
    });
  }
  if (!writes) await late.write(trx);
  return updated;
}
