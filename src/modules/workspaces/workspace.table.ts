import type { ColumnType, Generated } from 'kysely';

export interface WorkspaceTable {
  id: string;
  name: string;
  description: Generated<string>;
  wallet_address: string;
  created_at: ColumnType<Date, never, never>;
  invoice_seq: Generated<bigint>;
  event_seq: Generated<bigint>;
  return_origins: Generated<string[]>;
}
