/**
 * What other modules may use of payment views: the merchant's reads of the payment engine's records (a
 * payment intent) and the portal's live invoice list; everything else is the module's own.
 */
export { PaymentIntentView } from './payment.schemas.js';
export { PAYMENT_INTENT_EXAMPLE } from './payment.examples.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { InvoiceChange } from './invoice-changes.schemas.js';
export { paymentViewsModule } from './payment-views.module.js';
