import type { ColumnType, Generated } from 'kysely';

export interface CreditAccountTable {
  workspace_id: string;
  balance: bigint;
  reserved: Generated<bigint>;
  /** The wallet's first workspace: the only one that receives the new-workspace grant. */
  first_of_wallet: Generated<boolean>;
}

export interface CreditLedgerTable {
  workspace_id: string;
  id: ColumnType<bigint, never, never>;
  /** 1, 2, … within the workspace, filled in by the database (trigger credit_ledger_position). */
  seq: ColumnType<bigint, never, never>;
  kind: string;
  balance_change: Generated<bigint>;
  reserve_change: Generated<bigint>;
  /** The balance this entry left, filled in by the database from the account row the writer changed. */
  balance_after: ColumnType<bigint, never, never>;
  /** What the entry was for: an invoice id or a credit purchase id. */
  reference: string | null;
  /** Why, in words: a manual grant's reason, the new-workspace grant. */
  reason: string | null;
  created_at: ColumnType<Date, never, never>;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    credit_accounts: CreditAccountTable;
    credit_ledger: CreditLedgerTable;
  }
}
