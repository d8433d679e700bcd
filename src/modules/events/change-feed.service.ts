import type { Executor } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { cursorExpired, invalidCursor, parseCursor } from './change-feed.js';
import { ReadAhead } from './change-feed.read-ahead.js';
import { readFeedBounds, readFeedPage } from './change-feed.repo.js';

export interface ChangeFeedDeps {
  /** The primary. */
  readonly db: Executor;
  /**
   * Where pages are read first: a replica within the lag bound, or the primary. A replica shows a state
   * the primary was in, so its page is a prefix of the primary's: it can be shorter, never different.
   */
  readonly reads?: Executor;
}

/** A page as the route serves it: JSON text in the shape of the ChangePage schema. */
export type ChangePageJson = string;

/** A page read ahead of its request: at most this many wait at once in a process, for at most this long. */
const READ_AHEAD = { maxEntries: 16, maxAgeMs: 2_000 } as const;

/** A page as it will be served, with what it was read against. */
interface Answer {
  readonly json: ChangePageJson;
  readonly latestId: bigint;
  readonly prunedThrough: bigint;
  /** More events were committed beyond the page when it was read. */
  readonly hasMore: boolean;
  readonly nextCursor: bigint;
}

/** GET /changes: a workspace's events in commit order, from a cursor. */
export class ChangeFeedService {
  private readonly readAhead: ReadAhead<Answer>;

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
   * When a page is full, the next one is read and rendered while this one is on its way (a reader
   * catching up asks for it next). It is served only if the workspace still agrees with it: the same
   * retention bound and, unless more events were beyond it anyway, no event appended since. Otherwise
   * the page is read again.
   */
  async page(workspaceId: WorkspaceId, rawAfter: string, limit: number): Promise<ChangePageJson> {
    const after = parseCursor(rawAfter);
    const answer =
      (await this.readAheadAnswer(workspaceId, after, limit)) ?? (await this.read(workspaceId, after, rawAfter, limit));
    if (answer.hasMore) {
      const next = answer.nextCursor;
      this.readAhead.start(pageKey(workspaceId, next, limit), () =>
        this.read(workspaceId, next, next.toString(), limit),
      );
    }
    return answer.json;
  }

  /** Resolves once the pages being read ahead are in. */
  readsSettled(): Promise<void> {
    return this.readAhead.settled();
  }

  private async read(workspaceId: WorkspaceId, after: bigint, rawAfter: string, limit: number): Promise<Answer> {
    const reads = this.deps.reads ?? this.deps.db;
    let page = await readFeedPage(reads, workspaceId, after, limit);
    // A replica behind the reader's cursor (read earlier on the primary or a replica further on), or one
    // that has not seen the workspace yet, cannot judge the cursor: the primary answers.
    if (reads !== this.deps.db && (!page || after > page.latestId))
      page = await readFeedPage(this.deps.db, workspaceId, after, limit);
    if (!page) throw new AppError('not_found', 'No such workspace.');
    if (after > page.latestId) throw invalidCursor(rawAfter);
    if (after > 0n && after < page.prunedThrough) throw cursorExpired(page.prunedThrough);
    const nextCursor = page.lastId ?? after;
    return {
      json: `{"events":[${page.eventsJson}],"nextCursor":"${nextCursor}","hasMore":${page.more}}`,
      latestId: page.latestId,
      prunedThrough: page.prunedThrough,
      hasMore: page.more,
      nextCursor,
    };
  }

  private async readAheadAnswer(workspaceId: WorkspaceId, after: bigint, limit: number): Promise<Answer | undefined> {
    const answer = await this.readAhead.take(pageKey(workspaceId, after, limit));
    if (!answer) return undefined;
    const now = await readFeedBounds(this.deps.reads ?? this.deps.db, workspaceId);
    if (!now || now.prunedThrough !== answer.prunedThrough) return undefined;
    return answer.hasMore || now.latestId === answer.latestId ? answer : undefined;
  }
}

function pageKey(workspaceId: WorkspaceId, after: bigint, limit: number): string {
  return `${workspaceId} ${after} ${limit}`;
}
