import type { Db, Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { LogTarget } from '../../shared/operator-log.js';
import type { NewEvent, WorkspaceEvent } from './event.js';
import { logPaymentEvents } from './event-log.js';
import { appendAll } from './event.repo.js';
import { recentEventsOf, type RecentEvents } from './recent-events.js';

/**
 * A kind of write that locks after the event counter (credit movements, receipt numbers): the items of
 * one kind a transaction gathers for a workspace are written by one call, so twenty payments take as
 * many statements as one.
 */
export interface LateWrites<Item> {
  write(trx: Executor, workspaceId: WorkspaceId, items: readonly Item[]): Promise<void>;
}

/**
 * The writes of one transaction that lock a whole workspace until commit: its feed events (the
 * workspace's event counter) and, after them, its credit movements (the credit account), the order in
 * which every writer takes these locks. A use case gathers them while it does the rest of its work and
 * writes them last, so that the workspace's other writers (the payments of a block, new payments,
 * creates) wait for a few statements and a commit, not for the whole transaction. Once the caller has
 * committed, `committed` tells the operator what happened.
 */
export class WorkspaceWrites {
  /**
   * `work` in one transaction, with its writes written last and told to `log` once committed. `begin`
   * runs the transaction: by default one of `db`'s (or a pipelined one, `pipelinedTransaction`).
   */
  static async transaction<T>(
    db: Db,
    log: LogTarget,
    work: (trx: Executor, writes: WorkspaceWrites) => Promise<T>,
    begin: <R>(body: (trx: Executor) => Promise<R>) => Promise<R> = (body) => db.transaction().execute(body),
  ): Promise<T> {
    const writes = new WorkspaceWrites();
    const result = await begin(async (trx) => {
      const done = await work(trx, writes);
      await writes.write(trx);
      return done;
    });
    writes.committed(log, recentEventsOf(db));
    return result;
  }

  private readonly events: WorkspaceEvent[] = [];
  private readonly afterEvents: {
    readonly kind: LateWrites<never>;
    readonly workspaceId: WorkspaceId;
    readonly item: unknown;
  }[] = [];
  private readonly afterCommit: ((log: LogTarget) => void)[] = [];
  private written: { events: WorkspaceEvent[]; ids: bigint[] } = { events: [], ids: [] };

  /** An event to append, in the order given. */
  append(workspaceId: WorkspaceId, event: NewEvent): void {
    this.events.push({ ...event, workspaceId });
  }

  /**
   * A write that locks after the event counter (a credit movement), run after the events: the items of a
   * kind are written together a workspace at a time, in the order given, where its first item was added.
   */
  then<Item>(kind: LateWrites<Item>, workspaceId: WorkspaceId, item: Item): void {
    this.afterEvents.push({ kind, workspaceId, item });
  }

  /** A line for the operator, written once the transaction committed. */
  tell(line: (log: LogTarget) => void): void {
    this.afterCommit.push(line);
  }

  /** Writes what was gathered; the caller commits right after. */
  async write(trx: Executor): Promise<void> {
    const events = this.events.splice(0);
    this.written = { events, ids: await appendAll(trx, events) };
    const late = this.afterEvents.splice(0);
    for (const kind of new Set(late.map((entry) => entry.kind))) {
      const ofKind = late.filter((entry) => entry.kind === kind);
      for (const workspaceId of new Set(ofKind.map((entry) => entry.workspaceId)))
        await kind.write(
          trx,
          workspaceId,
          ofKind.filter((entry) => entry.workspaceId === workspaceId).map((entry) => entry.item as never),
        );
    }
  }

  /**
   * The transaction committed: the operator's lines, for its payment events and what was told; its
   * events are remembered for the change feed's readers.
   */
  committed(log: LogTarget, recent: RecentEvents | undefined): void {
    recent?.remember(this.written.events, this.written.ids);
    logPaymentEvents(log, this.written.events, this.written.ids);
    for (const line of this.afterCommit.splice(0)) line(log);
  }
}
