import { sql, type Selectable, type Transaction } from 'kysely';
import type { Database, Db, Executor } from '../../db/database.js';
import { columnsOf, countUpTo, partitionsOf, type WeeklyPartitioned } from '../../db/partitions.js';
import type { JobClaim } from '../../jobs/index.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { DELIVER_WEBHOOK_JOB, type AttemptOutcome } from './webhook.js';
import type { WebhookAttemptTable, WebhookDeliveryTable } from './webhook.table.js';

export type DeliveryRow = Selectable<WebhookDeliveryTable>;
export type AttemptRow = Selectable<WebhookAttemptTable>;

export interface NewDelivery {
  readonly eventId: string;
  readonly type: string;
  readonly invoiceId: string | null;
  readonly body: string;
  readonly at: Date;
}

export interface NewWorkspaceDelivery extends NewDelivery {
  readonly workspaceId: WorkspaceId;
}

/**
 * The arbiter of a delivery's insert, named rather than inferred from `(workspace_id, event_id)`: once the
 * table is partitioned by week, its key must hold `created_at` too (always the event's time, so still one
 * row an event), and a statement naming the key runs on either layout. Processes of this release then go
 * on writing deliveries, in the events' own transactions, while a later release's migration partitions it.
 */
const ONE_DELIVERY_AN_EVENT = sql`ON CONFLICT ON CONSTRAINT webhook_deliveries_pkey DO NOTHING`;

/**
 * Records a delivery when the workspace has an endpoint (enabled or paused: a paused endpoint keeps
 * its backlog). Resolves true when a row was written. An existing row for the event is left alone.
 * `webhook_endpoints` is the webhook-endpoint module's table: read here, never written, so that the
 * check and the insert are one statement.
 */
export async function insertDelivery(trx: Executor, workspaceId: WorkspaceId, delivery: NewDelivery): Promise<boolean> {
  const { rows } = await sql<{ event_id: string }>`
    INSERT INTO webhook_deliveries (workspace_id, event_id, type, invoice_id, body, status, next_attempt_at, window_started_at, created_at)
    SELECT ${workspaceId}, ${delivery.eventId}, ${delivery.type}, ${delivery.invoiceId}, ${delivery.body}, 'pending', ${delivery.at}, ${delivery.at}, ${delivery.at}
      FROM webhook_endpoints WHERE workspace_id = ${workspaceId}
    ${ONE_DELIVERY_AN_EVENT}
    RETURNING event_id`.execute(trx);
  return rows.length > 0;
}

/**
 * Records the deliveries of new feed events of one or more workspaces, each with the job that sends it,
 * in one statement: only for workspaces with an endpoint. A new event's id was never queued, so every
 * delivery recorded gets a new job.
 */
export async function insertDeliveriesWithJobs(
  trx: Executor,
  deliveries: readonly NewWorkspaceDelivery[],
): Promise<void> {
  const rows = deliveries.map((delivery) => ({ ...delivery, at: delivery.at.toISOString() }));
  await sql`
    WITH recorded AS (
      INSERT INTO webhook_deliveries (workspace_id, event_id, type, invoice_id, body, status, next_attempt_at, window_started_at, created_at)
      SELECT d."workspaceId", d."eventId", d.type, d."invoiceId", d.body, 'pending', d.at, d.at, d.at
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS d("workspaceId" text, "eventId" text, type text, "invoiceId" text, body text, at timestamptz)
        JOIN webhook_endpoints e ON e.workspace_id = d."workspaceId"
      ${ONE_DELIVERY_AN_EVENT}
      RETURNING workspace_id, event_id, created_at
    )
    INSERT INTO jobs (kind, workspace_id, payload, unique_key)
    SELECT ${DELIVER_WEBHOOK_JOB}, workspace_id, jsonb_build_object('eventId', event_id, 'at', created_at), workspace_id || '/' || event_id
      FROM recorded
    ON CONFLICT (kind, unique_key) WHERE unique_key IS NOT NULL AND failed_at IS NULL DO NOTHING`.execute(trx);
}

export function findDelivery(db: Executor, workspaceId: WorkspaceId, eventId: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
}

/** Makes a delivery pending again, due now, with a fresh retry window (manual retry). */
export function reopenDelivery(trx: Executor, workspaceId: WorkspaceId, eventId: string, at: Date) {
  return trx
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: at, window_started_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('event_id', '=', eventId)
    .where('status', '!=', 'succeeded')
    .returningAll()
    .executeTakeFirst();
}

/**
 * Pending deliveries of a workspace (the backlog a resume sends), due now with fresh retry windows:
 * time spent paused does not count against a delivery.
 */
