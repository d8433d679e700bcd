export interface InvoiceBatchTable {
  workspace_id: string;
  idempotency_key: string;
  request_hash: Buffer;
  item_count: number;
  created_at: Date;
  evicted_at: Date | null;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    invoice_batches: InvoiceBatchTable;
  }
}
