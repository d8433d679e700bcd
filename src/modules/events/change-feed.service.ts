import type { Executor } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { cursorExpired, invalidCursor, parseCursor } from './change-feed.js';
import { readFeedPage } from './change-feed.repo.js';

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
    const page = await readFeedPage(this.deps.db, workspaceId, after, limit);
    if (!page) throw new AppError('not_found', 'No such workspace.');
    if (after > page.latestId) throw invalidCursor(rawAfter);
    if (after > 0n && after < page.prunedThrough) throw cursorExpired(page.prunedThrough);
    const nextCursor = (page.lastId ?? after).toString();
    return `{"events":[${page.eventsJson}],"nextCursor":"${nextCursor}","hasMore":${page.hasMore}}`;
  }
}
