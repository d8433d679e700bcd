import type { JobHandler } from '../../jobs/index.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { PaymentIntentId } from './payment-intent.js';
import type { PaymentService } from './payment.service.js';

export { SETTLE_JOB, VERIFY_TRANSACTION_JOB } from './payment.service.js';

/** Runs settlement of one payment intent; it reschedules itself while it waits for the chain. */
export function settleHandler(payments: PaymentService): JobHandler {
  return async (job) => {
    const { intentId } = job.payload as { intentId: PaymentIntentId };
    await payments.settle(job.workspaceId as WorkspaceId, intentId);
  };
}

/** Verifies one submitted transaction; it reschedules itself while the transaction is unseen or unconfirmed. */
export function verifyTransactionHandler(payments: PaymentService): JobHandler {
  return async (job) => {
    const { intentId } = job.payload as { intentId: PaymentIntentId };
    await payments.verifyTransaction(job.workspaceId as WorkspaceId, intentId);
  };
}
