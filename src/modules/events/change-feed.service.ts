import type { Executor } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { cursorExpired, invalidCursor, parseCursor } from './change-feed.js';
import { ReadAhead } from './change-feed.read-ahead.js';
import { readFeedBounds, readFeedPage } from './change-feed.repo.js';
import type { RecentEvents } from './recent-events.js';

export interface ChangeFeedDeps {
  /** The primary. */
  readonly db: Executor;
  /**
   * Where pages are read first: a replica within the lag bound, or the primary. A replica shows a state
   * the primary was in, so its page is a prefix of the primary's: it can be shorter, never different.
   */
  readonly reads?: Executor;
  /** The events this process committed: pages of them are served from here (recentEventsOf). */
  readonly recent?: RecentEvents;
}

/**
 * A page as the route serves it: JSON in the shape of the ChangePage schema, as UTF-8 bytes in pieces. A
 * page read ahead is encoded while the reader takes in the one before, not on the way out (a page of
 * 1,000 events is about 900 KB). A page from memory is sent as the pieces it is kept in: copying them into
 * one new buffer took 3 ms a page here, most of it the kernel handing out the fresh memory.
 */
export class ChangePageJson {
  constructor(readonly pieces: readonly Buffer[]) {}

  get byteLength(): number {
    return this.pieces.reduce((length, piece) => length + piece.length, 0);
  }

  toString(): string {
    return Buffer.concat(this.pieces).toString();
  }
}

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
    const remembered = await this.fromMemory(workspaceId, after, limit);
    if (remembered) return remembered;
    const ahead = await this.readAhead.take(pageKey(workspaceId, after, limit));
    // The next page is started before this one is checked: a page read ahead is checked when it is served.
    if (ahead?.hasMore) this.readAheadFrom(workspaceId, ahead.nextCursor, limit);
    const answer =
      ahead && (await this.stillAnswers(workspaceId, ahead))
        ? ahead
        : await this.read(workspaceId, after, rawAfter, limit);
    if (answer !== ahead && answer.hasMore) this.readAheadFrom(workspaceId, answer.nextCursor, limit);
    return answer.json;
  }

  private readAheadFrom(workspaceId: WorkspaceId, after: bigint, limit: number): void {
    this.readAhead.start(pageKey(workspaceId, after, limit), () =>
      this.read(workspaceId, after, after.toString(), limit),
    );
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
      json: new ChangePageJson([Buffer.from(`${PAGE_START}${page.eventsJson}${pageEnd(nextCursor, page.more)}`)]),
      latestId: page.latestId,
      prunedThrough: page.prunedThrough,
      hasMore: page.more,
      nextCursor,
    };
  }

  /**
   * The page from the events this process committed (RecentEvents), when it remembers every one the page
   * holds; what the page holds is decided by the workspace's counters as the database has them now, so
   * the answer is the one a read of the table would give. Undefined otherwise (and for every cursor a
   * read judges: beyond the last event, expired), and then the table is read.
   */
  private async fromMemory(
    workspaceId: WorkspaceId,
    after: bigint,
    limit: number,
  ): Promise<ChangePageJson | undefined> {
    const recent = this.deps.recent;
    const run = recent?.run(workspaceId, after, limit);
    // The page's first event is not remembered: a reader elsewhere in the feed costs nothing more.
    if (!recent || !run || run.count === 0) return undefined;
    const runEnd = after + BigInt(run.count);
    // A later event is remembered, so the one after the run was committed, by another process.
    if (run.count < limit && (recent.newest(workspaceId) ?? 0n) > runEnd) return undefined;
    const bounds = await readFeedBounds(this.deps.reads ?? this.deps.db, workspaceId);
    if (!bounds || after >= bounds.latestId || after < bounds.prunedThrough) return undefined;
    const through = bounds.latestId < after + BigInt(limit) ? bounds.latestId : after + BigInt(limit);
    if (through > runEnd) return undefined;
    return pageJson(run.joined(Number(through - after)), through, bounds.latestId > through);
  }

  /** Whether a page read earlier is the answer a fresh read would give now. */
  private async stillAnswers(workspaceId: WorkspaceId, answer: Answer): Promise<boolean> {
    const now = await readFeedBounds(this.deps.reads ?? this.deps.db, workspaceId);
    if (!now || now.prunedThrough !== answer.prunedThrough) return false;
    return answer.hasMore || now.latestId === answer.latestId;
  }
}

function pageKey(workspaceId: WorkspaceId, after: bigint, limit: number): string {
  return `${workspaceId} ${after} ${limit}`;
}

/** A page of remembered events (joined by commas, in pieces), in the shape `read` gives (ChangePage). */
function pageJson(events: readonly Buffer[], nextCursor: bigint, hasMore: boolean): ChangePageJson {
  return new ChangePageJson([PAGE_START_BYTES, ...events, Buffer.from(pageEnd(nextCursor, hasMore))]);
}

/** A page's JSON around its events, joined by commas (ChangePage). */
const PAGE_START = '{"events":[';
const pageEnd = (nextCursor: bigint, hasMore: boolean) => `],"nextCursor":"${nextCursor}","hasMore":${hasMore}}`;
const PAGE_START_BYTES = Buffer.from(PAGE_START);
