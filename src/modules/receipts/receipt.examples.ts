import { EXAMPLE_IDS } from '../../shared/example-ids.js';
import type { OperationExamples } from '../../http/openapi-examples.js';

export const receiptExamples = {
  receipt: {
    response: {
      receiptNumber: 'RCT-000017',
      invoiceId: EXAMPLE_IDS.invoice,
      number: 'INV-000042',
      description: 'Two bags of house blend, ground for filter',
      merchant: { name: 'Acme Coffee', supportContact: 'help@acme.example' },
      amount: '12.500000',
      currency: 'USDC',
      network: 'base-sepolia',
      chainId: 84532,
      payer: EXAMPLE_IDS.payer,
      recipient: EXAMPLE_IDS.wallet,
      transactionHash: EXAMPLE_IDS.transaction,
      transactionUrl: `https://sepolia.basescan.org/tx/${EXAMPLE_IDS.transaction}`,
      blockNumber: '18342017',
      paidAt: '2026-11-14T09:41:12.000Z',
      paymentIntentId: EXAMPLE_IDS.paymentIntent,
      externalId: 'order-1042',
    },
  },
} satisfies Record<string, OperationExamples>;
