import type { Generated } from 'kysely';

export interface WebhookDeliveryTable {
  workspace_id: string;
  event_id: string;
  type: string;
  invoice_id: string | null;
  body: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  window_started_at: Date;
  delivered_at: Date | null;
  created_at: Date;
}

export interface WebhookAttemptTable {
  workspace_id: string;
  id: Generated<bigint>;
  event_id: string;
  invoice_id: string | null;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    webhook_deliveries: WebhookDeliveryTable;
    webhook_attempts: WebhookAttemptTable;
  }
}
