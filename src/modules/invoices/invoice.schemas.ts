import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../http/common.schemas.js';
import { ID_PATTERN } from '../../shared/ids.js';
import { USDC_AMOUNT_PATTERN } from '../../shared/money.js';
import { EXPIRES_IN_VALUES, INVOICE_STATUSES } from './invoice.js';
import { INVALID_AMOUNT_MESSAGE } from '../invoice-input/index.js';

export const InvoiceView = Type.Object({
  id: Type.String({
    description: 'Invoice id (`inv_…`). Private: anyone holding it can view the public payment details.',
  }),
  number: Type.String({ description: 'INV-000001, … per workspace; never reused.' }),
  status: Type.Unsafe<(typeof INVOICE_STATUSES)[number]>({ type: 'string', enum: [...INVOICE_STATUSES] }),
  amount: Type.String({ description: 'USDC, always with 6 decimals ("12.500000").' }),
  currency: Type.Literal('USDC'),
  network: Nullable(
    Type.String({ description: 'Fixed network, or null when the payer chooses; once paid, the network that paid it.' }),
  ),
  expiresIn: Type.Integer(),
  expiresAt: Timestamp,
  linkVersion: Type.Integer({ description: 'Grows with each renewal; payments for older versions are refused.' }),
  externalId: Nullable(Type.String()),
  description: Nullable(Type.String({ description: 'What the buyer pays for, as sent; shown on the checkout page.' })),
  successUrl: Nullable(Type.String()),
  cancelUrl: Nullable(Type.String()),
  payTo: Type.String({ description: 'The receiving address: the workspace wallet.' }),
  url: Type.String({ description: 'The x402 protocol payment endpoint. Not the browser link.' }),
  checkoutUrl: Type.String({ description: 'The browser checkout link to send to the buyer.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  paidAt: Type.Union([Timestamp, Type.Null()]),
  expiredAt: Type.Union([Timestamp, Type.Null()]),
  cancelledAt: Type.Union([Timestamp, Type.Null()]),
  automationId: Type.Union([Type.String({ description: 'The automation (`aut_…`) that created it.' }), Type.Null()], {
    description: 'Set for an invoice an automation created; null otherwise.',
  }),
  occurrence: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: "Which of the automation's occurrences created it (1, 2, …); null otherwise.",
  }),
  archived: Type.Boolean({
    description:
      'true once older than INVOICE_RETENTION_DAYS (default 400) from `createdAt`: its lifecycle records are gone and ' +
      'GET /invoices/{id}/timeline answers its `snapshot`. It is still read, listed and found by search, and its receipt stays readable.',
  }),
});

/** `description`, as POST /invoices and an automation's template take it (checked by the rules of POST /invoices). */
export const InvoiceDescription = Type.String({
  description:
    'What the buyer pays for: plain text (line breaks and tabs kept, other control characters refused), at most 1,000 UTF-8 bytes. ' +
    'Shown publicly on the checkout page: not a secret. Empty is the same as none (null).',
});

/**
 * `payTo`, wherever a request may name the receiving address (an invoice, a renewal, a checkout payment, an
 * automation's template): the workspace wallet itself is accepted and changes nothing, any other value is 403.
 */
export const PayTo = Type.String({
  description: 'Omit. Any address other than the workspace wallet is refused with 403.',
});

export const CreateInvoiceBody = Type.Object(
  {
    amount: Type.String({
      pattern: USDC_AMOUNT_PATTERN,
      maxLength: 40,
      description: 'USDC (not fiat), dot as separator, up to 6 decimals: "12.50".',
    }),
    currency: Type.Optional(Type.String({ maxLength: 16, description: 'Only USDC (the default).' })),
    network: Type.Optional(Type.String({ maxLength: 64, description: 'Omit to let the payer choose.' })),
    expiresIn: Type.Optional(
      Type.Integer({
        enum: [...EXPIRES_IN_VALUES],
        description: 'Payment window in seconds; default 3600. Costs 1, 2 or 3 credits.',
      }),
    ),
    externalId: Type.Optional(
      Type.String({
        description: 'Your order reference, at most 128 UTF-8 bytes. Not a secret, not an idempotency key.',
      }),
    ),
    description: Type.Optional(InvoiceDescription),
    successUrl: Type.Optional(
      Type.String({ maxLength: 2048, description: 'https URL on an allowed checkout return origin.' }),
    ),
    cancelUrl: Type.Optional(
      Type.String({ maxLength: 2048, description: 'https URL on an allowed checkout return origin.' }),
    ),
    number: Type.Optional(Type.String({ description: 'Refused: numbers are assigned by the service.' })),
    payTo: Type.Optional(PayTo),
  },
  { additionalProperties: false },
);

/** Schema failures of these fields answer with the field's own code (and the amount with its one message). */
export const CREATE_FIELD_CODES = {
  amount: { code: 'invalid_amount', message: INVALID_AMOUNT_MESSAGE },
  currency: 'unsupported_currency',
  network: 'unsupported_network',
  expiresIn: 'invalid_expires_in',
  successUrl: 'invalid_return_url',
  cancelUrl: 'invalid_return_url',
} as const;

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ description: 'Required: 8–128 characters, new per invoice, the same when retrying.' }),
  ),
});

export const InvoiceParams = Type.Object({
  workspaceId: Type.String({ pattern: ID_PATTERN }),
  invoiceId: Type.String({ maxLength: 64, description: 'Invoice id (`inv_…`).' }),
});

export const RenewBody = Type.Object(
  {
    expiresIn: Type.Optional(
      Type.Integer({ enum: [...EXPIRES_IN_VALUES], description: "New payment window; default the invoice's own." }),
    ),
    payTo: Type.Optional(PayTo),
  },
  { additionalProperties: false },
);

/** The portal's form: the amount may use a comma ("12,50"); it is normalised before the rules of POST /invoices apply. */
export const PortalCreateInvoiceBody = Type.Composite(
  [Type.Omit(CreateInvoiceBody, ['amount']), Type.Object({ amount: Type.String({ maxLength: 40 }) })],
  {
    additionalProperties: false,
  },
);

export const InvoiceListQuery = Type.Object({
  status: Type.Optional(
    Type.Unsafe<(typeof INVOICE_STATUSES)[number]>({
      type: 'string',
      enum: [...INVOICE_STATUSES],
      description:
        'Only invoices with this status as GET shows it (an open invoice past its deadline counts as expired).',
    }),
  ),
  automationId: Type.Optional(
    Type.String({ maxLength: 64, description: 'Only the invoices this automation (`aut_…`) created.' }),
  ),
  createdAfter: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'Only invoices created at or after this instant (RFC 3339). With `createdBefore`, a half-open range: consecutive ranges (e.g. months) neither overlap nor leave gaps.',
    }),
  ),
  createdBefore: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only invoices created before this instant (RFC 3339).' }),
  ),
  // 18 digits at most: every such number fits PostgreSQL's bigint, so no cursor can overflow a query.
  cursor: Type.Optional(
    Type.String({ pattern: '^[1-9][0-9]{0,17}$', description: 'The `nextCursor` of the previous page.' }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});

export const InvoicePage = Type.Object({
  invoices: Type.Array(InvoiceView, { description: 'Newest (highest number) first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` for the next page; null when there is none.',
  }),
});
