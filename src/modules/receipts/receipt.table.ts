export interface ReceiptTable {
  workspace_id: string;
  number: bigint;
  invoice_id: string;
  issued_at: Date;
  voided_at: Date | null;
}

export interface ReceiptCounterTable {
  workspace_id: string;
  last_number: bigint;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    receipts: ReceiptTable;
    receipt_counters: ReceiptCounterTable;
  }
}
