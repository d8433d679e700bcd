import type { ColumnType } from 'kysely';

export interface AutomationTable {
  workspace_id: string;
  id: string;
  name: string;
  template: ColumnType<unknown, string, string>;
  every: string;
  interval_count: number;
  start_at: Date;
  end_at: Date | null;
  max_occurrences: number | null;
  status: string;
  paused_reason: ColumnType<unknown, string | null, string | null>;
  paused_at: Date | null;
  next_occurrence: number;
  occurrences: number;
  skipped: number;
  last_invoice_id: string | null;
  created_at: Date;
  updated_at: Date;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    automations: AutomationTable;
  }
}
