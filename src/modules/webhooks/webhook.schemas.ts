import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../http/common.schemas.js';
import { DELIVERY_ERRORS } from './webhook.js';

const SafeError = Nullable(
  Type.Unsafe<string>({
    type: 'string',
    enum: [...DELIVERY_ERRORS],
    description:
      'Why the attempt failed, as a safe category; null when it was acknowledged. `http_status`: the receiver answered non-2xx (see the status).',
  }),
);

export const WebhookSettingsBody = Type.Object(
  {
    endpoint: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'A public https URL on port 443 without credentials. Required the first time.',
      }),
    ),
    enabled: Type.Optional(
      Type.Boolean({ description: 'false pauses delivery: events queue up and are sent when enabled again.' }),
    ),
    rotate: Type.Optional(
      Type.Boolean({
        description: 'true: a new signing secret (in the response) and delivery paused until you enable it again.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WebhookSettingsView = Type.Object({
  endpoint: Type.String(),
  enabled: Type.Boolean(),
  secret: Type.Optional(
    Type.String({
      description: 'The signing secret: only when it was created or rotated by this request. Store it now.',
    }),
  ),
});

export const DeliveryView = Type.Object({
  eventId: Type.String({ description: 'The body `id` and X-Payment-Event-ID: a feed event id, or `test_…`.' }),
  type: Type.String(),
  status: Type.Unsafe<'pending' | 'succeeded' | 'failed'>({ type: 'string', enum: ['pending', 'succeeded', 'failed'] }),
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer({ description: "The receiver's last HTTP status, when it answered." })),
  lastError: SafeError,
  lastAttemptAt: Nullable(Timestamp),
  nextAttemptAt: Nullable(
    Type.String({
      format: 'date-time',
      description: 'When the next retry is due (pending only; a paused endpoint holds it).',
    }),
  ),
  lastDurationMs: Nullable(Type.Integer()),
  createdAt: Timestamp,
  deliveredAt: Nullable(Timestamp),
});

export const AttemptView = Type.Object({
  eventId: Type.String(),
  invoiceId: Nullable(Type.String({ description: 'The invoice the event is about; null for test events.' })),
  attempt: Type.Integer({ description: '1 for the first attempt of the delivery.' }),
  startedAt: Timestamp,
  durationMs: Type.Integer(),
  statusCode: Nullable(Type.Integer()),
  error: SafeError,
});

export const WebhookView = Type.Object({
  endpoint: Nullable(Type.String({ description: 'null until PUT /webhook sets one.' })),
  enabled: Type.Boolean(),
  pausedAt: Nullable(Timestamp),
  secretCreatedAt: Nullable(Timestamp),
  deliveries: Type.Array(DeliveryView, { description: 'Up to 20, newest first.' }),
  recentAttempts: Type.Array(AttemptView, { description: 'Up to 20, newest first.' }),
});

export const RetryBody = Type.Object(
  {
    // A JSON number past 2^53 − 1 has already lost digits when it is parsed: such ids come as strings.
    eventId: Type.Union(
      [Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: '^[0-9]{1,19}$' })],
      {
        description:
          'The event id (as in the body and the feed): a decimal string, or a JSON number up to 2^53 − 1 (9007199254740991).',
      },
    ),
  },
  { additionalProperties: false },
);

export const TestResult = Type.Object({
  id: Type.String({ description: '`test_…`' }),
  delivered: Type.Boolean({ description: 'true when the receiver answered 2xx.' }),
  statusCode: Nullable(Type.Integer()),
  error: SafeError,
  durationMs: Type.Integer(),
});
