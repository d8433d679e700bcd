import type { OperationExamples } from '../../http/openapi-examples.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';

/** A transfer that paid nothing by itself: two open invoices of its amount. */
const UNMATCHED = {
  id: EXAMPLE_IDS.receivedTransfer,
  object: 'received_transfer',
  status: 'unmatched',
  reason: 'ambiguous',
  network: 'base-sepolia',
  transactionHash: EXAMPLE_IDS.transaction,
  logIndex: 0,
  from: EXAMPLE_IDS.payer.toLowerCase(),
  to: EXAMPLE_IDS.wallet.toLowerCase(),
  amount: '12.500000',
  currency: 'USDC',
  blockNumber: '18342017',
  blockTime: '2026-11-14T09:41:10.000Z',
  invoiceId: null,
  appliedInvoiceId: null,
  paymentIntentId: null,
  note: null,
  createdAt: '2026-11-14T09:41:12.000Z',
  resolvedAt: null,
} as const;

export const receivedTransferExamples = {
  list: { response: { receivedTransfers: [UNMATCHED], nextCursor: null } },
  get: { response: UNMATCHED },
  apply: {
    request: { invoiceId: EXAMPLE_IDS.invoice },
    response: {
      ...UNMATCHED,
      status: 'applied',
      appliedInvoiceId: EXAMPLE_IDS.invoice,
      paymentIntentId: EXAMPLE_IDS.paymentIntent,
      resolvedAt: '2026-11-14T10:02:31.000Z',
    },
  },
  dismiss: {
    request: { note: 'Refunded to the sender.' },
    response: {
      ...UNMATCHED,
      status: 'dismissed',
      note: 'Refunded to the sender.',
      resolvedAt: '2026-11-14T10:02:31.000Z',
    },
  },
} satisfies Record<string, OperationExamples>;
