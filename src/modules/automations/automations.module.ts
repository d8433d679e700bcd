import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { JobHandlers } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { LogTarget } from '../../shared/operator-log.js';
import type { InvoiceService } from '../invoices/index.js';
import { RUN_AUTOMATION_JOB, runAutomationHandler } from './automation.jobs.js';
import { automationRoutes } from './automation.routes.js';
import { AutomationService } from './automation.service.js';

export interface AutomationsModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'publicBaseUrl' | 'invoiceRetentionDays'>;
  readonly invoices: InvoiceService;
  readonly log: LogTarget;
}

/** Invoices on a schedule: their routes and the job that creates each occurrence. */
export function automationsModule(deps: AutomationsModuleDeps) {
  const automations = new AutomationService({
    db: deps.db,
    clock: deps.clock,
    invoices: deps.invoices,
    publicBaseUrl: deps.config.publicBaseUrl,
    invoiceRetentionDays: deps.config.invoiceRetentionDays,
    log: deps.log,
  });
  return {
    automations,
    routes: automationRoutes({ automations }),
    jobs: { [RUN_AUTOMATION_JOB]: runAutomationHandler(automations) } satisfies JobHandlers,
  };
}
