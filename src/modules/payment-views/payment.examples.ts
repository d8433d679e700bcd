import type { OperationExamples } from '../../http/openapi-examples.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';

/** A succeeded payment intent, as GET /payment-intents/{id} shows it. */
export const PAYMENT_INTENT_EXAMPLE = {
  id: EXAMPLE_IDS.paymentIntent,
  status: 'succeeded',
  failureReason: null,
  invoiceId: EXAMPLE_IDS.invoice,
  invoiceNumber: 'INV-000042',
  externalId: 'order-1042',
  method: 'authorization',
  network: 'base-sepolia',
  amount: '12.500000',
  amountReceived: '12.500000',
  shortfall: null,
  overpaid: null,
  currency: 'USDC',
  recipient: EXAMPLE_IDS.wallet,
  payer: EXAMPLE_IDS.payer,
  transactionHash: EXAMPLE_IDS.transaction,
  blockNumber: '18342017',
  submittedAt: '2026-11-14T09:41:02.000Z',
  finishedAt: '2026-11-14T09:41:12.000Z',
  overpayment: false,
} as const;

export const paymentExamples = {
  paymentIntent: { response: PAYMENT_INTENT_EXAMPLE },
  invoiceChanges: {
    response: `retry: 3000\n\nevent: invoice\ndata: ${JSON.stringify({ id: EXAMPLE_IDS.invoice })}\n\n: heartbeat\n\n`,
  },
} satisfies Record<string, OperationExamples>;
