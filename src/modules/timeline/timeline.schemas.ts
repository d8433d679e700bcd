import { Type } from '@sinclair/typebox';
import { INVOICE_STATUSES } from '../invoices/index.js';
import { DELIVERY_ERRORS } from '../webhooks/index.js';
import { TIMELINE_KINDS, TIMELINE_LIMIT, type TimelineKind } from './timeline.js';
import { Nullable, Timestamp } from '../../http/common.schemas.js';

/**
 * One record. This schema is the whitelist of what leaves the server: the serializer drops any other
 * property, so an event's stored data (the whole invoice row) can never leak through here.
 */
export const TimelineRecordView = Type.Object({
  at: Type.String({
    format: 'date-time',
    description: 'When it happened (for `webhook_attempt`: when the attempt started).',
  }),
  kind: Type.Unsafe<TimelineKind>({
    type: 'string',
    enum: [...TIMELINE_KINDS],
    description: 'What happened; see the list above.',
  }),
  eventId: Type.Optional(
    Type.String({
      description:
        'The change-feed event (decimal id, as in GET /changes) this record comes from; for `webhook_attempt`, the event that was sent.',
    }),
  ),
  paymentIntentId: Type.Optional(
    Type.String({
      description: 'Payment records: the payment attempt (`pi_…`), readable with GET /payment-intents/{id}.',
    }),
  ),
  failureReason: Type.Optional(
    Type.String({
      description:
        '`payment_failed`: why, e.g. amount_mismatch, recipient_mismatch, expired, reverted, already_used, not_found.',
    }),
  ),
  network: Type.Optional(
    Type.String({
      description: '`paid` and payment records: the network the payment was made on, e.g. `base`.',
    }),
  ),
  transactionHash: Type.Optional(
    Type.String({
      description:
        'Payment records: the transaction that paid, or was submitted to pay (`0x…`), once known: an x402 payment is settled after its `payment_submitted`.',
    }),
  ),
  linkVersion: Type.Optional(Type.Integer({ description: '`renewed`: the new link version.' })),
  expiresAt: Type.Optional(Type.String({ format: 'date-time', description: '`renewed`: the new deadline.' })),
  attempt: Type.Optional(Type.Integer({ description: '`webhook_attempt`: 1 for the first attempt of that event.' })),
  statusCode: Type.Optional(
    Nullable(
      Type.Integer({ description: "`webhook_attempt`: the receiver's HTTP status; null when it did not answer." }),
    ),
  ),
  error: Type.Optional(
    Nullable(
      Type.Unsafe<string>({
        type: 'string',
        enum: [...DELIVERY_ERRORS],
        description:
          '`webhook_attempt`: null when acknowledged (2xx); else a safe category. `http_status`: the receiver answered non-2xx.',
      }),
    ),
  ),
  durationMs: Type.Optional(Type.Integer({ description: '`webhook_attempt`: how long the request took.' })),
});

/** An archived invoice's own facts, which retention never removes. */
export const TimelineSnapshotView = Type.Object(
  {
    number: Type.String({ description: 'The invoice number (INV-000042).' }),
    amount: Type.String({ description: 'USDC with 6 decimals.' }),
    currency: Type.Literal('USDC'),
    description: Nullable(Type.String()),
    externalId: Nullable(Type.String({ description: 'Your order reference.' })),
    status: Type.Unsafe<(typeof INVOICE_STATUSES)[number]>({ type: 'string', enum: [...INVOICE_STATUSES] }),
    network: Nullable(Type.String({ description: 'Once paid, the network that paid it.' })),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    paidAt: Nullable(Timestamp),
    expiredAt: Nullable(Timestamp),
    cancelledAt: Nullable(Timestamp),
    paymentIntentId: Nullable(
      Type.String({ description: 'The payment that paid it (`pi_…`, GET /payment-intents/{id}); null unless paid.' }),
    ),
    receiptNumber: Nullable(
      Type.String({ description: 'Its receipt (RCT-000017, GET /invoices/{id}/receipt); null unless paid.' }),
    ),
  },
  { description: "An archived invoice's own facts." },
);

export const InvoiceTimelineView = Type.Object({
  invoiceId: Type.String(),
  status: Type.Unsafe<(typeof INVOICE_STATUSES)[number]>({
    type: 'string',
    enum: [...INVOICE_STATUSES],
    description: 'The status now, as GET /invoices/{id} shows it.',
  }),
  records: Type.Array(TimelineRecordView, {
    maxItems: TIMELINE_LIMIT,
    description: `The ${TIMELINE_LIMIT} most recent records at most, oldest first.`,
  }),
  truncated: Type.Boolean({
    description:
      'true when records are missing: older ones than those returned, or ones retention removed (never false over an empty list; ' +
      'always true for an archived invoice).',
  }),
  snapshot: Type.Union([TimelineSnapshotView, Type.Null()], {
    description:
      'Null unless the invoice is archived (GET /invoices/{id} says `archived: true`: it is older than INVOICE_RETENTION_DAYS). ' +
      'Then its lifecycle records are gone and this stands in their place: what it was for, its status and dates, and the ' +
      'ids of its payment and receipt. The invoice and its receipt themselves are kept for good.',
  }),
});
