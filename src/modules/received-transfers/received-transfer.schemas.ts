import { Type } from '@sinclair/typebox';
import { ID_PATTERN } from '../../shared/ids.js';
import { RECEIVED_TRANSFER_REASONS, RECEIVED_TRANSFER_STATUSES } from './received-transfer.js';
import { Nullable } from '../../http/common.schemas.js';

export const ReceivedTransferView = Type.Object({
  id: Type.String({ description: 'Received transfer id (`rt_…`).' }),
  object: Type.Literal('received_transfer'),
  status: Type.Unsafe<(typeof RECEIVED_TRANSFER_STATUSES)[number]>({
    type: 'string',
    enum: [...RECEIVED_TRANSFER_STATUSES],
    description: '`unmatched` until you apply it to an invoice (`applied`) or put it aside (`dismissed`).',
  }),
  reason: Type.Unsafe<(typeof RECEIVED_TRANSFER_REASONS)[number]>({
    type: 'string',
    enum: [...RECEIVED_TRANSFER_REASONS],
    description:
      'Why it paid nothing by itself: `ambiguous` (several open invoices of this amount), `no_matching_invoice`, ' +
      '`amount_mismatch` (submitted for an invoice of another amount) or `late` (mined after the deadline of the invoice of this amount).',
  }),
  network: Type.String(),
  transactionHash: Type.String(),
  logIndex: Type.Integer({ minimum: 0 }),
  from: Type.String({ description: 'The sending address.' }),
  to: Type.String({ description: 'The receiving wallet.' }),
  amount: Type.String({ description: 'USDC with 6 decimals, as received.' }),
  currency: Type.Literal('USDC'),
  blockNumber: Type.String(),
  blockTime: Type.String({ format: 'date-time' }),
  invoiceId: Nullable(Type.String({ description: 'The invoice it was meant for, when known.' })),
  appliedInvoiceId: Nullable(Type.String({ description: 'The invoice it paid, once applied.' })),
  paymentIntentId: Nullable(Type.String({ description: 'The payment that records it, once applied.' })),
  note: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  resolvedAt: Nullable(Type.String({ format: 'date-time' })),
});

export const ReceivedTransferParams = Type.Object({
  workspaceId: Type.String({ pattern: ID_PATTERN }),
  receivedTransferId: Type.String({ maxLength: 64, description: 'Received transfer id (`rt_…`).' }),
});

export const ReceivedTransferListQuery = Type.Object({
  status: Type.Optional(
    Type.Unsafe<(typeof RECEIVED_TRANSFER_STATUSES)[number]>({
      type: 'string',
      enum: [...RECEIVED_TRANSFER_STATUSES],
      description: 'Only received transfers with this status; `unmatched` lists those to resolve.',
    }),
  ),
  cursor: Type.Optional(
    Type.String({ pattern: '^rt_[0-9a-hjkmnp-tv-z]{26}$', description: 'The `nextCursor` of the previous page.' }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});

export const ReceivedTransferPage = Type.Object({
  receivedTransfers: Type.Array(ReceivedTransferView, { description: 'Newest first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` for the next page; null when there is none.',
  }),
});

export const ApplyBody = Type.Object(
  {
    invoiceId: Type.String({ maxLength: 64, description: 'The invoice (`inv_…`) this transfer pays.' }),
    acceptShortfall: Type.Optional(
      Type.Boolean({
        description:
          'Required (true) when the transfer is less than the invoice amount: the invoice is paid with what arrived, and the payment records the shortfall.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DismissBody = Type.Object(
  { note: Type.Optional(Type.String({ maxLength: 500, description: 'Why it was put aside, for your records.' })) },
  { additionalProperties: false },
);
