import type { ColumnType, Generated } from 'kysely';

export interface CreditAccountTable {
  workspace_id: string;
  balance: bigint;
  reserved: Generated<bigint>;
}

export interface CreditLedgerTable {
  workspace_id: string;
  id: ColumnType<bigint, never, never>;
  kind: string;
  balance_change: Generated<bigint>;
  reserve_change: Generated<bigint>;
  reference: string | null;
  created_at: ColumnType<Date, never, never>;
}
