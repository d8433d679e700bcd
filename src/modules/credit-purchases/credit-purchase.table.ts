export interface CreditPurchaseTable {
  workspace_id: string;
  id: string;
  package_id: string;
  credits: bigint;
  price: bigint;
  status: string;
  pay_to: string;
  network: string | null;
  expires_at: Date;
  created_at: Date;
  paid_at: Date | null;
  source: string;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    credit_purchases: CreditPurchaseTable;
  }
}
