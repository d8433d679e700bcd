import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';

export interface FeedPage {
  /** The last event id allocated in the workspace (committed, as this snapshot sees it). */
  readonly latestId: bigint;
  /** Every event with id <= this is gone: retention retired it (event-retention.repo.ts), whether or not its row is stored still. */
  readonly prunedThrough: bigint;
  /** How many events the page holds: up to `limit`, with id > after and id > prunedThrough. */
  readonly count: number;
  /** The id of the page's last event; undefined when the page is empty. */
  readonly lastId: bigint | undefined;
  /** More events than `limit` were committed after the cursor. */
  readonly more: boolean;
  /** The page's events in id order as the API shows them: JSON objects joined by commas. */
  readonly eventsJson: string;
}

interface PageRow {
  event_seq: bigint;
  events_pruned_through: bigint;
  found: number;
  last_id: bigint | null;
  events_json: string | null;
}

/**
 * Reads a page of the feed and the workspace's counters in one statement, so in one snapshot: the
 * retention bound and the events can never disagree. Ids are allocated under the workspace row lock
 * held to commit, so a snapshot that sees id n sees every id below n too (no gap appears later).
 * Resolves undefined when the workspace does not exist.
 */
export async function readFeedPage(
  db: Executor,
  workspaceId: WorkspaceId,
  after: bigint,
  limit: number,
): Promise<FeedPage | undefined> {
  // A cursor so large that the range's end passes bigint finds nothing either way (it is refused as never issued).
  const page = await selectPage(db, workspaceId, after, limit, after <= MAX_BIGINT - BigInt(limit + 1));
  // Never expected: the counter rolls back with the transaction that took an id, and retention deletes
  // prefixes only. Should a gap ever appear, the range held fewer events than exist, and the page is read
  // again without it.
  if (page && page.count + (page.more ? 1 : 0) < eventsAfter(page, after, limit + 1))
    return selectPage(db, workspaceId, after, limit, false);
  return page;
}

const MAX_BIGINT = 2n ** 63n - 1n;

/**
 * A workspace's retained ids are consecutive, so a page is the range of ids after the cursor (or after
 * the retention bound). The range keeps a page's cost at its size whatever the planner believes of the
 * table: before its first ANALYZE, it read every later event and sorted them for each page.
 *
 * PostgreSQL writes the page's JSON itself, in the exact shape the API documents: `data` is stored as
 * json (not jsonb, table events) and goes out as the text it came as, and `createdAt` is the UTC
 * millisecond form of Date.toISOString (both truncate microseconds). A page of 1,000 events arrives as
 * one text value, parsed and rendered by nothing in this process: that was most of the page's time here.
 * One event beyond `limit` is read to tell whether more are committed, and left out of the text.
 */
async function selectPage(
  db: Executor,
  workspaceId: WorkspaceId,
  after: bigint,
  limit: number,
  bounded: boolean,
): Promise<FeedPage | undefined> {
  const { rows } = await sql<PageRow>`
    SELECT w.event_seq, w.events_pruned_through, p.found, p.last_id, p.events_json
      FROM workspaces w
      LEFT JOIN LATERAL (
        SELECT count(*)::int AS found,
               max(e.id) FILTER (WHERE e.n <= ${limit}) AS last_id,
               string_agg(
                 '{"id":"' || e.id || '","type":' || to_json(e.type)::text
                   || ',"createdAt":"' || to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'
                   || coalesce(',"invoiceId":' || to_json(e.invoice_id)::text, '')
                   || coalesce(',"paymentIntentId":' || to_json(e.payment_intent_id)::text, '')
                   || ',"data":' || e.data::text || '}',
                 ',' ORDER BY e.id) FILTER (WHERE e.n <= ${limit}) AS events_json
          FROM (
            SELECT id, type, invoice_id, payment_intent_id, data, created_at, row_number() OVER (ORDER BY id) AS n
              FROM events
             WHERE workspace_id = w.id AND id > greatest(${after.toString()}::bigint, w.events_pruned_through)
               ${bounded ? sql`AND id <= greatest(${after.toString()}::bigint, w.events_pruned_through) + ${limit + 1}` : sql``}
             ORDER BY id LIMIT ${limit + 1}
          ) e
      ) p ON true
     WHERE w.id = ${workspaceId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    latestId: row.event_seq,
    prunedThrough: row.events_pruned_through,
    count: Math.min(row.found, limit),
    lastId: row.last_id ?? undefined,
    more: row.found > limit,
    eventsJson: row.events_json ?? '',
  };
}

/** How many events a page after `after` holds when ids have no gap. */
function eventsAfter(page: FeedPage, after: bigint, limit: number): number {
  const from = after > page.prunedThrough ? after : page.prunedThrough;
  const retained = page.latestId - from;
  return retained <= 0n ? 0 : Number(retained < BigInt(limit) ? retained : BigInt(limit));
}

/**
 * The workspace's event counter and retention bound now: what a page read earlier is checked against
 * before it is served. Undefined when the workspace does not exist.
 */
export async function readFeedBounds(
  db: Executor,
  workspaceId: WorkspaceId,
): Promise<{ latestId: bigint; prunedThrough: bigint } | undefined> {
  const { rows } = await sql<{ event_seq: bigint; events_pruned_through: bigint }>`
    SELECT event_seq, events_pruned_through FROM workspaces WHERE id = ${workspaceId}`.execute(db);
  const row = rows[0];
  return row && { latestId: row.event_seq, prunedThrough: row.events_pruned_through };
}
