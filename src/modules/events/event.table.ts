import type { ColumnType } from 'kysely';

export interface EventTable {
  workspace_id: string;
  id: bigint;
  type: string;
  invoice_id: string | null;
  payment_intent_id: string | null;
  data: ColumnType<unknown, string, string>;
  created_at: Date;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    events: EventTable;
  }
}
