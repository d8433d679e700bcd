export interface InvoiceBatchTable {
  workspace_id: string;
  idempotency_key: string;
  request_hash: Buffer;
  item_count: number;
  created_at: Date;
  evicted_at: Date | null;
}
