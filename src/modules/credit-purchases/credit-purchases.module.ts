import type { Network } from '../../chain/networks.js';
import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { creditPurchaseRoutes } from './credit-purchase.routes.js';
import { CreditPurchaseService, type CreditPurchaseServiceDeps } from './credit-purchase.service.js';
import { PurchaseOrderBook } from './purchase.payable.js';

export interface CreditPurchasesModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'creditPackages' | 'operatorWallet' | 'publicBaseUrl'>;
  readonly networks: readonly Network[];
  /** The payment engine's latest attempt at each purchase: the engine pays them, the purchases show it. */
  readonly attempts: CreditPurchaseServiceDeps['attempts'];
}

/** Credit purchases: their use cases and routes, and the book the payment engine pays them through. */
export function creditPurchasesModule(deps: CreditPurchasesModuleDeps) {
  const { db, config, networks } = deps;
  const creditPurchases = new CreditPurchaseService({
    db,
    clock: deps.clock,
    packages: config.creditPackages,
    operatorWallet: config.operatorWallet,
    networks,
    publicBaseUrl: config.publicBaseUrl,
    attempts: deps.attempts,
  });
  return {
    creditPurchases,
    orderBook: new PurchaseOrderBook({
      db,
      networks,
      operatorWallet: config.operatorWallet,
      purchases: creditPurchases,
    }),
    routes: creditPurchaseRoutes({ creditPurchases }),
  };
}
