import type { Clock } from '../../shared/clock.js';
import type { PaymentService } from '../payment-engine/index.js';
import { invoiceChangePortalRoutes } from './invoice-changes.portal-routes.js';
import { paymentIntentRoutes } from './payment.routes.js';

/** The merchant's reads of the engine's records: payment intents and the portal's live invoice list. */
export function paymentViewsModule(deps: { readonly clock: Clock; readonly payments: PaymentService }) {
  return {
    merchantRoutes: paymentIntentRoutes(deps),
    portalRoutes: invoiceChangePortalRoutes(deps),
  };
}
