import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../http/common.schemas.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './change-feed.js';

export const ChangesQuery = Type.Object({
  after: Type.String({
    default: '0',
    pattern: '^[0-9]{1,19}$',
    description:
      'Cursor: "0" (the start) or a `nextCursor`/`restartCursor` this feed returned. Events with a greater id are returned.',
  }),
  limit: Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `Events per page, 1–${MAX_PAGE_SIZE}.`,
  }),
});

/** Schema failures of these query fields answer with the field's own code. */
export const CHANGES_FIELD_CODES = { after: 'invalid_cursor' } as const;

export const ChangeEvent = Type.Object({
  id: Type.String({
    description: 'Decimal event id, per workspace, increasing in commit order without gaps (until retention).',
  }),
  type: Type.String({ description: 'Event kind, e.g. `invoice.paid`; see the list above.' }),
  createdAt: Timestamp,
  invoiceId: Type.Optional(Type.String()),
  paymentIntentId: Type.Optional(Type.String()),
  data: Type.Unknown({
    description:
      'invoice.*: `{"invoice": <the invoice as GET /invoices/{id} shows it, at the time of the event>}`. ' +
      'payment_intent.*: `{"paymentIntent": <as GET /payment-intents/{id} shows it>, "invoice": {"id", "number", "externalId"}}`.',
  }),
});

export const ChangePage = Type.Object({
  events: Type.Array(ChangeEvent),
  nextCursor: Type.String({
    description: 'Pass as `after` next time: the id of the last event returned, or `after` itself when none was.',
  }),
  hasMore: Type.Boolean({
    description: 'True when more events are already committed after this page: fetch again at once.',
  }),
});