export async function renewPendingDeliveries(
  trx: Executor,
  workspaceId: WorkspaceId,
  at: Date,
): Promise<{ eventId: string; at: Date }[]> {
  const rows = await trx
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: at, window_started_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'pending')
    .returning(['event_id', 'created_at'])
    .execute();
  return rows.map((row) => ({ eventId: row.event_id, at: row.created_at }));
}

/** One delivery of one workspace: what the delivery jobs of many workspaces read and write together. */
export interface DeliveryKey {
  readonly workspaceId: WorkspaceId;
  readonly eventId: string;
}

export type DeliveryToSend = Pick<DeliveryRow, 'workspace_id' | 'event_id' | 'invoice_id' | 'body' | 'attempts'> &
  Pick<DeliveryRow, 'status' | 'window_started_at'> & {
    readonly url: string;
    readonly enabled: boolean;
    readonly secret: string;
    /**
     * The delivery's created_at as the database wrote it out (to the microsecond, which a Date would
     * lose): its attempt's result is written to that week's partition alone.
     */
    readonly created_at: string;
  };

/**
 * Each key's delivery with its workspace's endpoint, in one call (`webhook_deliveries_to_send`);
 * undefined where either is gone. Only the workspace of its own key is ever read for a delivery.
 */
export async function findDeliveriesToSend(
  db: Executor,
  keys: readonly DeliveryKey[],
): Promise<(DeliveryToSend | undefined)[]> {
  const { rows } = await sql<DeliveryToSend>`
    SELECT * FROM webhook_deliveries_to_send(${keys.map((k) => k.workspaceId)}::text[], ${keys.map((k) => k.eventId)}::text[])`.execute(
    db,
  );
  const found = new Map(rows.map((row) => [`${row.workspace_id}/${row.event_id}`, row]));
  return keys.map((key) => found.get(`${key.workspaceId}/${key.eventId}`));
}

/**
 * The claim function of the delivery runner (`claim_webhook_deliveries`): claim_jobs, and on each job the
 * delivery and endpoint that `findDeliveriesToSend` would read, which `deliveryFromClaim` turns back into one.
 */
export const CLAIM_WITH_DELIVERY = 'claim_webhook_deliveries';

/** The delivery `CLAIM_WITH_DELIVERY` read for a job; undefined where the delivery or the endpoint is gone. */
export function deliveryFromClaim(key: DeliveryKey, details: unknown): DeliveryToSend | undefined {
  if (!Array.isArray(details)) return undefined;
  const [invoiceId, body, attempts, status, windowStartedAt, url, enabled, secret, createdAt] = details as [
    string | null,
    string,
    number,
    DeliveryToSend['status'],
    string,
    string,
    boolean,
    string,
    string,
  ];
  return {
    workspace_id: key.workspaceId,
    event_id: key.eventId,
    invoice_id: invoiceId,
    body,
    attempts,
    status,
    window_started_at: new Date(windowStartedAt),
    url,
    enabled,
    secret,
    created_at: createdAt,
  };
}

/** One attempt and the result it gives its delivery. */
export interface AttemptResultRecord extends DeliveryKey {
  readonly invoiceId: string | null;
  /** The delivery's created_at, as DeliveryToSend has it. */
  readonly createdAt: string;
  readonly attempt: number;
  readonly startedAt: Date;
  readonly outcome: AttemptOutcome;
  readonly status: 'pending' | 'succeeded' | 'failed';
  readonly nextAttemptAt: Date | null;
  /** Record the result only while the delivery is still in this retry window (unset: in any window). */
  readonly windowStartedAt?: Date;
  /** The delivery job making the attempt: deleted with the result when the result ends the delivery. */
  readonly job?: JobClaim;
}

export interface AttemptRecorded {
  readonly recorded: boolean;
  /** The record's `job` was deleted: the delivery ended (succeeded or failed) and the claim still held. */
  readonly jobDeleted: boolean;
}

/**
 * Appends each attempt to the history and records its result on the delivery, and deletes the job of
 * each delivery that this result ends, all in one call of `record_webhook_attempts` (one round trip, one
 * commit, a kept plan for many attempts). A result is not recorded on a delivery
 * that already succeeded (a duplicate attempt after a worker died must not turn a success back into a
 * retry), nor on one whose retry window is not the expected one any more. A job is deleted only while
 * its claim holds, as `completeJobs` does.
 */
