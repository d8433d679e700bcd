import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { JobHandlers } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { LogTarget } from '../../shared/operator-log.js';
import { EVENT_RETENTION_JOB, eventRetentionHandler, scheduleEventRetention } from './change-feed.jobs.js';
import { changeFeedRoutes } from './change-feed.routes.js';

export interface EventsModuleDeps {
  readonly db: Db;
  /** Where feed pages read: a replica within DATABASE_READ_MAX_LAG_MS (src/db/read-replicas.ts); default `db`. */
  readonly reads?: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'eventRetentionDays' | 'invoiceRetentionDays'>;
  /** The operator's log: what each retention run dropped, and what it had to leave. */
  readonly log: LogTarget;
}

/** The change feed (a merchant API plugin) and the retention of its events. */
export function eventsModule(deps: EventsModuleDeps) {
  return {
    merchantRoutes: changeFeedRoutes({ db: deps.db, reads: deps.reads ?? deps.db }),
    jobs: {
      [EVENT_RETENTION_JOB]: eventRetentionHandler(
        deps.db,
        deps.clock,
        { eventDays: deps.config.eventRetentionDays, invoiceDays: deps.config.invoiceRetentionDays },
        deps.log,
      ),
    } satisfies JobHandlers,
    schedule: scheduleEventRetention,
  };
}
