import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { NewEvent, WorkspaceEvent } from './event.js';
import { appendAll } from './event.repo.js';

type LateWrite = (trx: Executor) => Promise<void>;

/**
 * The writes of one transaction that lock a whole workspace until commit: its feed events (the
 * workspace's event counter) and, after them, its credit movements (the credit account), the order in
 * which every writer takes these locks. A use case gathers them while it does the rest of its work and
 * writes them last, so that the workspace's other writers (the payments of a block, new payments,
 * creates) wait for a few statements and a commit, not for the whole transaction.
 */
export class WorkspaceWrites {
  private readonly events: WorkspaceEvent[] = [];
  private readonly afterEvents: LateWrite[] = [];

  /** An event to append, in the order given. */
  append(workspaceId: WorkspaceId, event: NewEvent): void {
    this.events.push({ ...event, workspaceId });
  }

  /** A write that locks after the event counter (a credit movement), run after the events in the order given. */
  then(write: LateWrite): void {
    this.afterEvents.push(write);
  }

  /** Writes what was gathered; the caller commits right after. */
  async write(trx: Executor): Promise<void> {
    await appendAll(trx, this.events.splice(0));
    for (const write of this.afterEvents.splice(0)) await write(trx);
  }
}
