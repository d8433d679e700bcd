import type { OperationExamples } from '../../http/openapi-examples.js';

export const healthExamples = {
  issues: {
    response: {
      issues: [
        {
          kind: 'webhook_deliveries_failed',
          severity: 'critical',
          since: '2026-11-14T09:41:12.000Z',
          hint: 'Deliveries to your webhook endpoint failed for good: fix the receiver, then retry them (POST /webhook/retry).',
          count: 1,
        },
        {
          kind: 'low_credits',
          severity: 'warning',
          since: '2026-11-15T08:00:00.000Z',
          hint: 'Few credits are left: buy a credit package before new invoices are refused.',
        },
      ],
    },
  },
} satisfies Record<string, OperationExamples>;
