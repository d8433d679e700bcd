import type { Executor } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { cursorExpired, invalidCursor, parseCursor } from './change-feed.js';
import { ReadAhead } from './change-feed.read-ahead.js';
import { readFeedBounds, readFeedPage, type FeedPage, type StoredEvent } from './change-feed.repo.js';

export interface ChangeFeedDeps {
  readonly db: Executor;
}

/** A page as the route serves it: JSON text in the shape of the ChangePage schema. */
export type ChangePageJson = string;

/** A page read ahead of its request: at most this many wait at once in a process, for at most this long. */
const READ_AHEAD = { maxEntries: 16, maxAgeMs: 2_000 } as const;

/** GET /changes: a workspace's events in commit order, from a cursor. */
export class ChangeFeedService {
  private readonly readAhead: ReadAhead<FeedPage>;

  constructor(
    private readonly deps: ChangeFeedDeps,
    readAhead: { maxEntries: number; maxAgeMs: number; now?: () => number } = READ_AHEAD,
  ) {
    this.readAhead = new ReadAhead(readAhead);
  }

  /**
   * The events after `rawAfter`, at most `limit`. "0" starts at the oldest retained event and never
   * expires; any other cursor below the retention bound answers cursor_expired with restartCursor.
   *
   * When a page is full, the next one is read while this one is on its way (a reader catching up asks
   * for it next). It is served only if the workspace still agrees with it: the same retention bound and,
   * unless the page was full anyway, no event appended since. Otherwise the page is read again.
   */
  async page(workspaceId: WorkspaceId, rawAfter: string, limit: number): Promise<ChangePageJson> {
    const after = parseCursor(rawAfter);
    const page =
      (await this.readAheadPage(workspaceId, after, limit)) ??
      // One extra row tells whether more events are committed beyond this page.
      (await readFeedPage(this.deps.db, workspaceId, after, limit + 1));
    if (!page) throw new AppError('not_found', 'No such workspace.');
    if (after > page.latestId) throw invalidCursor(rawAfter);
    if (after > 0n && after < page.prunedThrough) throw cursorExpired(page.prunedThrough);
    const events = page.events.slice(0, limit);
    const hasMore = page.events.length > limit;
    const nextCursor = events.length > 0 ? events[events.length - 1]!.id : after;
    if (hasMore) {
      this.readAhead.start(pageKey(workspaceId, nextCursor, limit), () =>
        readFeedPage(this.deps.db, workspaceId, nextCursor, limit + 1).then((next) => next ?? Promise.reject()),
      );
    }
    return `{"events":[${events.map(present).join(',')}],"nextCursor":"${nextCursor}","hasMore":${hasMore}}`;
  }

  /** Resolves once the pages being read ahead are in. */
  readsSettled(): Promise<void> {
    return this.readAhead.settled();
  }

  private async readAheadPage(workspaceId: WorkspaceId, after: bigint, limit: number): Promise<FeedPage | undefined> {
    const page = await this.readAhead.take(pageKey(workspaceId, after, limit));
    if (!page) return undefined;
    const now = await readFeedBounds(this.deps.db, workspaceId);
    if (!now || now.prunedThrough !== page.prunedThrough) return undefined;
    const full = page.events.length > limit;
    return full || now.latestId === page.latestId ? page : undefined;
  }
}

function pageKey(workspaceId: WorkspaceId, after: bigint, limit: number): string {
  return `${workspaceId} ${after} ${limit}`;
}

/** Events are stored in the API's shape: `data` is served as it was written, as the text it came as. */
function present(event: StoredEvent): string {
  const invoiceId = event.invoiceId === null ? '' : `,"invoiceId":${JSON.stringify(event.invoiceId)}`;
  const paymentIntentId =
    event.paymentIntentId === null ? '' : `,"paymentIntentId":${JSON.stringify(event.paymentIntentId)}`;
  return `{"id":"${event.id}","type":${JSON.stringify(event.type)},"createdAt":"${event.createdAt.toISOString()}"${invoiceId}${paymentIntentId},"data":${event.dataJson}}`;
}
