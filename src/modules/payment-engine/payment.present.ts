import type { PaymentIntent } from './payment-intent.js';

/** The payer's last attempt, for a progress display: no payer, nothing the chain does not show. */
export function presentAttempt(intent: PaymentIntent) {
  return {
    id: intent.id,
    status: intent.status,
    failureReason: intent.failureReason,
    method: intent.method,
    network: intent.network,
    transactionHash: intent.txHash,
    submittedAt: intent.submittedAt.toISOString(),
    finishedAt: intent.finishedAt?.toISOString() ?? null,
  };
}

export type PaymentAttemptView = ReturnType<typeof presentAttempt>;