export async function recordAttemptResults(
  db: Executor,
  records: readonly AttemptResultRecord[],
): Promise<AttemptRecorded[]> {
  if (records.length === 0) return [];
  const column = <T>(pick: (record: AttemptResultRecord) => T) => records.map(pick);
  const { rows } = await sql<{ n: number; job_deleted: boolean }>`
    SELECT n, job_deleted FROM record_webhook_attempts(
      ${column((r) => r.workspaceId)}::text[], ${column((r) => r.eventId)}::text[],
      ${column((r) => r.invoiceId)}::text[], ${column((r) => r.attempt)}::int[],
      ${column((r) => r.startedAt)}::timestamptz[], ${column((r) => Math.round(r.outcome.durationMs))}::int[],
      ${column((r) => r.outcome.status ?? null)}::int[], ${column((r) => (r.outcome.ok ? null : r.outcome.error))}::text[],
      ${column((r) => r.status)}::text[], ${column((r) => r.nextAttemptAt)}::timestamptz[],
      ${column((r) => r.windowStartedAt ?? null)}::timestamptz[], ${column((r) => r.job?.id.toString() ?? null)}::bigint[],
      ${column((r) => r.job?.workerId ?? null)}::text[], ${column((r) => r.job?.attempts ?? null)}::int[],
      ${column((r) => r.createdAt)}::timestamptz[])`.execute(db);
  const byPosition = new Map(rows.map((row) => [row.n, row.job_deleted]));
  return records.map((_, index) => {
    const jobDeleted = byPosition.get(index + 1);
    return { recorded: jobDeleted !== undefined, jobDeleted: jobDeleted === true };
  });
}

export function recentDeliveries(db: Executor, workspaceId: WorkspaceId, limit: number) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('event_id', 'desc')
    .limit(limit)
    .execute();
}

