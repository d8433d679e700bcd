import type { OperationExamples } from '../../http/openapi-examples.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';

export const timelineExamples = {
  timeline: {
    response: {
      invoiceId: EXAMPLE_IDS.invoice,
      status: 'paid',
      records: [
        { at: '2026-11-14T09:30:00.000Z', kind: 'created', eventId: '1040' },
        {
          at: '2026-11-14T09:41:02.000Z',
          kind: 'payment_submitted',
          eventId: '1041',
          paymentIntentId: EXAMPLE_IDS.paymentIntent,
        },
        {
          at: '2026-11-14T09:41:12.000Z',
          kind: 'payment_confirmed',
          eventId: '1043',
          paymentIntentId: EXAMPLE_IDS.paymentIntent,
        },
        { at: '2026-11-14T09:41:12.000Z', kind: 'paid', eventId: '1044' },
        {
          at: '2026-11-14T09:41:13.000Z',
          kind: 'webhook_attempt',
          eventId: '1043',
          attempt: 1,
          statusCode: 200,
          error: null,
          durationMs: 87,
        },
      ],
      truncated: false,
      snapshot: null,
    },
  },
} satisfies Record<string, OperationExamples>;
