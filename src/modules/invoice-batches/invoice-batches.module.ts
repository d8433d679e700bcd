import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { InvoiceService } from '../invoices/index.js';
import { invoiceBatchRoutes } from './batch.routes.js';
import { InvoiceBatchService } from './batch.service.js';

export interface InvoiceBatchesModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'publicBaseUrl' | 'invoiceRetentionDays'>;
  readonly invoices: InvoiceService;
}

/** Up to 25 invoices in one request (a merchant API plugin). */
export function invoiceBatchesModule(deps: InvoiceBatchesModuleDeps) {
  const invoiceBatches = new InvoiceBatchService({ db: deps.db, clock: deps.clock, invoices: deps.invoices });
  return {
    invoiceBatches,
    merchantRoutes: invoiceBatchRoutes({ invoiceBatches, config: deps.config, clock: deps.clock }),
  };
}
