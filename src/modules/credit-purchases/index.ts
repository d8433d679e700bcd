/**
 * What other modules may use of credit purchases; everything else is the module's own. The payment
 * engine reads a purchase (findPurchase, effectiveStatus) and reports its payment steps through
 * CreditPurchaseService.applyPaymentStep.
 */
export {
  PURCHASE_NONCE_VERSION,
  effectiveStatus,
  type CreditPurchase,
  type CreditPurchaseId,
  type PurchaseCommand,
  type PurchaseTransition,
} from './credit-purchase.js';
export { findPurchase } from './credit-purchase.repo.js';
export { creditPurchaseRoutes } from './credit-purchase.routes.js';
export { CreditPurchaseService } from './credit-purchase.service.js';
export { CreditPurchaseView } from './credit-purchase.schemas.js';
export { CREDIT_PURCHASE_EXAMPLE, PURCHASE_ID_EXAMPLE } from './credit-purchase.examples.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { PurchasePage } from './credit-purchase.schemas.js';
