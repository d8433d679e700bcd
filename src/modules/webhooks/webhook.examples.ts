import type { OperationExamples } from '../../http/openapi-examples.js';

const ENDPOINT = 'https://shop.example.com/hooks/payments';

const DELIVERY = {
  eventId: '1043',
  type: 'payment_intent.succeeded',
  status: 'failed',
  attempts: 12,
  lastStatusCode: 500,
  lastError: 'http_status',
  lastAttemptAt: '2026-11-15T09:41:30.000Z',
  nextAttemptAt: null,
  lastDurationMs: 212,
  createdAt: '2026-11-14T09:41:12.000Z',
  deliveredAt: null,
} as const;

export const webhookExamples = {
  get: {
    response: {
      endpoint: ENDPOINT,
      enabled: true,
      pausedAt: null,
      secretCreatedAt: '2026-11-01T12:00:00.000Z',
      deliveries: [
        {
          ...DELIVERY,
          eventId: '1044',
          type: 'invoice.scheduled',
          status: 'succeeded',
          attempts: 1,
          lastStatusCode: 200,
          lastError: null,
          lastAttemptAt: '2026-11-15T09:00:01.000Z',
          lastDurationMs: 87,
          createdAt: '2026-11-15T09:00:00.000Z',
          deliveredAt: '2026-11-15T09:00:01.000Z',
        },
        DELIVERY,
      ],
      recentAttempts: [
        {
          eventId: '1044',
          invoiceId: 'inv_01jd6q5v0kz7r3x9m2t4b8n1c6',
          attempt: 1,
          startedAt: '2026-11-15T09:00:01.000Z',
          durationMs: 87,
          statusCode: 200,
          error: null,
        },
      ],
    },
  },
  configure: {
    request: { endpoint: ENDPOINT, enabled: true },
    response: {
      endpoint: ENDPOINT,
      enabled: true,
      secret: 'whsec_q3Vt9yXz2bN5mK8pL1rD4fG7hJ0sA6wE3cU9iO2tY5k',
    },
  },
  retry: {
    request: { eventId: '1043' },
    response: {
      ...DELIVERY,
      status: 'pending',
      nextAttemptAt: '2026-11-15T10:00:00.000Z',
    },
  },
  test: {
    response: {
      id: 'test_01jd6s4k9m2x7t1v5c3n8b0q6z',
      delivered: true,
      statusCode: 200,
      error: null,
      durationMs: 94,
    },
  },
} satisfies Record<string, OperationExamples>;
