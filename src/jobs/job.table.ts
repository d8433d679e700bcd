import type { ColumnType, Generated } from 'kysely';

export interface JobTable {
  id: ColumnType<bigint, never, never>;
  kind: string;
  workspace_id: string | null;
  payload: ColumnType<unknown, string, string>;
  unique_key: string | null;
  run_at: Generated<Date>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  /** What wakes the job before `run_at` (a new block), while it waits for it. */
  wake_on: string | null;
  failed_at: Date | null;
  created_at: ColumnType<Date, never, never>;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../db/database.js' {
  interface Database {
    jobs: JobTable;
  }
}
