import type { Db } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { append, appendAll } from '../events/index.js';
import { invoiceEvent } from './invoice.present.js';
import { createInvoice, createInvoices, type CreateInvoiceParams, type CreateOutcome } from './invoice.repo.js';

interface Pending {
  readonly workspaceId: WorkspaceId;
  readonly params: CreateInvoiceParams;
  resolve(outcome: CreateOutcome): void;
  reject(error: unknown): void;
}

/** Enough to keep a batch's transaction short; more waiting requests simply form the next batch. */
const MAX_BATCH = 64;

/**
 * Creates one invoice and records its `invoice.created` event in one transaction. A replay (same
 * Idempotency-Key and body) records nothing: its event was written with the first create.
 */
export function createInvoiceRecorded(db: Db, publicBaseUrl: URL, workspaceId: WorkspaceId, params: CreateInvoiceParams): Promise<CreateOutcome> {
  return db.transaction().execute(async (trx) => {
    const outcome = await createInvoice(trx, workspaceId, params);
    if (outcome.kind === 'created') await append(trx, workspaceId, invoiceEvent('invoice.created', outcome.invoice, publicBaseUrl, outcome.invoice.createdAt));
    return outcome;
  });
}

/**
 * Group commit for invoice creation. While one create transaction runs, the creates that arrive meanwhile
 * wait and then go together: one `create_invoices` call and one statement for the group's `invoice.created`
 * events, in one transaction and one commit. A lone request goes at once, so nothing
 * waits for a batch to fill. Every item keeps its own outcome; only when the whole batch fails (e.g. a
 * deadlock with another process's batch) are its items retried one by one.
 */
export class CreateBatcher {
  private readonly queue: Pending[] = [];
  private running = false;

  constructor(
    private readonly db: Db,
    private readonly publicBaseUrl: URL,
  ) {}

  create(workspaceId: WorkspaceId, params: CreateInvoiceParams): Promise<CreateOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ workspaceId, params, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) await this.run(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.running = false;
    }
  }

  private async run(batch: Pending[]): Promise<void> {
    if (batch.length === 1) return this.runAlone(batch[0]!);
    // One lock order for every batch in every process: by workspace, then idempotency key.
    batch.sort((a, b) => compare(a.workspaceId, b.workspaceId) || compare(a.params.idempotencyKey ?? '', b.params.idempotencyKey ?? ''));
    let results: (CreateOutcome | AppError)[];
    try {
      results = await this.db.transaction().execute(async (trx) => {
        const outcomes = await createInvoices(trx, batch);
        const created = outcomes.flatMap((outcome) => (outcome instanceof AppError || outcome?.kind !== 'created' ? [] : [outcome.invoice]));
        await appendAll(
          trx,
          created.map((invoice) => ({ workspaceId: invoice.workspaceId, ...invoiceEvent('invoice.created', invoice, this.publicBaseUrl, invoice.createdAt) })),
        );
        return outcomes;
      });
    } catch {
      await Promise.all(batch.map((pending) => this.runAlone(pending)));
      return;
    }
    batch.forEach((pending, index) => {
      const result = results[index];
      if (result instanceof AppError) pending.reject(result);
      else if (result) pending.resolve(result);
      else pending.reject(new Error('create_invoices answered no result for an item'));
    });
  }

  private runAlone(pending: Pending): Promise<void> {
    return createInvoiceRecorded(this.db, this.publicBaseUrl, pending.workspaceId, pending.params).then(pending.resolve, pending.reject);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
