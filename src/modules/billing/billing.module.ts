import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import { billingRoutes } from './billing.routes.js';
import { BillingService, type BillingServiceDeps } from './billing.service.js';

export interface BillingModuleDeps {
  readonly db: Db;
  readonly config: Pick<Config, 'maxInvoiceAmount' | 'successFeeCredits' | 'creditPackages'>;
  readonly invoiceNumbers: BillingServiceDeps['invoiceNumbers'];
}

/** Credits: the balance, the ledger and what things cost. */
export function billingModule(deps: BillingModuleDeps) {
  const billing = new BillingService({
    db: deps.db,
    maxInvoiceAmount: deps.config.maxInvoiceAmount,
    successFeeCredits: deps.config.successFeeCredits,
    creditPackages: deps.config.creditPackages,
    invoiceNumbers: deps.invoiceNumbers,
  });
  return { billing, routes: billingRoutes({ billing }) };
}
