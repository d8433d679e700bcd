import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { Automation, AutomationId, AutomationStatus, InvoiceTemplate, PausedReason } from './automation.js';
import type { Period } from './schedule.js';

type Row = Awaited<ReturnType<ReturnType<typeof selectAutomation>['executeTakeFirst']>>;

function selectAutomation(db: Executor, workspaceId: WorkspaceId) {
  return db.selectFrom('automations').selectAll().where('workspace_id', '=', workspaceId);
}

function toAutomation(row: NonNullable<Row>): Automation {
  return {
    workspaceId: row.workspace_id as WorkspaceId,
    id: row.id as AutomationId,
    name: row.name,
    template: row.template as InvoiceTemplate,
    schedule: {
      every: row.every as Period,
      interval: row.interval_count,
      startAt: row.start_at,
      endAt: row.end_at,
      maxOccurrences: row.max_occurrences,
    },
    status: row.status as AutomationStatus,
    pausedReason: row.paused_reason as PausedReason | null,
    nextOccurrence: row.next_occurrence,
    occurrences: row.occurrences,
    skipped: row.skipped,
    lastInvoiceId: row.last_invoice_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertAutomation(db: Executor, automation: Automation): Promise<void> {
  const { schedule } = automation;
  await db
    .insertInto('automations')
    .values({
      workspace_id: automation.workspaceId,
      id: automation.id,
      name: automation.name,
      template: JSON.stringify(automation.template),
      every: schedule.every,
      interval_count: schedule.interval,
      start_at: schedule.startAt,
      end_at: schedule.endAt,
      max_occurrences: schedule.maxOccurrences,
      status: automation.status,
      paused_reason: null,
      paused_at: null,
      next_occurrence: automation.nextOccurrence,
      occurrences: automation.occurrences,
      skipped: automation.skipped,
      last_invoice_id: null,
      created_at: automation.createdAt,
      updated_at: automation.updatedAt,
    })
    .execute();
}

export async function findAutomation(
  db: Executor,
  workspaceId: WorkspaceId,
  id: AutomationId,
  lock = false,
): Promise<Automation | undefined> {
  const row = await selectAutomation(db, workspaceId)
    .where('id', '=', id)
    .$if(lock, (q) => q.forUpdate())
    .executeTakeFirst();
  return row && toAutomation(row);
}

/** Newest first; only those older than `before` (the previous page's last) when given. */
export async function listAutomations(
  db: Executor,
  workspaceId: WorkspaceId,
  page: { limit: number; before: { createdAt: Date; id: AutomationId } | null },
): Promise<Automation[]> {
  const { before } = page;
  const rows = await selectAutomation(db, workspaceId)
    .$if(before !== null, (q) =>
      q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(before!.createdAt, before!.id))),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map(toAutomation);
}

export type AutomationChanges = Partial<
  Pick<
    Automation,
    'name' | 'template' | 'status' | 'pausedReason' | 'nextOccurrence' | 'occurrences' | 'skipped' | 'lastInvoiceId'
  > & { endAt: Date | null; maxOccurrences: number | null }
>;

export async function updateAutomation(
  db: Executor,
  automation: Automation,
  changes: AutomationChanges,
  at: Date,
): Promise<Automation> {
  const pausing = changes.status === 'paused' && automation.status !== 'paused';
  const row = await db
    .updateTable('automations')
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.template !== undefined && { template: JSON.stringify(changes.template) }),
      ...(changes.status !== undefined && { status: changes.status }),
      ...(changes.pausedReason !== undefined && {
        paused_reason: changes.pausedReason === null ? null : JSON.stringify(changes.pausedReason),
      }),
      ...(pausing && { paused_at: at }),
      ...(changes.status !== undefined && changes.status !== 'paused' && { paused_at: null }),
      ...(changes.nextOccurrence !== undefined && { next_occurrence: changes.nextOccurrence }),
      ...(changes.occurrences !== undefined && { occurrences: changes.occurrences }),
      ...(changes.skipped !== undefined && { skipped: changes.skipped }),
      ...(changes.lastInvoiceId !== undefined && { last_invoice_id: changes.lastInvoiceId }),
      ...(changes.endAt !== undefined && { end_at: changes.endAt }),
      ...(changes.maxOccurrences !== undefined && { max_occurrences: changes.maxOccurrences }),
      updated_at: at,
    })
    .where('workspace_id', '=', automation.workspaceId)
    .where('id', '=', automation.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAutomation(row);
}

/** The workspace's paused automations, oldest pause first (GET /issues). */
export async function pausedAutomations(
  db: Executor,
  workspaceId: WorkspaceId,
): Promise<{ id: string; name: string; reason: PausedReason | null; since: Date }[]> {
  const rows = await db
    .selectFrom('automations')
    .select(['id', 'name', 'paused_reason', 'paused_at', 'updated_at'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'paused')
    .orderBy('paused_at')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    reason: row.paused_reason as PausedReason | null,
    since: row.paused_at ?? row.updated_at,
  }));
}
