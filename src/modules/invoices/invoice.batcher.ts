import type { Db } from '../../db/database.js';
import type { Pipeline } from '../../db/pipeline.js';
import { Batcher } from '../../shared/batcher.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { recentEventsOf } from '../events/index.js';
import { createdEvent } from './invoice.present.js';
import {
  createInvoices,
  createItem,
  type CreateInvoiceParams,
  type CreateItem,
  type CreateOutcome,
} from './invoice.repo.js';

/** Each item's own outcome: one refused item does not fail the others of its batch. */
type Settled = { readonly outcome: CreateOutcome } | { readonly error: unknown };

/** Enough to keep a batch's transaction short; more waiting requests simply form the next batch. */
const MAX_BATCH = 64;
/**
 * On a pipeline, a second group is written while the first runs once this many creates wait, so that
 * the database starts it the moment the first commits; fewer wait for the first to end and join the next.
 * Too few make small groups, each paying a group's fixed cost; too many leave the database idle between
 * groups. Of 5, 8, 14, 20 and 28 under the bench's 32 connections, 14 created the most (docs/performance.md).
 */
const SECOND_GROUP_AT = 14;

/**
 * Group commit for invoice creation. While one create transaction runs, the creates that arrive meanwhile
 * wait and then go together, in one round trip and one commit (`create_invoice_group`, each invoice with its
 * `invoice.created` event). A lone request goes at once, so nothing waits for a batch to fill (`Batcher`).
 * Every item keeps its own outcome; only when the whole batch fails (e.g. a deadlock with another
 * process's batch) are its items retried one by one.
 */
export class CreateBatcher {
  private readonly batcher: Batcher<CreateItem, Settled>;

  /** Groups go through `pipeline` when there is one: see SECOND_GROUP_AT. Else one at a time on the pool. */
  constructor(
    private readonly db: Db,
    private readonly pipeline?: Pipeline,
  ) {
    this.batcher = new Batcher(
      (items) => this.run(items),
      pipeline ? { maxBatch: MAX_BATCH, concurrency: 2, minBatchWhileBusy: SECOND_GROUP_AT } : { maxBatch: MAX_BATCH },
    );
  }

  async create(workspaceId: WorkspaceId, params: CreateInvoiceParams): Promise<CreateOutcome> {
    const settled = await this.batcher.submit(createItem(workspaceId, params));
    if ('error' in settled) throw settled.error;
    return settled.outcome;
  }

  private async run(items: CreateItem[]): Promise<Settled[]> {
    // A key sent twice at once: the second goes after the group, when it replays what the first created.
    const seen = new Set<string>();
    const repeats = new Set<number>();
    items.forEach(({ workspaceId, params: { idempotencyKey } }, index) => {
      const key = `${workspaceId}/${idempotencyKey}`;
      if (seen.has(key)) repeats.add(index);
      else seen.add(key);
    });
    const settled = await this.runGroup(items.filter((_, index) => !repeats.has(index)));
    const all: Settled[] = [];
    for (const [index, item] of items.entries())
      all.push(repeats.has(index) ? await this.runAlone(item) : settled.shift()!);
    return all;
  }

  private async runGroup(items: CreateItem[]): Promise<Settled[]> {
    // create_invoice_group takes its locks in one order (workspaces by id, then keys), whatever the
    // items' order: numbers within a workspace follow the requests' arrival.
    let results: Awaited<ReturnType<typeof createInvoices>>;
    try {
      results = await createInvoices(this.pipeline ?? this.db, items);
    } catch {
      return Promise.all(items.map((item) => this.runAlone(item)));
    }
    this.remember(items, results);
    return items.map((_, index) => settle(results[index]));
  }

  /** The events of the invoices a group created, for the change feed's readers: the group has committed. */
  private remember(items: readonly CreateItem[], results: readonly (CreateOutcome | AppError | undefined)[]): void {
    const recent = recentEventsOf(this.db);
    results.forEach((result, index) => {
      if (!recent || result instanceof AppError || result?.kind !== 'created' || result.eventId === null) return;
      const { workspaceId, params } = items[index]!;
      recent.remember(
        [{ ...createdEvent(params.createdEvent, result.invoice, params.now), workspaceId }],
        [result.eventId],
      );
    });
  }

  private runAlone(item: CreateItem): Promise<Settled> {
    return createInvoices(this.db, [item]).then(
      (results) => {
        this.remember([item], results);
        return settle(results[0]);
      },
      (error: unknown) => ({ error }),
    );
  }
}

function settle(result: CreateOutcome | AppError | undefined): Settled {
  if (result === undefined) return { error: new Error('create_invoice_group answered no result for an item') };
  return result instanceof AppError ? { error: result } : { outcome: result };
}
