import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { InvoiceId, InvoiceStatus } from '../invoices/index.js';
import type { TimelineAttempt, TimelineEvent } from './timeline.js';

export type TimelineEntry =
  ({ readonly source: 'event' } & TimelineEvent) | ({ readonly source: 'attempt' } & TimelineAttempt);

export interface InvoiceTimeline {
  readonly status: InvoiceStatus;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  /** Since when the workspace has had a webhook endpoint (null: never): only later events had deliveries. */
  readonly webhooksSince: Date | null;
  /** The most recent entries, oldest first (events before attempts at the same instant). */
  readonly entries: TimelineEntry[];
}

interface Row {
  status: InvoiceStatus;
  expires_at: Date;
  created_at: Date;
  webhooks_since: Date | null;
  source: 'event' | 'attempt' | null;
  seq: bigint | null;
  at: Date | null;
  type: string | null;
  payment_intent_id: string | null;
  data: unknown;
  delivered_event_id: string | null;
  attempt: number | null;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
}

/**
 * The invoice and its `limit` most recent timeline entries in one statement: its feed events of
 * `eventTypes` (those the feed still has, above its retention bound, and those its retention moved to the
 * invoice history, at or below it) and its webhook attempts, merged by time. Each branch is cut to `limit`
 * first, so the merge never sorts more than 2 × limit rows. Resolves undefined when the workspace has no such invoice.
 * The attempt columns read are the safe diagnostics only; no response body is stored anyway.
 */
export async function readInvoiceTimeline(
  db: Executor,
  workspaceId: WorkspaceId,
  invoiceId: InvoiceId,
  eventTypes: readonly string[],
  limit: number,
): Promise<InvoiceTimeline | undefined> {
  const { rows } = await sql<Row>`
    SELECT i.status, i.expires_at, i.created_at,
           (SELECT w.created_at FROM webhook_endpoints w WHERE w.workspace_id = i.workspace_id) AS webhooks_since, r.*
      FROM invoices i
      LEFT JOIN LATERAL (
        SELECT * FROM (
          (SELECT 'event' AS source, e.id AS seq, e.created_at AS at, e.type, e.payment_intent_id, e.data,
                  NULL::text AS delivered_event_id, NULL::integer AS attempt, NULL::integer AS status_code,
                  NULL::text AS error, NULL::integer AS duration_ms
             FROM (SELECT id, created_at, type, payment_intent_id, data FROM events
                    WHERE workspace_id = i.workspace_id AND invoice_id = i.id
                      AND id > (SELECT events_pruned_through FROM workspaces WHERE id = i.workspace_id)
                   UNION ALL
                   SELECT event_id, created_at, type, payment_intent_id, data FROM invoice_history
                    WHERE workspace_id = i.workspace_id AND invoice_id = i.id
                      -- Retention copies a week before it raises the bound: above it, the feed's copy counts.
                      AND event_id <= (SELECT events_pruned_through FROM workspaces WHERE id = i.workspace_id)) e
            WHERE e.type = ANY (${eventTypes}::text[])
            ORDER BY e.created_at DESC, e.id DESC LIMIT ${limit})
          UNION ALL
          (SELECT 'attempt', a.id, a.started_at, NULL, NULL, NULL,
                  a.event_id, a.attempt, a.status_code, a.error, a.duration_ms
             FROM webhook_attempts a
            WHERE a.workspace_id = i.workspace_id AND a.invoice_id = i.id
            ORDER BY a.started_at DESC, a.id DESC LIMIT ${limit})
        ) merged
        ORDER BY merged.at DESC, merged.source = 'attempt' DESC, merged.seq DESC
        LIMIT ${limit}
      ) r ON true
     WHERE i.workspace_id = ${workspaceId} AND i.id = ${invoiceId}
     ORDER BY r.at, r.source = 'attempt', r.seq`.execute(db);
  const first = rows[0];
  if (!first) return undefined;
  return {
    status: first.status,
    expiresAt: first.expires_at,
    createdAt: first.created_at,
    webhooksSince: first.webhooks_since,
    entries: rows.filter((row) => row.source !== null).map(toEntry),
  };
}

function toEntry(row: Row): TimelineEntry {
  if (row.source === 'event') {
    return {
      source: 'event',
      id: row.seq!,
      type: row.type!,
      paymentIntentId: row.payment_intent_id,
      data: row.data,
      createdAt: row.at!,
    };
  }
  return {
    source: 'attempt',
    eventId: row.delivered_event_id!,
    attempt: row.attempt!,
    startedAt: row.at!,
    statusCode: row.status_code,
    error: row.error,
    durationMs: row.duration_ms!,
  };
}
