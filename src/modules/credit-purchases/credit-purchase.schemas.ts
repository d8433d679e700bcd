import { Type } from '@sinclair/typebox';
import { Nullable, LatestPaymentAttempt, PaymentNetworkView, Timestamp } from '../../http/common.schemas.js';
import { ID_PATTERN } from '../../shared/ids.js';
import { PURCHASE_STATUSES } from './credit-purchase.js';

export const CreditPurchaseView = Type.Object({
  id: Type.String({ description: 'Credit purchase id (`cp_…`).' }),
  packageId: Type.String({ description: 'The package bought.' }),
  credits: Type.Integer({ description: "Credits added to the workspace's balance when it is paid." }),
  price: Type.String({ description: 'USDC, always with 6 decimals ("90.000000"). Pay exactly this.' }),
  currency: Type.Literal('USDC'),
  status: Type.Unsafe<(typeof PURCHASE_STATUSES)[number]>({
    type: 'string',
    enum: [...PURCHASE_STATUSES],
    description:
      '`open` until paid or until `expiresAt` (then it reads `expired`); `processing` while a payment is verified; `paid` once its credits are added.',
  }),
  recipient: Type.String({
    description: "The operator's wallet (checksummed), which receives credit purchases — not the workspace wallet.",
  }),
  network: Nullable(Type.String({ description: 'The network it was paid on; null until paid.' })),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  paidAt: Type.Union([Timestamp, Type.Null()]),
  url: Type.String({ description: 'The x402 protocol payment endpoint of this purchase. Not a browser link.' }),
  payment: Type.Object(
    {
      authorizationNonce: Nullable(
        Type.String({
          description:
            'The EIP-3009 `nonce` an authorization must carry: keccak256(abi.encode(purchaseId, 1)) with its first four bytes replaced by 0x4f524452 ("ORDR"). Null unless open.',
        }),
      ),
      networks: Type.Array(PaymentNetworkView, {
        description: 'Where it can be paid, one entry per configured network; empty unless the status is `open`.',
      }),
    },
    { description: 'What a payer needs while the purchase is open.' },
  ),
  lastPayment: Type.Union([LatestPaymentAttempt, Type.Null()], {
    description:
      'The latest attempt to pay it (an authorization, a transaction, an x402 payment), or null: follow it to `succeeded`, when the purchase reads `paid`.',
  }),
});

export const CreatePurchaseBody = Type.Object(
  {
    packageId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The `id` of a package from GET /billing `packages`.',
    }),
  },
  { additionalProperties: false },
);

export const PurchaseParams = Type.Object({
  workspaceId: Type.String({ pattern: ID_PATTERN }),
  purchaseId: Type.String({ maxLength: 64, description: 'Credit purchase id (`cp_…`).' }),
});

export const PurchaseListQuery = Type.Object({
  cursor: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'Omit for the first page; then the `nextCursor` of the previous page. Opaque.',
    }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'Purchases per page, 1–100.' }),
});

/** Schema failures of these query fields answer with the field's own code. */
export const PURCHASE_LIST_FIELD_CODES = { cursor: 'invalid_cursor' } as const;

export const PurchasePage = Type.Object({
  purchases: Type.Array(CreditPurchaseView, { description: 'Newest first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` for the next (older) page; null when there is none.',
  }),
});
