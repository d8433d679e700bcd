export interface RateLimitCounterTable {
  bucket: string;
  subject: string;
  hits: number;
  window_ends: Date;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    rate_limit_counters: RateLimitCounterTable;
  }
}
