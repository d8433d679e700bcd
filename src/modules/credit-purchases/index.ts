/** What other modules may use of credit purchases; everything else is the module's own. */
export {
  PURCHASE_STATUSES,
  effectiveStatus,
  transition,
  type CreditPurchase,
  type CreditPurchaseId,
  type PurchaseCommand,
  type PurchaseStatus,
  type PurchaseTransition,
} from './credit-purchase.js';
export type { CreditPurchaseView } from './credit-purchase.present.js';
export { findPurchase } from './credit-purchase.repo.js';
export { creditPurchaseRoutes } from './credit-purchase.routes.js';
export { CreditPurchaseService } from './credit-purchase.service.js';
export type { CreditPurchaseTable } from './credit-purchase.table.js';
