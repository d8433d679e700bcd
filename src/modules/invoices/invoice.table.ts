export interface InvoiceTable {
  workspace_id: string;
  id: string;
  number: bigint;
  status: string;
  amount: bigint;
  currency: string;
  network: string | null;
  expires_in: number;
  expires_at: Date;
  link_version: number;
  external_id: string | null;
  success_url: string | null;
  cancel_url: string | null;
  pay_to: string;
  source: string;
  fee_reserved: bigint;
  created_at: Date;
  updated_at: Date;
  paid_at: Date | null;
  expired_at: Date | null;
  cancelled_at: Date | null;
  automation_id: string | null;
  occurrence: number | null;
  description: string | null;
}

// The module's table in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    invoices: InvoiceTable;
  }
}
