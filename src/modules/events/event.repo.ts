import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { queueNewEventDeliveries, type WebhookEventInput } from '../webhooks/index.js';
import { isWebhookKind, kindSpec, type NewEvent, type WorkspaceEvent } from './event.js';

/**
 * Appends one event to the workspace's change feed inside the caller's transaction and, for webhook
 * kinds, queues its delivery there too. Resolves the event id.
 */
export async function append(trx: Executor, workspaceId: WorkspaceId, event: NewEvent): Promise<bigint> {
  const [id] = await appendAll(trx, [{ ...event, workspaceId }]);
  return id!;
}

/**
 * Appends events, of one workspace or several, in one statement inside the caller's transaction, and
 * queues the deliveries of webhook kinds in a second. Resolves their ids in the order given. The application's way
 * to the SQL function append_event, which writes every event. Invoice creation's group commit
 * (create_invoice_group) calls append_event in the database for its `invoice.created` events, with ids
 * it took from the same counter under the same row lock; no delivery can be queued there, so that kind
 * is not a webhook kind (see event.ts).
 *
 * Ids come from each workspace's `event_seq` counter, bumped there: its row lock, held to commit, makes
 * commit order equal id order within a workspace, so a feed reader that sees id n sees every id below
 * n. Events of one workspace get consecutive ids in the order given.
 */
export async function appendAll(trx: Executor, events: readonly WorkspaceEvent[]): Promise<bigint[]> {
  if (events.length === 0) return [];
  for (const event of events) kindSpec(event.type);
  const rows = events.map((event, ord) => ({
    ord,
    workspace_id: event.workspaceId,
    type: event.type,
    invoice_id: event.invoiceId,
    payment_intent_id: event.paymentIntentId ?? null,
    data: event.data,
    created_at: event.at,
  }));
  const { rows: ids } = await sql<{
    ord: number;
    id: bigint;
  }>`SELECT ord, id FROM append_events(${JSON.stringify(rows)}::jsonb)`.execute(trx);
  if (ids.length !== events.length) throw new Error('an event names a workspace that does not exist');
  await queueNewEventDeliveries(
    trx,
    events.flatMap((event, index) => (isWebhookKind(event.type) ? [{ ...event, eventId: ids[index]!.id }] : [])),
  );
  return ids.map((row) => row.id);
}

/**
 * A retained event of a webhook kind, as the webhook outbox needs it to (re)build a delivery; undefined
 * for no event or another kind.
 */
export async function findWebhookEvent(
  db: Executor,
  workspaceId: WorkspaceId,
  id: bigint,
): Promise<WebhookEventInput | undefined> {
  const row = await db
    .selectFrom('events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    // Retired by retention, whether or not its row is dropped yet (event-retention.repo.ts).
    .where('id', '>', (eb) =>
      eb.selectFrom('workspaces').select('events_pruned_through').where('workspaces.id', '=', workspaceId),
    )
    .executeTakeFirst();
  if (!row || !isWebhookKind(row.type)) return undefined;
  return { eventId: row.id, type: row.type, invoiceId: row.invoice_id, data: row.data, at: row.created_at };
}
