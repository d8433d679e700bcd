/** What other modules may use of the payment engine; everything else is the module's own. */
export {
  invoiceOrder,
  purchaseOrder,
  type InvoiceBook,
  type InvoiceLabel,
  type OrderBook,
  type OrderRef,
  type PayableOrder,
  type PaymentStep,
  type StepResult,
} from './order.js';
export type { OrderState } from './orders.js';
export type { OrderChangeFollower } from '../order-changes/index.js';
export type { FailureReason, PaymentIntent, PaymentIntentId } from './payment-intent.js';
export type { SignedAuthorization } from './signed-authorization.js';
export { paymentsInFlight, paymentTransactions } from './payment.repo.js';
export { CLOCK_SKEW_MS } from '../transfer-rules/index.js';
export {
  PaymentService,
  VALIDITY_MARGIN_SECONDS,
  presentIntent,
  type AppliedTransfer,
  type UnpaidTransfers,
} from './payment.service.js';
export { presentAttempt } from './payment.present.js';
export { paymentEngineModule } from './payment-engine.module.js';
