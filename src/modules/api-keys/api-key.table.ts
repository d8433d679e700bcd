import type { ColumnType } from 'kysely';

export interface ApiKeyTable {
  workspace_id: string;
  id: string;
  name: string;
  permissions: string[];
  recipient_address: string;
  secret_hash: Buffer;
  display_prefix: string;
  created_at: ColumnType<Date, never, never>;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    api_keys: ApiKeyTable;
  }
}
