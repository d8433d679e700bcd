import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WeeklyPartitioned } from '../../db/partitions.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { TIMELINE_RECORD_OF } from './event.js';

/**
 * The change feed's events, a partition a week (migration 0012), each with its own primary key. Two
 * partitions are not weeks, and retention deletes their rows one by one: `events_legacy`, every time
 * before the first week (the table as it was before partitions; dropped once that time is past the
 * retention), and `events_default`, the rows dated in a week without a partition (a clock far off).
 */
export const EVENT_PARTITIONS: WeeklyPartitioned = {
  table: 'events',
  column: 'created_at',
  primaryKey: ['workspace_id', 'id'],
};

/**
 * What retention keeps true, whether it drops a week or deletes rows of another partition:
 * `workspaces.events_pruned_through` is raised to an id only once every invoice event at or below it is
 * copied to `invoice_history` (unless older than the history's own retention): a week's in a statement
 * before, the rest in the statement that raises it. From then on those events are gone for every reader: the feed, the timeline and the
 * webhook outbox read only ids above the bound, whatever rows are still stored at or below it (a
 * week's rows until its partition is dropped; an event whose time and id order differ by a
 * transaction's length may sit in the next week).
 */

/**
 * What the invoice history keeps of an event: the kinds the timeline shows, and of their `data` only the
 * facts it shows (src/modules/timeline/timeline.ts, eventRecord), not the whole invoice and payment the
 * feed carries. History rows are kept 13 times as long as events by default, so this is most of what an
 * invoice costs to keep; test/timeline/history-fields.test.ts checks every record reads the same from it.
 */
export const HISTORY_FIELDS = {
  invoice: ['linkVersion', 'expiresAt', 'network'],
  paymentIntent: ['network', 'transactionHash', 'failureReason'],
} as const;

const HISTORY_TYPES = Object.keys(TIMELINE_RECORD_OF);

/**
 * `data` (of the events aliased `e`) as the history keeps it: HISTORY_FIELDS, absent ones left out. The
 * stored text is parsed once (as jsonb), not once a field: that tripled the time of a week's copy.
 */
export const HISTORY_DATA = (() => {
  const object = (name: keyof typeof HISTORY_FIELDS) =>
    sql`nullif(jsonb_strip_nulls(jsonb_build_object(${sql.join(
      HISTORY_FIELDS[name].map((key) => sql`${sql.lit(key)}::text, d -> ${sql.lit(name)} -> ${sql.lit(key)}`),
    )})), '{}'::jsonb)`;
  return sql`(SELECT jsonb_strip_nulls(jsonb_build_object('invoice', ${object('invoice')}, 'paymentIntent', ${object('paymentIntent')}))::json
                FROM (SELECT e.data::jsonb AS d OFFSET 0) parsed)`;
})();

/** The highest id of each workspace in one partition, read with no lock on any workspace. */
export async function lastIdsIn(db: Executor, partition: string): Promise<{ workspaceId: WorkspaceId; id: bigint }[]> {
  const { rows } = await sql<{ workspace_id: WorkspaceId; id: bigint }>`
    SELECT workspace_id, max(id) AS id FROM ${sql.table(partition)} GROUP BY workspace_id ORDER BY workspace_id`.execute(
    db,
  );
  return rows.map((row) => ({ workspaceId: row.workspace_id, id: row.id }));
}

/**
 * Copies a week's invoice events to the history (unless older than `historyCutoff`), in one statement
 * that locks no workspace: nothing of the feed waits for it. Copying is most of what retiring a week
 * costs (docs/deploy.md).
 */
export async function copyWeekToHistory(db: Executor, partition: string, historyCutoff: Date): Promise<void> {
  await sql`
    INSERT INTO invoice_history (workspace_id, event_id, invoice_id, type, payment_intent_id, data, created_at)
    SELECT e.workspace_id, e.id, e.invoice_id, e.type, e.payment_intent_id, ${HISTORY_DATA}, e.created_at
      FROM ${sql.table(partition)} e
     WHERE e.invoice_id IS NOT NULL AND e.created_at >= ${historyCutoff} AND e.type = ANY (${HISTORY_TYPES}::text[])
    ON CONFLICT DO NOTHING`.execute(db);
}

/**
 * Raises a workspace's retention bound to `through`, the last id of a week whose events are copied
 * already (copyWeekToHistory), copying in the same statement the invoice events between the old bound
 * and `through` that other partitions hold (an event whose time and id order differ by a transaction's
 * length, across the week's edge). The workspace's row is locked for this one short statement.
 */
export async function raiseEventBound(
  db: Executor,
  workspaceId: WorkspaceId,
  through: bigint,
  range: { readonly from: Date | null; readonly to: Date },
  historyCutoff: Date,
): Promise<void> {
  // `from` is null for the partition of all time before the first week.
  const outsideWeek =
    range.from === null
      ? sql`AND e.created_at >= ${range.to}`
      : sql`AND (e.created_at < ${range.from} OR e.created_at >= ${range.to})`;
  await sql`
    WITH bound AS (
      SELECT events_pruned_through AS id, ${through.toString()}::bigint AS upto FROM workspaces WHERE id = ${workspaceId}
    ), kept AS (${copyToHistory(workspaceId, historyCutoff, outsideWeek)})
    UPDATE workspaces w SET events_pruned_through = greatest(w.events_pruned_through, bound.upto)
      FROM bound
     WHERE w.id = ${workspaceId}`.execute(db);
}

