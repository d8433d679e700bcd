import type { OperationExamples } from '../../http/openapi-examples.js';
import { INVOICE_EXAMPLE } from '../invoices/index.js';

const ITEMS = [
  { amount: '12.50', expiresIn: 86400, externalId: 'order-1042', description: 'Blue glazed teapot, 1 l' },
  { amount: '40.00', externalId: 'order-1043' },
  { amount: '1,5', externalId: 'order-1044' },
];
const INVALID_AMOUNT = {
  code: 'invalid_amount',
  message:
    'amount must be a positive USDC amount with a dot as decimal separator and at most 6 decimals, such as "12.50".',
};

export const batchExamples = {
  quote: {
    request: { items: ITEMS },
    response: {
      items: [
        { valid: true, credits: { creation: 2, feeReserve: 1, total: 3 } },
        { valid: true, credits: { creation: 1, feeReserve: 1, total: 2 } },
        { valid: false, error: INVALID_AMOUNT },
      ],
      totalCredits: { creation: 3, feeReserve: 2, total: 5 },
      availableCredits: 468,
      covered: true,
    },
  },
  create: {
    request: { items: ITEMS, budgetCredits: 5 },
    response: {
      results: [
        { invoice: INVOICE_EXAMPLE },
        {
          invoice: {
            ...INVOICE_EXAMPLE,
            id: 'inv_01jd6q5v0kz7r3x9m2t4b8n1c7',
            number: 'INV-000043',
            amount: '40.000000',
            expiresIn: 3600,
            expiresAt: '2026-11-14T10:30:00.000Z',
            externalId: 'order-1043',
            description: null,
          },
        },
        { error: INVALID_AMOUNT },
      ],
    },
  },
} satisfies Record<string, OperationExamples>;
