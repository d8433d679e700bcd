/** What other modules may use of payments; everything else is the module's own. */
export { checkoutRoutes, type CheckoutPage } from './checkout.routes.js';
export type { AuthorizationBody, CheckoutView, SubmittedPayment } from './checkout.schemas.js';
export { CheckoutService } from './checkout.service.js';
export type { FailureReason } from './payment-intent.js';
export { SETTLE_JOB, VERIFY_TRANSACTION_JOB, settleHandler, verifyTransactionHandler } from './payment.jobs.js';
export { invoiceChangePortalRoutes } from './invoice-changes.portal-routes.js';
export { paymentsInFlight } from './payment.repo.js';
export { paymentIntentRoutes, receiptRoutes } from './payment.routes.js';
export { purchasePaymentRoutes } from './purchase-payment.routes.js';
export { NEW_BLOCK, type NewBlockWatcher } from './new-blocks.js';
export { PaymentService } from './payment.service.js';
export { registerX402 } from './x402.routes.js';
export { x402Operations, X402_SCHEMAS } from './x402.openapi.js';
export { PaymentIntentView } from './payment.schemas.js';
export { PAYMENT_INTENT_EXAMPLE } from './payment.examples.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { ReceiptView } from './payment.schemas.js';
export type { InvoiceChange } from './invoice-changes.schemas.js';
