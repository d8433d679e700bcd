import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { invoiceSearchRoutes } from './search.routes.js';
import { InvoiceSearchService } from './search.service.js';

export interface InvoiceSearchModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'publicBaseUrl' | 'invoiceRetentionDays'>;
}

/** Finding invoices by number, reference, amount or payer. */
export function invoiceSearchModule(deps: InvoiceSearchModuleDeps) {
  const invoiceSearch = new InvoiceSearchService({
    db: deps.db,
    clock: deps.clock,
    publicBaseUrl: deps.config.publicBaseUrl,
    invoiceRetentionDays: deps.config.invoiceRetentionDays,
  });
  return { invoiceSearch, routes: invoiceSearchRoutes({ invoiceSearch }) };
}
