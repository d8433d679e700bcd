import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { TEST_EVENT_TYPE } from '../webhooks/index.js';
import type { HealthFacts } from './health.js';

/** Ledger entries walked back to find when credits went low: bounds the work of one GET /issues. */
const LEDGER_WINDOW = 1000;

interface Row {
  available_credits: bigint | null;
  credits_low_since: Date | null;
  delayed_count: bigint;
  delayed_since: Date | null;
  reverted_count: bigint;
  reverted_since: Date | null;
  reverted_invoice: string | null;
  overpaid_count: bigint;
  overpaid_since: Date | null;
  unmatched_count: bigint;
  unmatched_since: Date | null;
  failed_count: bigint;
  failed_since: Date | null;
  retrying_count: bigint;
  retrying_since: Date | null;
  pending_count: bigint;
  endpoint_enabled: boolean | null;
  paused_since: Date | null;
  automations_paused: bigint;
  automations_paused_since: Date | null;
  automation_paused_reason: string | null;
}

/**
 * Everything GET /issues needs, in one statement (one snapshot, one round trip). Resolves undefined
 * when the workspace does not exist.
 *
 * When credits went low — derived, since no table records it: available credits after each ledger entry
 * are reconstructed backwards from today's balance − reserve (entry k leaves "today − the changes of
 * the entries after k"). `since` is the creation time of the latest entry that took them from at or
 * above `creditThreshold` to below it. When no entry among the latest LEDGER_WINDOW did (credits were
 * below throughout, e.g. a grant smaller than the threshold), it is the oldest of those entries: the
 * credits have been low at least since then. Ledger times are the database's transaction times.
 *
 * Delayed verifications count only payments that hold their invoice: a submitted hash not found in a
 * block yet holds nothing and is dropped by itself.
 *
 * Paused automations: the reason reported is the first pause by something other than the owner, when
 * there is one (a pause by the owner is no fault, and must not hide one).
 *
 * Deliveries: `webhook.test` rows never count. A failed delivery's `since` is its last attempt (when it
 * was given up). A retrying one's is its creation, when its first attempt was due; that attempt ran
 * later only if delivery was paused, so this may be early, never late.
 */
export async function readHealthFacts(
  db: Executor,
  workspaceId: WorkspaceId,
  limits: {
    readonly creditThreshold: number;
    readonly submittedBefore: Date;
    readonly overpaidAfter: Date;
    readonly revertedAfter: Date;
  },
): Promise<HealthFacts | undefined> {
  const threshold = limits.creditThreshold;
  const { rows } = await sql<Row>`
    WITH ledger AS (
      SELECT id, created_at, balance_change - reserve_change AS delta
        FROM credit_ledger WHERE workspace_id = ${workspaceId}
       ORDER BY id DESC LIMIT ${LEDGER_WINDOW}
    ), walk AS (
      SELECT l.id, l.created_at, l.delta, a.available - sum(l.delta) OVER (ORDER BY l.id DESC) AS before_entry
        FROM ledger l
       CROSS JOIN (SELECT balance - reserved AS available FROM credit_accounts WHERE workspace_id = ${workspaceId}) a
    )
    SELECT c.balance - c.reserved AS available_credits,
           CASE WHEN c.balance - c.reserved < ${threshold} THEN coalesce(
             (SELECT created_at FROM walk WHERE before_entry >= ${threshold} AND before_entry + delta < ${threshold} ORDER BY id DESC LIMIT 1),
             (SELECT created_at FROM walk ORDER BY id LIMIT 1)
           ) END AS credits_low_since,
           p.delayed_count, p.delayed_since, r.reverted_count, r.reverted_since, r.reverted_invoice, o.overpaid_count, o.overpaid_since, rt.unmatched_count, rt.unmatched_since,
           d.failed_count, d.failed_since, d.retrying_count, d.retrying_since, d.pending_count,
           e.enabled AS endpoint_enabled, coalesce(e.paused_at, e.updated_at) AS paused_since,
           au.automations_paused, au.automations_paused_since, au.automation_paused_reason
      FROM workspaces w
      LEFT JOIN credit_accounts c ON c.workspace_id = w.id
      LEFT JOIN webhook_endpoints e ON e.workspace_id = w.id
     CROSS JOIN LATERAL (
       SELECT count(*) AS delayed_count, min(submitted_at) AS delayed_since
         FROM payment_intents
        WHERE workspace_id = w.id AND invoice_id IS NOT NULL AND status = 'processing' AND holds_invoice
          AND submitted_at < ${limits.submittedBefore}
     ) p
     CROSS JOIN LATERAL (
       SELECT count(*) AS reverted_count, min(finished_at) AS reverted_since,
              (array_agg(invoice_id ORDER BY finished_at DESC))[1] AS reverted_invoice
         FROM payment_intents
        WHERE workspace_id = w.id AND invoice_id IS NOT NULL AND status = 'reverted' AND finished_at > ${limits.revertedAfter}
     ) r
     CROSS JOIN LATERAL (
       SELECT count(*) AS overpaid_count, min(finished_at) AS overpaid_since
         FROM payment_intents
        WHERE workspace_id = w.id AND invoice_id IS NOT NULL AND overpayment AND finished_at > ${limits.overpaidAfter}
     ) o
     CROSS JOIN LATERAL (
       SELECT count(*) AS unmatched_count, min(created_at) AS unmatched_since
         FROM received_transfers
        WHERE workspace_id = w.id AND status = 'unmatched'
     ) rt
     CROSS JOIN LATERAL (
       SELECT count(*) FILTER (WHERE status = 'failed') AS failed_count,
              min(coalesce(last_attempt_at, created_at)) FILTER (WHERE status = 'failed') AS failed_since,
              count(*) FILTER (WHERE status = 'pending' AND attempts >= 1 AND last_error IS NOT NULL) AS retrying_count,
              min(created_at) FILTER (WHERE status = 'pending' AND attempts >= 1 AND last_error IS NOT NULL) AS retrying_since,
              count(*) FILTER (WHERE status = 'pending') AS pending_count
         FROM webhook_deliveries
        WHERE workspace_id = w.id AND status IN ('failed', 'pending') AND type <> ${TEST_EVENT_TYPE}
     ) d
     CROSS JOIN LATERAL (
       SELECT count(*) AS automations_paused, min(paused_at) AS automations_paused_since,
              (array_agg(paused_reason->>'code' ORDER BY paused_reason->>'code' = 'paused_by_owner', paused_at))[1]
                AS automation_paused_reason
         FROM automations
        WHERE workspace_id = w.id AND status = 'paused'
     ) au
     WHERE w.id = ${workspaceId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    ...(row.credits_low_since !== null && {
      lowCredits: { available: Number(row.available_credits), threshold, since: row.credits_low_since },
    }),
    delayedVerifications: { count: Number(row.delayed_count), since: row.delayed_since },
    overpayments: { count: Number(row.overpaid_count), since: row.overpaid_since },
    revertedPayments: {
      count: Number(row.reverted_count),
      since: row.reverted_since,
      latestInvoiceId: row.reverted_invoice,
    },
    unmatchedTransfers: { count: Number(row.unmatched_count), since: row.unmatched_since },
    failedDeliveries: { count: Number(row.failed_count), since: row.failed_since },
    retryingDeliveries: { count: Number(row.retrying_count), since: row.retrying_since },
    pausedAutomations: {
      count: Number(row.automations_paused),
      since: row.automations_paused_since,
      reason: row.automation_paused_reason,
    },
    ...(row.endpoint_enabled === false && {
      pausedEndpoint: { since: row.paused_since!, backlog: Number(row.pending_count) },
    }),
  };
}