/**
 * Whether every event of a (detached, locked) week is at or below its workspace's bound: nothing was
 * written into the week after its workspaces' bounds were raised (a writer whose clock is a retention
 * behind). Runs under the drop's exclusive lock, so it skips from workspace to workspace through the
 * week's primary key (two index descents a workspace of the week) instead of reading every row.
 */
export async function isWeekRetired(db: Executor, partition: string): Promise<boolean> {
  const week = sql.table(partition);
  const { rows } = await sql<{ retired: boolean }>`
    WITH RECURSIVE present AS (
      (SELECT workspace_id FROM ${week} ORDER BY workspace_id LIMIT 1)
      UNION ALL
      SELECT (SELECT e.workspace_id FROM ${week} e WHERE e.workspace_id > present.workspace_id
               ORDER BY e.workspace_id LIMIT 1)
        FROM present WHERE present.workspace_id IS NOT NULL
    )
    SELECT NOT EXISTS (
      SELECT 1 FROM present JOIN workspaces w ON w.id = present.workspace_id
       WHERE (SELECT max(e.id) FROM ${week} e WHERE e.workspace_id = w.id) > w.events_pruned_through
    ) AS retired`.execute(db);
  return rows[0]!.retired;
}

/**
 * Copies a workspace's invoice events in (bound.id, bound.upto] to the history, `also` narrowing them:
 * the statement's CTE `bound` names the range.
 */
function copyToHistory(workspaceId: WorkspaceId, historyCutoff: Date, also = sql``) {
  return sql`
      INSERT INTO invoice_history (workspace_id, event_id, invoice_id, type, payment_intent_id, data, created_at)
      SELECT e.workspace_id, e.id, e.invoice_id, e.type, e.payment_intent_id, ${HISTORY_DATA}, e.created_at
        FROM events e, bound
       WHERE e.workspace_id = ${workspaceId} AND e.id > bound.id AND e.id <= bound.upto
         AND e.invoice_id IS NOT NULL AND e.created_at >= ${historyCutoff}
         AND e.type = ANY (${HISTORY_TYPES}::text[]) ${also}
      ON CONFLICT DO NOTHING`;
}

/**
 * Workspaces whose oldest event in `partition` (one that is not a week) is older than `cutoff`: one index
 * probe per workspace. Weeks are dropped whole, never row by row.
 */
export async function workspacesWithOldEventsIn(db: Executor, partition: string, cutoff: Date): Promise<WorkspaceId[]> {
  const { rows } = await sql<{ id: WorkspaceId }>`
    SELECT w.id FROM workspaces w
     CROSS JOIN LATERAL (
       SELECT created_at FROM ${sql.table(partition)} e WHERE e.workspace_id = w.id ORDER BY e.id LIMIT 1
     ) oldest
     WHERE oldest.created_at < ${cutoff}
     ORDER BY w.id`.execute(db);
  return rows.map((row) => row.id);
}

/**
 * Deletes a prefix of one workspace's events in `partition` (one that is not a week): through the highest
 * id among its first `batchSize` there created before `cutoff`, raising the bound to it in the same
 * statement (after the history copy). A prefix, not every old row: "everything at or below the bound is gone" stays true
 * even when clocks made created_at non-monotonic in id. Returns the number of rows deleted.
 */
export async function pruneEventPrefixIn(
  db: Executor,
  partition: string,
  workspaceId: WorkspaceId,
  cutoff: Date,
  batchSize: number,
  historyCutoff: Date,
): Promise<number> {
  const { rows } = await sql<{ deleted: bigint }>`
    WITH through AS (
      SELECT max(id) AS id FROM (
        SELECT id FROM ${sql.table(partition)}
         WHERE workspace_id = ${workspaceId} AND created_at < ${cutoff} ORDER BY id LIMIT ${batchSize}
      ) old
    ), bound AS (
      SELECT w.events_pruned_through AS id, through.id AS upto
        FROM workspaces w, through WHERE w.id = ${workspaceId} AND through.id IS NOT NULL
    ), kept AS (${copyToHistory(workspaceId, historyCutoff)}
    ), gone AS (
      DELETE FROM ${sql.table(partition)} e USING bound
       WHERE e.workspace_id = ${workspaceId} AND e.id <= bound.upto
      RETURNING 1
    ), raised AS (
      UPDATE workspaces w SET events_pruned_through = greatest(w.events_pruned_through, bound.upto)
        FROM bound
       WHERE w.id = ${workspaceId}
      RETURNING w.id
    )
    SELECT count(*) AS deleted FROM gone`.execute(db);
  return Number(rows[0]?.deleted ?? 0n);
}

/** Deletes up to `batchSize` of the oldest invoice history records from before `cutoff`; returns how many. */
export async function pruneInvoiceHistory(db: Executor, cutoff: Date, batchSize: number): Promise<number> {
  const { numAffectedRows } = await sql`
    DELETE FROM invoice_history h
     USING (SELECT workspace_id, event_id FROM invoice_history WHERE created_at < ${cutoff}
             ORDER BY created_at LIMIT ${batchSize}) old
     WHERE h.workspace_id = old.workspace_id AND h.event_id = old.event_id`.execute(db);
  return Number(numAffectedRows ?? 0n);
}
