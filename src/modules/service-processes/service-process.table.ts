import type { ColumnType } from 'kysely';
import type { Role } from '../../config/config.js';

export interface ServiceProcessTable {
  id: string;
  role: Role;
  started_at: ColumnType<Date, never, never>;
  /** Set by the database (now()) on every heartbeat. */
  seen_at: ColumnType<Date, never, Date>;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    service_processes: ServiceProcessTable;
  }
}
