import { pipelinedTransaction, type Db, type Executor } from '../../db/database.js';
import { allOrFirstFailure } from '../../db/pipelined-transactions.js';
import type { LogTarget } from '../../shared/operator-log.js';
import { WorkspaceWrites } from './workspace-writes.js';

/** At most this many use cases share one transaction. */
const MOST_IN_A_GROUP = 64;
/** The longest a group waits for the use cases `more` says are on their way. */
const MOST_WAIT_MS = 25;

interface Waiting<Item> {
  readonly item: Item;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export interface GroupedWritesOptions<Item, Prepared> {
  readonly db: Db;
  readonly log: LogTarget;
  /**
   * One use case, in the group's transaction; its events and credit movements join `writes`. `prepared`
   * is what `prepare` gave its group; undefined when the use case is written alone.
   */
  readonly write: (trx: Executor, writes: WorkspaceWrites, item: Item, prepared?: Prepared) => Promise<void>;
  /**
   * Runs first in a group's transaction, given its use cases in lock order: what every use case would
   * otherwise do alone, done for all of them at once (e.g. locking their rows, one statement a table).
   */
  readonly prepare?: (trx: Executor, items: readonly Item[]) => Promise<Prepared>;
  /**
   * A group's use cases are written in the order of this key, so that every group takes their row locks
   * in one order and two groups never wait for each other the other way round (e.g. order, then attempt).
   */
  readonly lockOrder: (item: Item) => string;
  /**
   * Whether more use cases are on their way (e.g. the other payments a block confirms are still reading
   * it): a group waits for them, looking again every millisecond, for at most MOST_WAIT_MS.
   */
  readonly more?: () => boolean;
  /**
   * Use cases with the same answer here may touch the same rows (e.g. two payments of one order): they
   * are written one after another, in lock order. Use cases with different answers are written at once,
   * so on `pipelined` connections their statements go out together. Without it, one after another.
   */
  readonly rowsOf?: (item: Item) => string;
  /** Groups are written on `db`'s pipelined connections: each wave of their statements in one round trip. */
  readonly pipelined?: boolean;
  /**
   * A group that forms while an earlier one of its workspace is being written waits for that one to
   * commit (at most MOST_WAIT_MS), taking in what comes meanwhile: for use cases that arrive one by one
   * and would wait for that commit anyway, on the workspace's event counter (e.g. new payments).
   */
  readonly gatherWhileWriting?: boolean;
}

/**
 * Group commit for the use cases of one workspace that come together, such as the payments one block
 * confirms. Every write of a workspace's events holds its event counter until commit, so twenty payments
 * recorded in twenty transactions wait for each other's commits, and while they wait they hold twenty
 * pooled connections that the rest of the process (webhook claims, API requests) also needs. Written
 * together they take the counter once, on one connection.
 *
 * The use cases of a workspace that arrive in the same turn of the event loop form a group, as do those
 * that arrive while `more` says they are on their way: a lone use case waits for nothing else, and a
 * later group never waits for an earlier one to finish (only for its commit, on the counter). Within a
 * group, use cases of different rows (`rowsOf`) are written at once, on a pipelined connection when
 * given one: twenty payments then cost three round trips, not sixty. A group that fails is written
 * again one use case a transaction, so each fails or succeeds on its own, as if it had never been grouped.
 */
export class GroupedWrites<Item, Prepared = undefined> {
  private readonly forming = new Map<string, Waiting<Item>[]>();
  /** How many groups of each workspace are being written now. */
  private readonly writing = new Map<string, number>();

  constructor(private readonly options: GroupedWritesOptions<Item, Prepared>) {}

  /** Writes `item` with whatever else of the workspace comes at the same time; settles once it committed. */
  write(workspaceId: string, item: Item): Promise<void> {
    return new Promise((resolve, reject) => {
      const group = this.forming.get(workspaceId);
      if (group && group.length < MOST_IN_A_GROUP) return void group.push({ item, resolve, reject });
      const next = [{ item, resolve, reject }];
      this.forming.set(workspaceId, next);
      const until = performance.now() + MOST_WAIT_MS;
      const close = () => {
        const more = this.options.more?.() || (this.options.gatherWhileWriting && this.writing.has(workspaceId));
        if (more && performance.now() < until && next.length < MOST_IN_A_GROUP) return void setTimeout(close, 1);
        if (this.forming.get(workspaceId) === next) this.forming.delete(workspaceId);
        this.writing.set(workspaceId, (this.writing.get(workspaceId) ?? 0) + 1);
        void this.writeGroup(next).finally(() => {
          const left = this.writing.get(workspaceId)! - 1;
          if (left > 0) this.writing.set(workspaceId, left);
          else this.writing.delete(workspaceId);
        });
      };
      setImmediate(close);
    });
  }

  private async writeGroup(group: readonly Waiting<Item>[]): Promise<void> {
    const { db, log, write, prepare, lockOrder, rowsOf, pipelined } = this.options;
    if (group.length > 1) {
      const items = group.map((waiting) => waiting.item);
      items.sort((a, b) => (lockOrder(a) < lockOrder(b) ? -1 : lockOrder(a) > lockOrder(b) ? 1 : 0));
      const written = await WorkspaceWrites.transaction(
        db,
        log,
        async (trx, writes) => {
          const prepared = await prepare?.(trx, items);
          await allOrFirstFailure(
            chainsOf(items, rowsOf).map(async (chain) => {
              for (const item of chain) await write(trx, writes, item, prepared);
            }),
          );
        },
        pipelined ? (body) => pipelinedTransaction(db, body) : undefined,
      ).then(
        () => true,
        () => false,
      );
      if (written) return group.forEach((waiting) => waiting.resolve());
    }
    await Promise.all(
      group.map((waiting) =>
        WorkspaceWrites.transaction(db, log, (trx, writes) => write(trx, writes, waiting.item)).then(
          waiting.resolve,
          waiting.reject,
        ),
      ),
    );
  }
}

/** `items` (in lock order) split by the rows they touch, each part keeping their order; one part without `rowsOf`. */
function chainsOf<Item>(items: readonly Item[], rowsOf: ((item: Item) => string) | undefined): Item[][] {
  if (!rowsOf) return [[...items]];
  const chains = new Map<string, Item[]>();
  for (const item of items) {
    const key = rowsOf(item);
    const chain = chains.get(key);
    if (chain) chain.push(item);
    else chains.set(key, [item]);
  }
  return [...chains.values()];
}
