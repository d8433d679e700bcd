import type { ColumnType, Generated } from 'kysely';

export interface WorkspaceTable {
  id: string;
  name: string;
  description: Generated<string>;
  wallet_address: string;
  created_at: ColumnType<Date, never, never>;
  invoice_seq: Generated<bigint>;
  event_seq: Generated<bigint>;
  /** The change feed's retention bound: every event with id <= this is gone (events module). */
  events_pruned_through: Generated<bigint>;
  return_origins: Generated<string[]>;
  support_contact: string | null;
  accent_color: string | null;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    workspaces: WorkspaceTable;
  }
}
