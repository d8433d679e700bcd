import type { Executor } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { cursorExpired, invalidCursor, parseCursor } from './change-feed.js';
import { readFeedPage, type StoredEvent } from './change-feed.repo.js';

export interface ChangeFeedDeps {
  readonly db: Executor;
}

/** A page as the route serves it: JSON text in the shape of the ChangePage schema. */
export type ChangePageJson = string;

/** GET /changes: a workspace's events in commit order, from a cursor. */
export class ChangeFeedService {
  constructor(private readonly deps: ChangeFeedDeps) {}

  /**
   * The events after `rawAfter`, at most `limit`. "0" starts at the oldest retained event and never
   * expires; any other cursor below the retention bound answers cursor_expired with restartCursor.
   */
  async page(workspaceId: WorkspaceId, rawAfter: string, limit: number): Promise<ChangePageJson> {
    const after = parseCursor(rawAfter);
    // One extra row tells whether more events are committed beyond this page.
    const page = await readFeedPage(this.deps.db, workspaceId, after, limit + 1);
    if (!page) throw new AppError('not_found', 'No such workspace.');
    if (after > page.latestId) throw invalidCursor(rawAfter);
    if (after > 0n && after < page.prunedThrough) throw cursorExpired(page.prunedThrough);
    const events = page.events.slice(0, limit);
    const nextCursor = events.length > 0 ? events[events.length - 1]!.id.toString() : after.toString();
    return `{"events":[${events.map(present).join(',')}],"nextCursor":"${nextCursor}","hasMore":${page.events.length > limit}}`;
  }
}

/** Events are stored in the API's shape: `data` is served as it was written, as the text it came as. */
function present(event: StoredEvent): string {
  const invoiceId = event.invoiceId === null ? '' : `,"invoiceId":${JSON.stringify(event.invoiceId)}`;
  const paymentIntentId =
    event.paymentIntentId === null ? '' : `,"paymentIntentId":${JSON.stringify(event.paymentIntentId)}`;
  return `{"id":"${event.id}","type":${JSON.stringify(event.type)},"createdAt":"${event.createdAt.toISOString()}"${invoiceId}${paymentIntentId},"data":${event.dataJson}}`;
}
