/** What other modules may use of checkout, the buyer's side of a payment; everything else is the module's own. */
export { checkoutRoutes, type CheckoutPage } from './checkout.routes.js';
export type { AuthorizationBody, CheckoutView } from './checkout.schemas.js';
export { CheckoutService } from './checkout.service.js';
export { checkoutModule } from './checkout.module.js';
