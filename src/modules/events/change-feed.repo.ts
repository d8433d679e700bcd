import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';

export interface FeedPage {
  /** The last event id allocated in the workspace (committed, as this snapshot sees it). */
  readonly latestId: bigint;
  /** Every event with id <= this was deleted by retention. */
  readonly prunedThrough: bigint;
  /** The page's events as JSON text, each in the API's shape, comma-separated, in id order ('' for none). */
  readonly eventsJson: string;
  /** The id of the page's last event; undefined for an empty page. */
  readonly lastId: bigint | undefined;
  /** Whether more events are committed beyond the page. */
  readonly hasMore: boolean;
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
 *
 * The page comes as one row: PostgreSQL writes each event in the API's shape (the ChangeEvent schema,
 * `createdAt` to the millisecond as Date.toISOString writes it) and joins them, `data` as the text it
 * is stored as (json, migration 0021). A page of 1,000 events is neither parsed nor serialized again
 * on its way through. Resolves undefined when the workspace does not exist.
 */
export async function readFeedPage(
  db: Executor,
  workspaceId: WorkspaceId,
  after: bigint,
  limit: number,
): Promise<FeedPage | undefined> {
  const { rows } = await sql<PageRow>`
    SELECT w.event_seq, w.events_pruned_through, p.found, p.last_id, p.events_json
      FROM workspaces w
      LEFT JOIN LATERAL (
        SELECT count(*)::int AS found,
               max(id) FILTER (WHERE nth <= ${limit}) AS last_id,
               string_agg(event_json, ',' ORDER BY id) FILTER (WHERE nth <= ${limit}) AS events_json
          FROM (
            SELECT id, row_number() OVER (ORDER BY id) AS nth,
                   '{"id":"' || id || '","type":' || to_json(type)::text
                   || ',"createdAt":"' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'
                   || coalesce(',"invoiceId":' || to_json(invoice_id)::text, '')
                   || coalesce(',"paymentIntentId":' || to_json(payment_intent_id)::text, '')
                   || ',"data":' || data::text || '}' AS event_json
              FROM (
                SELECT * FROM events
                 WHERE workspace_id = w.id AND id > ${after.toString()}::bigint
                 ORDER BY id LIMIT ${limit + 1}
              ) next_events
          ) page
      ) p ON true
     WHERE w.id = ${workspaceId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    latestId: row.event_seq,
    prunedThrough: row.events_pruned_through,
    eventsJson: row.events_json ?? '',
    lastId: row.last_id ?? undefined,
    hasMore: row.found > limit,
  };
}

/** Workspaces whose oldest retained event is older than `cutoff` (one index probe per workspace). */
export async function workspacesWithEventsBefore(db: Executor, cutoff: Date): Promise<WorkspaceId[]> {
  const { rows } = await sql<{ id: WorkspaceId }>`
    SELECT w.id FROM workspaces w
     CROSS JOIN LATERAL (SELECT created_at FROM events e WHERE e.workspace_id = w.id ORDER BY e.id LIMIT 1) oldest
     WHERE oldest.created_at < ${cutoff}
     ORDER BY w.id`.execute(db);
  return rows.map((row) => row.id);
}

/**
 * Deletes a prefix of one workspace's feed: through the highest id among the first `batchSize` events
 * created before `cutoff`, and raises `events_pruned_through` to it in the same statement. Deleting a
 * prefix (not every old row) keeps "everything at or below prunedThrough is gone, everything above is
 * there" true even when clocks made created_at non-monotonic in id. Returns the number of rows deleted.
 */
export async function pruneEventPrefix(
  db: Executor,
  workspaceId: WorkspaceId,
  cutoff: Date,
  batchSize: number,
): Promise<number> {
  const { rows } = await sql<{ deleted: bigint }>`
    WITH through AS (
      SELECT max(id) AS id FROM (
        SELECT id FROM events WHERE workspace_id = ${workspaceId} AND created_at < ${cutoff} ORDER BY id LIMIT ${batchSize}
      ) old
    ), gone AS (
      DELETE FROM events e USING through
       WHERE e.workspace_id = ${workspaceId} AND e.id <= through.id
      RETURNING e.id
    ), raised AS (
      UPDATE workspaces w SET events_pruned_through = greatest(w.events_pruned_through, through.id)
        FROM through
       WHERE w.id = ${workspaceId} AND through.id IS NOT NULL
      RETURNING w.id
    )
    SELECT count(*) AS deleted FROM gone`.execute(db);
  return Number(rows[0]?.deleted ?? 0n);
}
