import type { Generated } from 'kysely';

export interface IdempotencyKeyTable {
  workspace_id: string;
  scope: string;
  key: string;
  request_hash: Buffer;
  response: unknown;
  created_at: Generated<Date>;
  expires_at: Date;
}

// The module's table in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    idempotency_keys: IdempotencyKeyTable;
  }
}
