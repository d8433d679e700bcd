import type { Generated } from 'kysely';

export interface ReceivedTransferTable {
  workspace_id: string;
  id: string;
  network: string;
  tx_hash: string;
  log_index: number;
  from_address: string;
  to_address: string;
  amount: bigint;
  block_number: bigint;
  block_time: Date;
  status: string;
  reason: string;
  invoice_id: string | null;
  applied_invoice_id: string | null;
  payment_intent_id: string | null;
  note: string | null;
  created_at: Date;
  resolved_at: Date | null;
}

export interface TransferScanTable {
  network: string;
  next_block: bigint | null;
  updated_at: Generated<Date>;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    received_transfers: ReceivedTransferTable;
    transfer_scans: TransferScanTable;
  }
}
