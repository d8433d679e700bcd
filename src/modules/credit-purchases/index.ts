/**
 * What other modules may use of credit purchases; everything else is the module's own. The payment
 * engine pays purchases through PurchaseOrderBook, which src/main hands to it.
 */
export type { CreditPurchaseId } from './credit-purchase.js';
export { CreditPurchaseService } from './credit-purchase.service.js';
export { CreditPurchaseView } from './credit-purchase.schemas.js';
export { CREDIT_PURCHASE_EXAMPLE, PURCHASE_ID_EXAMPLE } from './credit-purchase.examples.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { PurchasePage } from './credit-purchase.schemas.js';
export { creditPurchasesModule } from './credit-purchases.module.js';
