import type { ColumnType, Generated } from 'kysely';

export interface PaymentIntentTable {
  workspace_id: string;
  id: string;
  /** Exactly one of invoice_id and credit_purchase_id: the order this attempt pays. */
  invoice_id: string | null;
  credit_purchase_id: string | null;
  method: string;
  status: string;
  failure_reason: string | null;
  network: string;
  amount: bigint;
  amount_received: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  pay_to: string;
  payer: string | null;
  link_version: number;
  authorization_data: ColumnType<unknown, string | null, string | null>;
  settlement_raw: string | null;
  payment_identifier: ColumnType<string | null, string | null | undefined, string | null>;
  tx_hash: string | null;
  log_index: number | null;
  block_number: bigint | null;
  block_hash: string | null;
  finalized_at: Date | null;
  block_time: Date | null;
  submitted_at: Date;
  found_at: Date | null;
  holds_invoice: Generated<boolean>;
  overpayment: Generated<boolean>;
  finished_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface PaymentClaimTable {
  network: string;
  tx_hash: string;
  log_index: number;
  workspace_id: string;
  payment_intent_id: string;
  created_at: Generated<Date>;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    payment_intents: PaymentIntentTable;
    payment_claims: PaymentClaimTable;
  }
}
