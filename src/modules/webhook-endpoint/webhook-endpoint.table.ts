import type { Generated } from 'kysely';

export interface WebhookEndpointTable {
  workspace_id: string;
  url: string;
  enabled: boolean;
  secret: string;
  secret_created_at: Date;
  last_test_at: Date | null;
  paused_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

// The module's table in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    webhook_endpoints: WebhookEndpointTable;
  }
}
