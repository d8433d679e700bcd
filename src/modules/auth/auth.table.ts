import type { ColumnType } from 'kysely';

export interface AuthNonceTable {
  nonce: string;
  created_at: ColumnType<Date, never, never>;
  used_at: Date | null;
}

export interface SessionTable {
  token_hash: Buffer;
  wallet_address: string;
  created_at: ColumnType<Date, never, never>;
  expires_at: Date;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    auth_nonces: AuthNonceTable;
    sessions: SessionTable;
  }
}
