import type { Db } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
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
 * Group commit for invoice creation. While one create transaction runs, the creates that arrive meanwhile
 * wait and then go together, in one round trip and one commit (`create_invoices`, each invoice with its
 * `invoice.created` event). A lone request goes at once, so nothing
 * waits for a batch to fill. Every item keeps its own outcome; only when the whole batch fails (e.g. a
 * deadlock with another process's batch) are its items retried one by one.
 */
export class CreateBatcher {
  private readonly queue: Pending[] = [];
  private running = false;

  constructor(private readonly db: Db) {}

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
    batch.sort(
      (a, b) =>
        compare(a.workspaceId, b.workspaceId) || compare(a.params.idempotencyKey ?? '', b.params.idempotencyKey ?? ''),
    );
    let results: (CreateOutcome | AppError)[];
    try {
      results = await createInvoices(this.db, batch);
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
    return createInvoice(this.db, pending.workspaceId, pending.params).then(pending.resolve, pending.reject);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
