import type { Generated } from 'kysely';

/** The order an accepted EIP-3009 authorization pays (payment_authorizations); authorizer and nonce lowercase. */
export interface PaymentAuthorizationTable {
  network: string;
  authorizer: string;
  nonce: string;
  workspace_id: string;
  invoice_id: string | null;
  credit_purchase_id: string | null;
  created_at: Generated<Date>;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    payment_authorizations: PaymentAuthorizationTable;
  }
}
