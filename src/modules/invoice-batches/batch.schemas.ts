import { Type } from '@sinclair/typebox';
import { InvoiceView } from '../invoices/index.js';
import { MAX_BATCH_ITEMS } from './batch.js';

// Items are checked one by one in the service, so that one bad item is reported in its result
// instead of refusing the whole request.
const Items = Type.Array(
  Type.Unknown({
    description:
      'An invoice definition: the body of POST /invoices (`amount`, `expiresIn`, `externalId`, `description`, …).',
  }),
  {
    minItems: 1,
    maxItems: MAX_BATCH_ITEMS,
    description: `1 to ${MAX_BATCH_ITEMS} invoice definitions, each with the fields and rules of POST /invoices.`,
  },
);

export const QuoteBody = Type.Object({ items: Items }, { additionalProperties: false });

export const BatchBody = Type.Object(
  {
    items: Items,
    budgetCredits: Type.Integer({
      minimum: 0,
      description:
        'The most credits (creation plus success-fee reserve) the batch may cost; above it nothing is created.',
    }),
  },
  { additionalProperties: false },
);

export const ItemError = Type.Object({
  code: Type.String({ description: 'The code POST /invoices would answer for this item.' }),
  message: Type.String(),
});

const Credits = Type.Object({
  creation: Type.Integer({ description: 'Credits charged when the invoice is created (by its payment window).' }),
  feeReserve: Type.Integer({ description: 'Success fee held in reserve; captured when paid, released otherwise.' }),
  total: Type.Integer(),
});

export const QuoteView = Type.Object({
  items: Type.Array(
    Type.Object({ valid: Type.Boolean(), credits: Type.Optional(Credits), error: Type.Optional(ItemError) }),
    { description: 'One entry per item, in order: its cost when valid, its error otherwise.' },
  ),
  totalCredits: Credits,
  availableCredits: Type.Integer({ description: 'Credit balance minus reserves, now.' }),
  covered: Type.Boolean({ description: 'Whether the available credits cover every valid item now.' }),
});

export const BatchView = Type.Object({
  results: Type.Array(Type.Union([Type.Object({ invoice: InvoiceView }), Type.Object({ error: ItemError })]), {
    description: 'One result per item, in order: the invoice, or the error that item got.',
  }),
});
