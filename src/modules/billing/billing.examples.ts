import type { OperationExamples } from '../../http/openapi-examples.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';

export const billingExamples = {
  get: {
    response: {
      creditBalance: 480,
      reservedCredits: 12,
      availableCredits: 468,
      maxInvoiceAmount: '10000.000000',
      tariff: { '3600': 1, '86400': 2, '432000': 3 },
      successFeeCredits: 1,
      firstWorkspaceOfWallet: true,
      packages: [
        { id: 'starter', credits: 100, price: '10.000000', currency: 'USDC' },
        { id: 'growth', credits: 1000, price: '90.000000', currency: 'USDC' },
      ],
    },
  },
  ledger: {
    response: {
      entries: [
        {
          id: '3',
          kind: 'invoice.paid',
          reason: null,
          amount: -1,
          reserveChange: -1,
          balanceAfter: 480,
          reference: EXAMPLE_IDS.invoice,
          invoiceNumber: 'INV-000042',
          createdAt: '2026-11-14T09:41:12.000Z',
        },
        {
          id: '2',
          kind: 'invoice.created',
          reason: null,
          amount: -2,
          reserveChange: 1,
          balanceAfter: 481,
          reference: EXAMPLE_IDS.invoice,
          invoiceNumber: 'INV-000042',
          createdAt: '2026-11-14T09:30:00.000Z',
        },
      ],
      nextCursor: '2',
    },
  },
} satisfies Record<string, OperationExamples>;
