import type { OperationExamples } from '../../http/openapi-examples.js';

export const dashboardExamples = {
  dashboard: {
    response: {
      from: '2026-11-13T00:00:00.000Z',
      days: [
        { date: '2026-11-13', paidAmount: '0.000000', paidInvoices: 0, webhookAttempts: 0, webhookSucceeded: 0 },
        { date: '2026-11-14', paidAmount: '12.500000', paidInvoices: 1, webhookAttempts: 2, webhookSucceeded: 1 },
      ],
      totals: { paidAmount: '12.500000', paidInvoices: 1, webhookAttempts: 2, webhookSucceeded: 1 },
    },
  },
} satisfies Record<string, OperationExamples>;
