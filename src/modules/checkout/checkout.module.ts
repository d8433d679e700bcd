import type { Network } from '../../chain/networks.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { PaymentService } from '../payment-engine/index.js';
import { CheckoutService, type GasPayer } from './checkout.service.js';
import { purchasePaymentRoutes } from './purchase-payment.routes.js';

export interface CheckoutModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly networks: readonly Network[];
  readonly payments: PaymentService;
  /** Whether gasless payments are offered on a network now. */
  readonly relayer: GasPayer;
}

/**
 * The buyer's side of a payment: the page data and the payment of a credit purchase from the portal.
 * The public checkout routes (checkoutRoutes) are registered by the app, which hands them the page.
 */
export function checkoutModule(deps: CheckoutModuleDeps) {
  const checkout = new CheckoutService(deps);
  return { checkout, routes: purchasePaymentRoutes({ checkout }) };
}