export function recentAttempts(db: Executor, workspaceId: WorkspaceId, limit: number) {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function invoiceAttempts(db: Executor, workspaceId: WorkspaceId, invoiceId: string, limit: number) {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('invoice_id', '=', invoiceId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Attempts per UTC day since `from` (webhook_attempts_recent_idx): all of them, and those acknowledged with a 2xx. */
export function attemptTotalsByDay(db: Executor, workspaceId: WorkspaceId, from: Date) {
  return db
    .selectFrom('webhook_attempts')
    .select([
      sql<string>`to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('day'),
      sql<number>`count(*)::int`.as('attempts'),
      sql<number>`(count(*) FILTER (WHERE error IS NULL))::int`.as('succeeded'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('started_at', '>=', from)
    .groupBy(sql`1`)
    .execute();
}

/** The attempt history, a partition a week (migration 0011); retention drops whole weeks. */
export const ATTEMPT_PARTITIONS: WeeklyPartitioned = { table: 'webhook_attempts', column: 'started_at' };

/** The deliveries, a partition a week of their events' time (migration 0013); retention drops whole weeks. */
export const DELIVERY_PARTITIONS: WeeklyPartitioned = { table: 'webhook_deliveries', column: 'created_at' };

/** Workspaces whose finished deliveries one statement of the retention deletes. */
const WORKSPACES_A_PRUNE = 1_000;

/**
 * Deletes, row by row, what is past `cutoff` but is not in a week that retention drops whole: the attempts
 * in no week's partition (written before the table was partitioned, or dated in a week that had none),
 * and the finished deliveries older than `cutoff` in the delivery partitions that are not weeks (the
 * table as it was before it was partitioned, the DEFAULT partition) or in a week past the cutoff whose
 * drop was left. The deliveries `workspacesAStatement` workspaces at a time (see pruneDeliveries).
 * Resolves the rows deleted.
 */
export async function pruneWebhookHistory(
  db: Db,
  cutoff: Date,
  workspacesAStatement = WORKSPACES_A_PRUNE,
): Promise<number> {
  const attempts = await sql`DELETE FROM webhook_attempts_default WHERE started_at < ${cutoff}`.execute(db);
  let deleted = Number(attempts.numAffectedRows ?? 0n);
  const partitions = (await partitionsOf(db, DELIVERY_PARTITIONS.table)).filter(
    (partition) => !partition.week || partition.to!.getTime() <= cutoff.getTime(),
  );
  for (let after = ''; ;) {
    const batch = await db
      .selectFrom('workspaces')
      .select('id')
      .where('id', '>', after)
      .orderBy('id')
      .limit(workspacesAStatement)
      .execute();
    if (batch.length === 0) return deleted;
    for (const { name } of partitions)
      deleted += await pruneDeliveries(
        db,
        name,
        batch.map((workspace) => workspace.id as WorkspaceId),
        cutoff,
      );
    after = batch.at(-1)!.id;
  }
}

/**
 * Deletes the finished deliveries of `workspaceIds` older than `cutoff` in one partition of the table.
 * Named by workspace so that it reads only their old entries of the `(workspace_id, created_at)` index:
 * by time alone, the hourly run read the whole index, 30 days of deliveries to delete an hour of them.
 * Resolves the rows deleted.
 */
export async function pruneDeliveries(
  db: Executor,
  partition: string,
  workspaceIds: readonly WorkspaceId[],
  cutoff: Date,
) {
  const result = await sql`
    DELETE FROM ${sql.table(partition)}
     WHERE workspace_id = ANY(${workspaceIds}::text[]) AND created_at < ${cutoff} AND status <> 'pending'`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * Pending deliveries of a dropped week that are kept, at most this many: written again through the
 * table, under the drop's exclusive lock on it. With more, the week stays (see keepPendingDeliveries).
 */
const PENDING_MOVE_LIMIT = 10_000;

/**
 * Whether a week of deliveries may be dropped as far as its pending deliveries go, read before the drop
 * locks the table: a week left for its backlog is not detached and put back every hour, holding every
 * delivery's writes each time.
 */
export async function fewPendingDeliveries(db: Executor, partition: string): Promise<boolean> {
  return (await pendingIn(db, partition)) <= PENDING_MOVE_LIMIT;
}

/** The pending deliveries of one partition, counted up to one past PENDING_MOVE_LIMIT. */
function pendingIn(db: Executor, partition: string): Promise<number> {
  return countUpTo(db, pendingRowsOf(partition), PENDING_MOVE_LIMIT);
}

/** The rows of a partition's pending deliveries, as a FROM clause. */
function pendingRowsOf(partition: string) {
  return sql`${sql.table(partition)} WHERE status = 'pending'`;
}

/**
 * Run on a week of deliveries once detached, before it is dropped: its pending deliveries, the backlog of
 * a paused endpoint (every other delivery is finished within the retry window), are written again through
 * the table, where they land in the DEFAULT partition, the week's range having no partition any more. So
 * dropping a week never loses a delivery still to send. Resolves false, leaving the week for the next run
 * (its finished deliveries are then deleted one by one), when it has more than PENDING_MOVE_LIMIT of them:
 * writing them would hold every delivery's writes for that long.
 */
export async function keepPendingDeliveries(trx: Transaction<Database>, partition: string): Promise<boolean> {
  const pending = await pendingIn(trx, partition);
  if (pending > PENDING_MOVE_LIMIT) return false;
  if (pending > 0) {
    // By name: the partition of the time before weeks is an older table, whose columns may be in another order.
    const columns = sql.join((await columnsOf(trx, DELIVERY_PARTITIONS.table)).map((column) => sql.ref(column)));
    await sql`INSERT INTO webhook_deliveries (${columns}) SELECT ${columns} FROM ${pendingRowsOf(partition)}`.execute(
      trx,
    );
  }
  return true;
}

/**
 * Enqueues a delivery job for every pending delivery that has none waiting or running (the key is the
 * one `scheduleDelivery` uses). Resolves how many it enqueued. The key's unique index alone tells which
 * have one, a probe a delivery: a lookup of the jobs planned as a join or a scan compared every pending
 * delivery with every delivery job when the planner took a week's partition, not yet analyzed, for a few
 * rows (14.4 s for a paused endpoint's 10,000; 9.1 s while the statement's own jobs were being written).
 */
export async function requeueOrphanedDeliveries(db: Executor): Promise<number> {
  const { rows } = await sql<{ id: bigint }>`
    INSERT INTO jobs (kind, workspace_id, payload, unique_key)
    SELECT ${DELIVER_WEBHOOK_JOB}, d.workspace_id, jsonb_build_object('eventId', d.event_id, 'at', d.created_at), d.workspace_id || '/' || d.event_id
      FROM webhook_deliveries d
     WHERE d.status = 'pending'
    ON CONFLICT (kind, unique_key) WHERE unique_key IS NOT NULL AND failed_at IS NULL DO NOTHING
    RETURNING id`.execute(db);
  return rows.length;
}

/**
 * Deliveries still being retried and those that gave up, across all workspaces, for the operator's
 * /metrics (counts only). Each count reads its own partial index, never the delivered history.
 */
export async function webhookDeliveryBacklog(db: Executor): Promise<{ pending: number; failed: number }> {
  const count = (status: 'pending' | 'failed') =>
    db
      .selectFrom('webhook_deliveries')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('status', '=', status);
  const row = await db
    .selectNoFrom([count('pending').as('pending'), count('failed').as('failed')])
    .executeTakeFirstOrThrow();
  return { pending: row.pending ?? 0, failed: row.failed ?? 0 };
}
